import { z, type OpenAPIHono } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { createMiddleware } from 'hono/factory';
import { PAYMENT_METHODS } from '../catalog/index.js';
import { logoUrl } from '../catalog/logos.js';
import { createCryptoDeposit, createFiatDeposit, listDeposits, ownerOf, readDeposit } from './service.js';
import { METHOD_KINDS } from './method-kinds.js';
import { DEPOSIT_WEBHOOKS, type DepositEventType } from '../webhooks/events.js';
import { createQuote } from './quotes.js';
import {
  ConvertEstimationSchema,
  CryptoDepositSchema,
  DepositSchema,
  depositWebhookSchema,
  FiatDepositSchema,
  ListQuerySchema,
  MessageSchema,
  PaymentMethodSchema,
  QuoteSchema,
  SandboxAttemptSchema,
  SandboxPaymentSchema,
  SandboxStatusSchema,
} from './schemas.js';
import type { DepositView } from './view.js';
import type { DepositOwner } from './payment-plan.js';
import { bearerAuth, bearerOrSignature } from '../auth/bearer.js';
import { idempotentWrites } from '../http/idempotency.js';
import { attemptOrAnswer, paymentOrAnswer, transitionOrAnswer } from './route-answers.js';
import type { ProviderDeps } from '../instance/deps.js';
import type { ProviderEnv } from '../http/env.js';
import { ApiError, createRouter } from '../http/errors.js';
import { jsonText, sendJsonText, type JsonText } from '../http/json-text.js';
import {
  BEARER,
  body,
  envelope,
  errorResponses,
  IDEMPOTENCY_PARAMETER,
  IDEMPOTENCY_RESPONSES,
  json,
  operation,
  pagination,
  PUBLIC,
  SIGNED,
} from '../openapi/operation.js';
import { signatureAuth } from '../auth/signature.js';
import { toNumber } from './money.js';

type DepositAnswer = { statusCode: 200; message: string; data: DepositView };

// No length limit: a depositId of any length that is no deposit's answers the route's not-found row.
const depositIdParam = z.object({
  depositId: z
    .string()
    .min(1)
    .openapi({ param: { name: 'depositId', in: 'path' } }),
});
/**
 * The sandbox status update shares its path with the read (GET /v1/deposit/{depositIdOrReference}), and OpenAPI gives
 * one path one parameter name; the update looks up the depositId only.
 */
const sharedDepositIdParam = z.object({
  depositIdOrReference: z
    .string()
    .min(1)
    .openapi({
      param: {
        name: 'depositIdOrReference',
        in: 'path',
        description: 'The depositId (this operation takes no reference)',
      },
    }),
});

type DepositRouter = ReturnType<typeof createRouter>;

/** How a route's caller proves who it is, and the Idempotency-Key on the writes that take one; made once per router. */
interface RouteGuards {
  signed: ReturnType<typeof signatureAuth>;
  bearer: ReturnType<typeof bearerAuth>;
  /** A bearer token or a signature. */
  either: ReturnType<typeof bearerOrSignature>;
  idempotent: ReturnType<typeof idempotentWrites>;
  /** Refuses `what` with a 403 outside sandbox mode. */
  sandboxOnly: (what: string) => MiddlewareHandler<ProviderEnv>;
}

/**
 * The deposit endpoints under /v1/deposit: deposits (list, read, create fiat and crypto, cancel, sandbox status update)
 * and payment methods, registered in this order (the fixed paths before /v1/deposit/{depositIdOrReference}).
 */
export function depositsRoutes(deps: ProviderDeps) {
  const router = createRouter();
  const signed = signatureAuth(deps);
  const guards: RouteGuards = {
    signed,
    bearer: bearerAuth(deps),
    either: bearerOrSignature(deps, signed),
    idempotent: idempotentWrites(deps),
    sandboxOnly: (what) =>
      createMiddleware<ProviderEnv>(async (_c, next) => {
        if (!deps.config.sandbox) throw new ApiError(403, `${what} is available in sandbox mode only`);
        await next();
      }),
  };
  listingRoutes(router, deps, guards);
  readRoute(router, deps, guards);
  createRoutes(router, deps, guards);
  cancelRoute(router, deps, guards);
  sandboxRoutes(router, deps, guards);
  return router;
}

