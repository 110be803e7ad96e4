import { languageDetector } from 'hono/language';
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { toNumber } from '../money.js';
import { logoUrl } from '../catalog/logos.js';
import { checkoutDeposit, chooseMethod, createCheckout, findCheckout, offersFor, type CheckoutRow } from '../deposits/checkout.js';
import { CheckoutRequestSchema, DepositSchema, send } from '../deposits/schemas.js';
import { body, envelope, errorResponses, json, SIGNED } from '../http/openapi.js';
import { DepositNotFound, DepositNotPending, transitionDeposit, type TransitionKind } from '../deposits/service.js';
import { checkoutAmount, depositEtag, feesPaidBy, widgetCheckout, widgetDeposit } from '../deposits/widget-view.js';
import { ApiError, createRouter, describeZodError } from '../http/errors.js';
import type { ProviderDeps } from '../http/env.js';
import { signatureAuth } from '../http/signature.js';

/** The script-tag build of @kasir/checkout (a dependency of this package); KASIR_WIDGET_FILE points elsewhere. */
const WIDGET_FILE = fileURLToPath(import.meta.resolve('@kasir/checkout/kasir-checkout.js'));

const PAGE_CSS = `:root{color-scheme:light;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f3f4f6;color:#111827}
body{margin:0;min-height:100vh;display:flex;align-items:flex-start;justify-content:center}
main{width:100%;max-width:440px;margin:32px 16px;background:#fff;border-radius:12px;box-shadow:0 1px 3px rgba(0,0,0,.1);padding:24px}
h1{font-size:1.1rem;margin:0 0 16px}p.foot{color:#6b7280;font-size:.8rem;margin:16px 0 0;text-align:center}`;
const PAGE_CSS_HASH = createHash('sha256').update(PAGE_CSS).digest('base64');

/** Strict CSP for the hosted page: scripts only from this origin, no inline script, the page style by hash. */
export const CHECKOUT_CSP = [
  "default-src 'none'", "script-src 'self'", `style-src 'self' 'sha256-${PAGE_CSS_HASH}'`, "img-src 'self' data:", "connect-src 'self'",
  "font-src 'self'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'",
].join('; ');

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

function page(title: string, content: string, lang: 'en' | 'id' = 'en'): string {
  return `<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="data:,">
<style>${PAGE_CSS}</style>
<script type="module" src="/checkout/kasir-checkout.js"></script>
</head>
<body>
<main>
${content}
<p class="foot">Secured by kasir · sandbox</p>
</main>
</body>
</html>
`;
}

const checkoutIdParam = z.object({ id: z.string().min(1).max(128).openapi({ param: { name: 'id', in: 'path' } }) });

const SessionMethodSchema = z.object({
  depositPaymentType: z.string(), bankName: z.string(), bankCode: z.string(), name: z.string(), currency: z.string(), minimumAmount: z.number(),
  maximumAmount: z.number(), image: z.string(), feeFlat: z.number(), feePercentage: z.number(),
  paymentAmount: z.number(), fee: z.number(), shopperFee: z.number(), outputAmount: z.number(), available: z.boolean(),
});
const SessionSchema = z.object({
  id: z.string(), inputCurrency: z.string(), inputAmount: z.number().nullable(), outputCurrency: z.string(), outputAmount: z.number().nullable(),
  orderAmount: z.string().openapi({
    description: "What the order costs in inputCurrency, as an exact decimal string (the hosted widget API's Checkout.amount): "
      + 'inputAmount, or for a checkout created with outputAmount the input that converts to it before fees',
    example: '98880',
  }),
  feesPaidBy: z.enum(['merchant', 'shopper']), expiresAt: z.string(), expired: z.boolean(), methods: z.array(SessionMethodSchema),
  deposit: DepositSchema.nullable(),
}).openapi('CheckoutSession');

