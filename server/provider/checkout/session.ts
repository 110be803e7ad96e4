// The hosted checkout's session API (DESIGN.md 3), public and keyed by the unguessable checkout id:
// GET /checkout/{id}/session lists the methods with the payable amount of each; POST /checkout/{id}/deposit chooses one.
import { createRoute, z } from '@hono/zod-openapi';
import { logoUrl } from '../catalog/logos.js';
import { checkoutDeposit, chooseMethod, offersFor, requireCheckout } from '../deposits/checkout.js';
import { DepositSchema } from '../deposits/schemas.js';
import { checkoutAmount, feesPaidBy } from '../deposits/widget-view.js';
import { createRouter } from '../http/errors.js';
import type { ProviderDeps } from '../http/env.js';
import { body, envelope, errorResponses, json } from '../http/openapi.js';
import { toNumber } from '../money.js';

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

/** The `data` of GET /checkout/{id}/session. */
export type CheckoutSession = z.infer<typeof SessionSchema>;

/** GET /checkout/{id}/session and POST /checkout/{id}/deposit, for mounting at the root. */
export function checkoutSessionRoutes(deps: ProviderDeps) {
  const router = createRouter();
  const base = () => deps.config.baseUrl;

  router.openapi(createRoute({
    method: 'get', path: '/checkout/{id}/session', tags: ['Hosted checkout'], summary: 'Checkout session: methods and payable amounts',
    request: { params: checkoutIdParam },
    responses: { 200: json(envelope(SessionSchema), 'The session'), ...errorResponses(404) },
  }), async (c) => {
    const checkout = await requireCheckout(deps, c.req.valid('param').id);
    const deposit = await checkoutDeposit(deps, checkout);
    return c.json({ statusCode: 200, message: 'Checkout session retrieved successfully', data: {
      id: checkout.id,
      inputCurrency: checkout.input_currency,
      inputAmount: checkout.input_amount === null ? null : toNumber(checkout.input_amount),
      outputCurrency: checkout.output_currency,
      outputAmount: checkout.output_amount === null ? null : toNumber(checkout.output_amount),
      orderAmount: checkoutAmount(checkout, deps.config.rates),
      feesPaidBy: feesPaidBy(checkout),
      expiresAt: checkout.expires_at,
      expired: checkout.expires_at <= deps.now().toISOString(),
      methods: offersFor(checkout, deps.config.rates).map(({ quote, shopperFee, available }) => ({
        depositPaymentType: quote.method.depositPaymentType, bankName: quote.method.bankName, bankCode: quote.method.code, name: quote.method.name,
        currency: quote.method.currency, minimumAmount: toNumber(quote.method.minimumAmount), maximumAmount: toNumber(quote.method.maximumAmount),
        image: logoUrl(base(), quote.method.logo), feeFlat: toNumber(quote.method.feeFlat), feePercentage: toNumber(quote.method.feePercentage),
        paymentAmount: toNumber(quote.inputAmount), fee: toNumber(quote.fee), shopperFee: toNumber(shopperFee),
        outputAmount: toNumber(quote.outputAmount), available,
      })),
      deposit: deposit?.view ?? null,
    } }, 200);
  });

  router.openapi(createRoute({
    method: 'post', path: '/checkout/{id}/deposit', tags: ['Hosted checkout'], summary: 'Choose a payment method: creates the deposit (depositId = checkout id)',
    request: { params: checkoutIdParam, body: body(z.object({ paymentMethod: z.string().min(1).max(32).openapi({ example: 'BCA_VA' }) })) },
    responses: {
      200: json(envelope(DepositSchema), 'The deposit chosen before'), 201: json(envelope(DepositSchema), 'The new deposit'), ...errorResponses(400, 404),
    },
  }), async (c) => {
    const checkout = await requireCheckout(deps, c.req.valid('param').id);
    const { view, created } = await chooseMethod(deps, checkout, c.req.valid('json').paymentMethod);
    return created
      ? c.json({ statusCode: 201, message: 'Deposit created successfully', data: view }, 201)
      : c.json({ statusCode: 200, message: 'Deposit retrieved successfully', data: view }, 200);
  });

  return router;
}