/**
 * GET /v1/deposit (a page of deposits), GET /v1/deposit/payment-method and POST /v1/deposit/convert-estimation:
 * registered before /v1/deposit/{depositIdOrReference} so that "payment-method" is not taken for an id (the POST
 * too: one table of paths).
 */
function listingRoutes(router: DepositRouter, deps: ProviderDeps, { signed, bearer, either }: RouteGuards) {
  router.openapi(
    operation({
      method: 'get',
      path: '/v1/deposit',
      operationId: 'listDeposits',
      tags: ['Deposits'],
      summary: 'List deposits',
      security: SIGNED,
      middleware: [signed] as const,
      request: { query: ListQuerySchema },
      responses: {
        200: json(
          envelope(
            pagination(DepositSchema).extend({
              nextCursor: z.string().nullable().optional().openapi({
                description:
                  'Only when the request sent cursor: send it as cursor for the next page (null on the last)',
              }),
            }),
          ),
          'A page of deposits',
        ),
        ...errorResponses(400, 401),
      },
    }),
    async (c) => {
      const q = c.req.valid('query');
      const page = await listDeposits(deps, c.get('merchant').merchantId, {
        limit: q.limit ?? 10,
        page: q.page ?? 1,
        sort: q.sort ?? 'createdAt',
        status: q.status,
        depositType: q.depositType,
        cursor: q.cursor,
      });
      return c.json({ statusCode: 200, message: 'Deposits retrieved successfully', data: page }, 200);
    },
  );

  router.openapi(
    operation({
      method: 'get',
      path: '/v1/deposit/payment-method',
      operationId: 'listPaymentMethods',
      tags: ['Deposits'],
      summary: 'Fiat payment methods',
      security: BEARER,
      middleware: [bearer] as const,
      request: { query: z.object({ currency: z.string().min(1).max(16).optional().openapi({ example: 'IDR' }) }) },
      responses: { 200: json(envelope(z.array(PaymentMethodSchema)), 'Payment methods'), ...errorResponses(400, 401) },
    }),
    (c) => {
      const { currency } = c.req.valid('query');
      const base = deps.config.baseUrl;
      const methods = PAYMENT_METHODS.filter((m) => !currency || m.currency === currency.toUpperCase()).map((m) => ({
        depositPaymentType: METHOD_KINDS[m.kind].depositPaymentType,
        bankName: m.bankName,
        bankCode: m.code,
        currency: m.currency,
        minimumAmount: toNumber(m.minimumAmount),
        maximumAmount: toNumber(m.maximumAmount),
        image: logoUrl(base, m.logo),
        feeFlat: toNumber(m.feeFlat),
        feePercentage: toNumber(m.feePercentage),
      }));
      return c.json({ statusCode: 200, message: 'Payment methods retrieved successfully', data: methods }, 200);
    },
  );

  router.openapi(
    operation({
      method: 'post',
      path: '/v1/deposit/convert-estimation',
      operationId: 'estimateConversion',
      tags: ['Deposits'],
      summary: 'Estimate a conversion and hold it as a quote (60 s)',
      description:
        'Send exactly one of inputAmount and outputAmount; with paymentMethod (a bankCode) its fee is included. A fiat or crypto deposit ' +
        'created with the quoteId, the same currencies and the same amount gets exactly the quoted rate and amounts (a quote without ' +
        "paymentMethod pins the rate; the deposit's method then adds its fee). A quote is used once. Errors: 400 Quote not found, " +
        'Quote expired, Quote already used, Quote does not match the deposit.',
      security: [...BEARER, ...SIGNED],
      middleware: [either] as const,
      request: { body: body(ConvertEstimationSchema) },
      responses: { 200: json(envelope(QuoteSchema), 'The quote'), ...errorResponses(400, 401) },
    }),
    async (c) => {
      const quote = await createQuote(deps, c.get('merchant').merchantId, c.req.valid('json'));
      return c.json({ statusCode: 200, message: 'Conversion estimated successfully', data: quote }, 200);
    },
  );
}