/** Interface 4.4: POST /v1/checkout, the hosted page, its session API and the widget API for hosted checkouts. */
export function checkoutRoutes(deps: ProviderDeps) {
  const router = createRouter();
  const signed = signatureAuth(deps);
  const base = () => deps.config.baseUrl;

  const checkoutEnabled = createMiddleware(async (c, next) => {
    const row = await deps.db.selectFrom('merchants').select('checkout_enabled').where('id', '=', c.get('merchant').merchantId).executeTakeFirst();
    if (!row?.checkout_enabled) throw new ApiError(400, 'Checkout is not enabled', 'Bad Request');
    await next();
  });

  const loadCheckout = async (id: string): Promise<CheckoutRow> => {
    const checkout = await findCheckout(deps, id);
    if (!checkout) throw new ApiError(404, 'Checkout not found');
    return checkout;
  };

  router.openapi(createRoute({
    method: 'post', path: '/v1/checkout', tags: ['Checkout'], summary: 'Create a hosted checkout link (valid 15 minutes)',
    security: SIGNED, middleware: [signed, checkoutEnabled] as const, request: { body: body(CheckoutRequestSchema) },
    responses: { 200: json(envelope(z.object({ id: z.string(), url: z.string() })), 'The checkout'), ...errorResponses(400, 401) },
  }), async (c) => {
    const checkout = await createCheckout(deps, c.get('merchant'), c.req.valid('json'));
    return send(c, 200, 'Checkout created successfully', checkout);
  });

  // The built widget, served to the hosted page (registered before /checkout/:id).
  let cached: { file: string; mtimeMs: number; body: string } | undefined;
  router.get('/checkout/kasir-checkout.js', async (c) => {
    const file = process.env.KASIR_WIDGET_FILE || WIDGET_FILE;
    let info;
    try {
      info = await stat(file);
    } catch {
      throw new ApiError(503, 'The checkout widget is not built yet: run npm run build');
    }
    if (!cached || cached.file !== file || cached.mtimeMs !== info.mtimeMs) cached = { file, mtimeMs: info.mtimeMs, body: await readFile(file, 'utf8') };
    return c.body(cached.body, 200, { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'no-cache' });
  });

  // The hosted page speaks the shopper's language: ?lang=, else Accept-Language, else English.
  const detectLanguage = languageDetector({
    supportedLanguages: ['en', 'id'], fallbackLanguage: 'en', order: ['querystring', 'header'], lookupQueryString: 'lang', caches: false,
  });
  router.get('/checkout/:id', detectLanguage, async (c) => {
    const lang = c.get('language') === 'id' ? 'id' : 'en';
    const id = c.req.param('id');
    const checkout = id.length <= 128 ? await findCheckout(deps, id) : undefined;
    c.header('Content-Security-Policy', CHECKOUT_CSP);
    c.header('Cache-Control', 'no-store');
    c.header('Referrer-Policy', 'no-referrer');
    if (!checkout) {
      return c.html(lang === 'id'
        ? page('Checkout tidak ditemukan', '<h1>Checkout tidak ditemukan</h1><p>Tautan pembayaran ini tidak ada. Minta tautan baru ke toko.</p>', lang)
        : page('Checkout not found', '<h1>Checkout not found</h1><p>This payment link does not exist. Ask the shop for a new one.</p>', lang), 404);
    }
    const org = await deps.db.selectFrom('merchants').innerJoin('organizations', 'organizations.id', 'merchants.organization_id')
      .select('organizations.name').where('merchants.id', '=', checkout.merchant_id).executeTakeFirst();
    const name = org?.name ?? 'Checkout';
    return c.html(page(lang === 'id' ? `Bayar ${name}` : `Pay ${name}`,
      `<h1>${escapeHtml(name)}</h1>\n<kasir-checkout endpoint="/checkout/api" checkout-id="${escapeHtml(checkout.id)}" locale="${lang}"></kasir-checkout>`, lang));
  });

  // --- The session API of DESIGN.md 3 (public, keyed by the unguessable id) ---

  router.openapi(createRoute({
    method: 'get', path: '/checkout/{id}/session', tags: ['Hosted checkout'], summary: 'Checkout session: methods and payable amounts',
    request: { params: checkoutIdParam },
    responses: { 200: json(envelope(SessionSchema), 'The session'), ...errorResponses(404) },
  }), async (c) => {
    const checkout = await loadCheckout(c.req.valid('param').id);
    const deposit = await checkoutDeposit(deps, checkout);
    return send(c, 200, 'Checkout session retrieved successfully', {
      id: checkout.id,
      inputCurrency: checkout.input_currency,
      inputAmount: checkout.input_amount === null ? null : toNumber(checkout.input_amount),
      outputCurrency: checkout.output_currency,
      outputAmount: checkout.output_amount === null ? null : toNumber(checkout.output_amount),
      orderAmount: checkoutAmount(checkout),
      feesPaidBy: feesPaidBy(checkout),
      expiresAt: checkout.expires_at,
      expired: checkout.expires_at <= deps.now().toISOString(),
      methods: offersFor(checkout).map(({ quote, shopperFee, available }) => ({
        depositPaymentType: quote.method.depositPaymentType, bankName: quote.method.bankName, bankCode: quote.method.code, name: quote.method.name,
        currency: quote.method.currency, minimumAmount: toNumber(quote.method.minimumAmount), maximumAmount: toNumber(quote.method.maximumAmount),
        image: logoUrl(base(), quote.method.logo), feeFlat: toNumber(quote.method.feeFlat), feePercentage: toNumber(quote.method.feePercentage),
        paymentAmount: toNumber(quote.inputAmount), fee: toNumber(quote.fee), shopperFee: toNumber(shopperFee),
        outputAmount: toNumber(quote.outputAmount), available,
      })),
      deposit: deposit?.view ?? null,
    });
  });

  router.openapi(createRoute({
    method: 'post', path: '/checkout/{id}/deposit', tags: ['Hosted checkout'], summary: 'Choose a payment method: creates the deposit (depositId = checkout id)',
    request: { params: checkoutIdParam, body: body(z.object({ paymentMethod: z.string().min(1).max(32).openapi({ example: 'BCA_VA' }) })) },
    responses: {
      200: json(envelope(DepositSchema), 'The deposit chosen before'), 201: json(envelope(DepositSchema), 'The new deposit'), ...errorResponses(400, 404),
    },
  }), async (c) => {
    const checkout = await loadCheckout(c.req.valid('param').id);
    const { view, created } = await chooseMethod(deps, checkout, c.req.valid('json').paymentMethod);
    return send(c, created ? 201 : 200, created ? 'Deposit created successfully' : 'Deposit retrieved successfully', view);
  });

  // --- The widget API (widget/WIDGET-API.md) for the hosted page's own <kasir-checkout> ---

  const widgetDepositOf = async (checkout: CheckoutRow) => {
    const found = await checkoutDeposit(deps, checkout);
    if (!found) throw new ApiError(404, 'Deposit not found');
    return found.row;
  };

  router.get('/checkout/api/checkouts/:id', async (c) => {
    const checkout = await loadCheckout(c.req.param('id'));
    const deposit = await checkoutDeposit(deps, checkout);
    c.header('Cache-Control', 'no-store');
    return send(c, 200, 'Checkout retrieved successfully', widgetCheckout(base(), checkout, deposit?.row, deps.now()));
  });

  const MethodBody = z.object({ method: z.string({ error: 'must be a string' }).min(1).max(32) });
  router.post('/checkout/api/checkouts/:id/deposit', async (c) => {
    const checkout = await loadCheckout(c.req.param('id'));
    const parsed = MethodBody.safeParse(await jsonBody(c));
    if (!parsed.success) throw new ApiError(400, describeZodError(parsed.error));
    const { created } = await chooseMethod(deps, checkout, parsed.data.method);
    const row = await widgetDepositOf(checkout);
    return send(c, created ? 201 : 200, 'Deposit created successfully', widgetDeposit(base(), checkout, row, deps.now()));
  });

  router.get('/checkout/api/checkouts/:id/deposit', async (c) => {
    const checkout = await loadCheckout(c.req.param('id'));
    const row = await widgetDepositOf(checkout);
    const etag = depositEtag(row);
    c.header('ETag', etag);
    c.header('Cache-Control', 'no-cache');
    const match = c.req.header('if-none-match');
    if (match && (match.trim() === '*' || match.split(',').map((t) => t.trim().replace(/^W\//, '')).includes(etag))) return c.body(null, 304);
    return send(c, 200, 'Deposit retrieved successfully', widgetDeposit(base(), checkout, row, deps.now()));
  });

  const move = (kind: Exclude<TransitionKind, 'expired'>, sandboxOnly: boolean) => async (c: Context) => {
    if (sandboxOnly && !deps.config.sandbox) throw new ApiError(403, 'Available in sandbox mode only');
    const checkout = await loadCheckout(c.req.param('id')!);
    await widgetDepositOf(checkout);
    try {
      await transitionDeposit(deps, checkout.id, kind);
    } catch (err) {
      if (err instanceof DepositNotFound) throw new ApiError(404, 'Deposit not found');
      if (err instanceof DepositNotPending) throw new ApiError(400, `Deposit is ${err.status}: only a pending deposit can change`);
      throw err;
    }
    return send(c, 200, 'Deposit updated successfully', widgetDeposit(base(), checkout, await widgetDepositOf(checkout), deps.now()));
  };
  router.post('/checkout/api/checkouts/:id/cancel', move('cancelled', false));
  router.post('/checkout/api/sandbox/checkouts/:id/pay', move('sandbox-completed', true));
  router.post('/checkout/api/sandbox/checkouts/:id/expire', move('sandbox-expired', true));

  return router;
}

/** A JSON body, {} when there is none; malformed JSON is a 400 envelope. */
async function jsonBody(c: Context): Promise<unknown> {
  const text = await c.req.text();
  if (!text.trim()) return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError(400, 'Malformed JSON in request body');
  }
}