/** GET /v1/deposit/{depositIdOrReference}: the hot read, polled by merchant backends. */
function readRoute(router: DepositRouter, deps: ProviderDeps, { signed }: RouteGuards) {
  // Serialised answers of cached views: a polled deposit is stringified once per cache lifetime, not per read.
  const serialized = new WeakMap<DepositView, JsonText<DepositAnswer>>();
  router.openapi(
    operation({
      method: 'get',
      path: '/v1/deposit/{depositIdOrReference}',
      operationId: 'readDeposit',
      tags: ['Deposits'],
      summary: 'Read a deposit by depositId or reference',
      security: SIGNED,
      middleware: [signed] as const,
      // The path parameter is documented here but checked in the handler: the generic validator reads the
      // Content-Type header, a cost this hottest route does without.
      parameters: [
        {
          name: 'depositIdOrReference',
          in: 'path',
          required: true,
          schema: { type: 'string', minLength: 1 },
          description: 'The depositId, or the reference the deposit was created with',
        },
      ],
      responses: { 200: json(envelope(DepositSchema), 'The deposit'), ...errorResponses(401, 404) },
    }),
    async (c) => {
      const idOrReference = c.req.param('depositIdOrReference');
      // No id or reference is longer than 128 characters: a longer one is simply not found (the interface's row).
      const view =
        idOrReference.length > 128 ? undefined : await readDeposit(deps, c.get('merchant').merchantId, idOrReference);
      if (!view) throw new ApiError(404, 'Deposit not found');
      let text = serialized.get(view);
      if (!text) {
        text = jsonText<DepositAnswer>({ statusCode: 200, message: 'Deposit retrieved successfully', data: view });
        serialized.set(view, text);
      }
      return sendJsonText(c, text, 200);
    },
  );
}

/** POST /v1/deposit/fiat and /v1/deposit/crypto, each idempotent under its Idempotency-Key. */
function createRoutes(router: DepositRouter, deps: ProviderDeps, guards: RouteGuards) {
  createRoute(router, deps, guards, 'fiat', FiatDepositSchema, createFiatDeposit);
  createRoute(router, deps, guards, 'crypto', CryptoDepositSchema, createCryptoDeposit);
}

/** One kind's create route: the two differ in their body's schema and what makes the deposit, nothing else. */
function createRoute<Body extends typeof FiatDepositSchema | typeof CryptoDepositSchema>(
  router: DepositRouter,
  deps: ProviderDeps,
  { bearer, idempotent }: RouteGuards,
  kind: 'fiat' | 'crypto',
  schema: Body,
  create: (deps: ProviderDeps, owner: DepositOwner, req: z.infer<Body>) => Promise<DepositView>,
) {
  router.openapi(
    operation({
      method: 'post',
      path: `/v1/deposit/${kind}`,
      operationId: kind === 'fiat' ? 'createFiatDeposit' : 'createCryptoDeposit',
      tags: ['Deposits'],
      summary: `Create a ${kind} deposit`,
      security: BEARER,
      middleware: [bearer, idempotent] as const,
      request: { body: body(schema) },
      parameters: [IDEMPOTENCY_PARAMETER],
      responses: {
        201: json(envelope(DepositSchema), 'The pending deposit'),
        ...errorResponses(400, 401),
        ...IDEMPOTENCY_RESPONSES,
      },
    }),
    async (c) => {
      // The body was validated against `schema`; Hono's types lose which one through the generic.
      const view = await create(deps, ownerOf(c.get('merchant')), c.req.valid('json') as z.infer<Body>);
      return c.json({ statusCode: 201, message: 'Deposit created successfully', data: view }, 201);
    },
  );
}

/** PATCH /v1/deposit/{depositId}/cancel: a pending deposit becomes expired. */
function cancelRoute(router: DepositRouter, deps: ProviderDeps, { bearer }: RouteGuards) {
  router.openapi(
    operation({
      method: 'patch',
      path: '/v1/deposit/{depositId}/cancel',
      operationId: 'cancelDeposit',
      tags: ['Deposits'],
      summary: 'Cancel a pending deposit (it becomes expired)',
      security: BEARER,
      middleware: [bearer] as const,
      request: { params: depositIdParam },
      responses: { 200: json(MessageSchema, 'Cancelled'), ...errorResponses(400, 401, 404) },
    }),
    async (c) => {
      await transitionOrAnswer(
        deps,
        c.req.valid('param').depositId,
        'cancelled',
        {
          notFound: { status: 404 },
          notPending: (status) => `Deposit is ${status}: only pending deposits can be cancelled`,
        },
        c.get('merchant').merchantId,
      );
      return c.json({ statusCode: 200, message: 'Deposit cancelled successfully' }, 200);
    },
  );
}

/**
 * The sandbox's own: PATCH /v1/deposit/{depositIdOrReference} (set a status), POST /v1/deposit/{depositId}/payments (a
 * payment arrives) and POST /v1/deposit/{depositId}/attempts (an attempt fails); 403 outside sandbox mode.
 */
function sandboxRoutes(router: DepositRouter, deps: ProviderDeps, { either, sandboxOnly, idempotent }: RouteGuards) {
  router.openapi(
    operation({
      method: 'patch',
      path: '/v1/deposit/{depositIdOrReference}',
      operationId: 'setSandboxDepositStatus',
      tags: ['Deposits'],
      summary: 'Sandbox: set a deposit status',
      description:
        'Sandbox only. Moves a pending deposit to completed (a payment of exactly what is still due) or expired and sends the deposit webhook.',
      security: [...BEARER, ...SIGNED],
      middleware: [either, sandboxOnly('The deposit status update')] as const,
      request: { params: sharedDepositIdParam, body: body(SandboxStatusSchema) },
      responses: { 200: json(envelope(DepositSchema), 'The updated deposit'), ...errorResponses(400, 401, 403) },
    }),
    async (c) => {
      const { status } = c.req.valid('json');
      const { depositIdOrReference: depositId } = c.req.valid('param');
      const merchantId = c.get('merchant').merchantId;
      const wording = {
        notFound: { status: 400 as const, label: 'Bad Request' },
        notPending: (current: string) => `status: deposit is ${current}; only a pending deposit can move to ${status}`,
      };
      const view =
        status === 'completed'
          ? await paymentOrAnswer(
              deps,
              depositId,
              { merchantId, pendingOnly: true, completedDescription: 'Completed by the sandbox status update' },
              wording,
            )
          : await transitionOrAnswer(deps, depositId, 'sandbox-expired', wording, merchantId);
      return c.json({ statusCode: 200, message: 'Deposit updated successfully', data: view }, 200);
    },
  );

  router.openapi(
    operation({
      method: 'post',
      path: '/v1/deposit/{depositId}/payments',
      operationId: 'recordSandboxPayment',
      tags: ['Deposits'],
      summary: 'Sandbox: a payment arrives',
      description:
        "Sandbox only (docs/money.md). A payment of `amount` in `currency` arrives to `method` (default: the deposit's current method and " +
        'inputCurrency, and what that method asks for the rest). A method the deposit had before a switch is money still arriving to its old ' +
        'details: recorded as it arrived, worth what that method was priced at; a method or currency the deposit never had: 400 Payment does ' +
        "not match the deposit; an amount above its currency's maximum: 400 naming amount. " +
        'Pending: it completes the deposit once what arrived is worth the order less the underpayment tolerance (history "Overpaid" beyond ' +
        'it; webhook deposit.completed), else it is a partial payment (history "Partial payment received"; webhook deposit.partially_paid). ' +
        'Expired or cancelled: recorded with late: true, the status stays expired (history "Payment received after expiry"; webhook ' +
        'deposit.paid_late). Virtual account, QRIS and e-wallet take only the exact amount they ask (400 Amount must equal the amount due): ' +
        'the current one what the order still lacks, an old one the amount it was shown with; bank transfer and crypto take any. ' +
        'A completed deposit takes no payment (400). Unknown id: 400 Deposit not found.',
      security: [...BEARER, ...SIGNED],
      middleware: [either, sandboxOnly('The sandbox payment'), idempotent] as const,
      request: { params: depositIdParam, body: { ...body(SandboxPaymentSchema), required: false } },
      parameters: [IDEMPOTENCY_PARAMETER],
      responses: {
        200: json(envelope(DepositSchema), 'The updated deposit'),
        ...errorResponses(400, 401, 403),
        ...IDEMPOTENCY_RESPONSES,
      },
    }),
    async (c) => {
      const { amount, currency, method } = c.req.valid('json') ?? {};
      const view = await paymentOrAnswer(
        deps,
        c.req.valid('param').depositId,
        { amount, currency, method, merchantId: c.get('merchant').merchantId },
        {
          notFound: { status: 400, label: 'Bad Request' },
          notPending: (current) => `Deposit is ${current}: it takes no more payments`,
        },
      );
      return c.json({ statusCode: 200, message: 'Payment recorded successfully', data: view }, 200);
    },
  );

  router.openapi(
    operation({
      method: 'post',
      path: '/v1/deposit/{depositId}/attempts',
      operationId: 'recordSandboxFailedAttempt',
      tags: ['Deposits'],
      summary: 'Sandbox: an attempt to pay fails',
      description:
        'Sandbox only (docs/indonesian-payments.md). An attempt to pay a pending deposit fails: declined, insufficient_balance, or ' +
        'timeout (a wallet push not approved in time). The deposit stays pending; history "Payment failed" with the reason; lastFailure on ' +
        'the Deposit; webhook deposit.payment_failed. A deposit that is not pending: 400. Unknown id: 400 Deposit not found.',
      security: [...BEARER, ...SIGNED],
      middleware: [either, sandboxOnly('The sandbox failed attempt')] as const,
      request: { params: depositIdParam, body: body(SandboxAttemptSchema) },
      responses: { 200: json(envelope(DepositSchema), 'The deposit, still pending'), ...errorResponses(400, 401, 403) },
    }),
    async (c) => {
      const { outcome } = c.req.valid('json');
      const view = await attemptOrAnswer(
        deps,
        c.req.valid('param').depositId,
        { reason: outcome, merchantId: c.get('merchant').merchantId },
        {
          notFound: { status: 400, label: 'Bad Request' },
          notPending: (current) => `Deposit is ${current}: only a pending deposit can be attempted`,
        },
      );
      return c.json({ statusCode: 200, message: 'Failed attempt recorded', data: view }, 200);
    },
  );
}

/**
 * The deposit webhooks under the document's `webhooks` (OpenAPI 3.1): what the service POSTs to a merchant's URL.
 * Registered on the app's own registry: a sub-router's would be merged with a path prefix ("/deposit.completed").
 */
export function registerDepositWebhooks(registry: OpenAPIHono['openAPIRegistry']) {
  const headers = z.object({
    'webhook-id': z.string().openapi({ description: 'Unique per message (the same on every retry): dedupe on it' }),
    'webhook-timestamp': z.string().openapi({ description: 'Unix seconds' }),
    'webhook-signature': z.string().openapi({
      description: 'v1,<base64 HMAC-SHA256 with the webhook secret of "id.timestamp.body"> (Standard Webhooks)',
    }),
  });
  for (const [type, { when }] of Object.entries(DEPOSIT_WEBHOOKS) as Array<
    [DepositEventType, (typeof DEPOSIT_WEBHOOKS)[DepositEventType]]
  >) {
    registry.registerWebhook({
      // deposit.paid_late -> depositPaidLate
      operationId: type.replace(/[._](\w)/g, (_, letter: string) => letter.toUpperCase()),
      method: 'post',
      path: type,
      tags: ['Webhooks'],
      summary: when,
      security: PUBLIC, // signed with the webhook secret: the webhook-* headers below
      description:
        'Sent from an outbox written with the change; retried after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h until a 2xx. ' +
        'A method switch in checkout sends none.',
      request: { headers, body: body(depositWebhookSchema(type)) },
      responses: { 200: { description: 'Any 2xx acknowledges the delivery' } },
    });
  }
}
