// The hosted checkout's session API (docs/design.md, "Checkout"), public and keyed by the unguessable checkout id:
// GET /checkout/{id}/session lists the methods with the payable amount of each; POST /checkout/{id}/deposit chooses one.
import { z } from '@hono/zod-openapi';
import { checkoutDeposit, chooseMethod, requireCheckout } from '../deposits/checkout.js';
import { DepositSchema, ExchangeRateSchema, PaymentMethodSchema, WALLET_FIELDS } from '../deposits/schemas.js';
import { checkoutSession } from '../deposits/widget-view.js';
import { createRouter } from '../http/errors.js';
import type { ProviderDeps } from '../instance/deps.js';
import { body, envelope, errorResponses, json, operation, PUBLIC, TIMESTAMP } from '../openapi/operation.js';
import { maskedMobile } from '../../common/ewallet.js';
import type { DepositView } from '../deposits/view.js';
import { ApiError } from '../http/errors.js';
import { isHostedPage } from './widget-api.js';
import { createMiddleware } from 'hono/factory';
import { signatureAuth } from '../auth/signature.js';
import type { ProviderEnv } from '../http/env.js';

/**
 * A checkout's deposit as anyone holding the checkout id may see it (docs/security.md): what the widget API shows a
 * shopper, in the interface's shape. No row id, userId, payerInfo, notes, history or return page; a push e-wallet's
 * number masked (0812****5432). The signed routes answer the whole Deposit.
 */
const ShopperDepositSchema = DepositSchema.omit({
  id: true,
  userId: true,
  payerInfo: true,
  note: true,
  bankNote: true,
  reference: true,
  activityHistory: true,
})
  .extend({
    paymentFiat: DepositSchema.shape.paymentFiat.omit({ returnUrl: true }),
  })
  .openapi('ShopperDeposit');

/** The shopper's projection of a deposit (ShopperDepositSchema): only the fields it lists, the phone masked. */
function shopperDeposit(view: DepositView): z.infer<typeof ShopperDepositSchema> {
  const {
    id: _id,
    userId: _user,
    payerInfo: _payer,
    note: _note,
    bankNote: _bankNote,
    reference: _ref,
    ...rest
  } = view;
  const { activityHistory: _history, paymentFiat, ...shown } = rest as typeof rest & { activityHistory?: unknown };
  const { returnUrl: _back, ...fiat } = paymentFiat;
  return {
    ...shown,
    paymentFiat: fiat.mobileNumber ? { ...fiat, mobileNumber: maskedMobile(fiat.mobileNumber) } : fiat,
  };
}

/** The only page a wallet sends the shopper back to from the service's public routes: the checkout's hosted page. */
function hostedReturnUrl(baseUrl: string, checkoutId: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!URL.canParse(value) || !isHostedPage(baseUrl, checkoutId, new URL(value)))
    throw new ApiError(400, "returnUrl: only this checkout's own hosted page", 'Bad Request');
  return value;
}

// No length limit: an id of any length that is not a checkout's is simply not found (404).
const checkoutIdParam = z.object({
  id: z
    .string()
    .min(1)
    .openapi({ param: { name: 'id', in: 'path' } }),
});

const SessionCryptoSchema = z
  .object({
    symbol: z.string(),
    network: z.string(),
    networkName: z.string(),
    decimals: z.number().int().openapi({ description: "The token's decimal places (the reference list's `decimal`)" }),
    blockchainType: z.enum(['EVM', 'STELLAR']),
    chainId: z.number().int(),
    address: z.string().openapi({ description: 'Token contract (EVM) or issuer (Stellar); empty for a native coin' }),
  })
  .openapi('SessionCrypto', {
    description:
      'What a wallet payment request (docs/design.md, "Crypto") needs besides the deposit: the asset on its network',
  });

/** A method of the session: the service's PaymentMethod, with its name and what paying with it costs this checkout. */
const SessionMethodSchema = z.object({
  ...PaymentMethodSchema.shape,
  depositPaymentType: z
    .string()
    .openapi({ description: 'va, qris, ewallet, bank_transfer, or crypto (then bankCode is the crypto id)' }),
  name: z.string(),
  paymentAmount: z.number().openapi({
    description:
      'What the payer sends; for a crypto the exact token amount, rounded up in its decimals so that its conversion covers the order',
  }),
  fee: z.number(),
  shopperFee: z.number(),
  outputAmount: z.number(),
  available: z.boolean(),
  crypto: SessionCryptoSchema.optional(),
  exchangeRate: ExchangeRateSchema.optional(),
  flow: z
    .enum(['push', 'qr-or-app', 'redirect'])
    .optional()
    .openapi({ description: 'E-wallet: how the wallet takes the payment (docs/indonesian-payments.md)' }),
});
const SessionSchema = z
  .object({
    id: z.string(),
    inputCurrency: z.string(),
    inputAmount: z.number().nullable(),
    outputCurrency: z.string(),
    outputAmount: z.number().nullable(),
    orderAmount: z.string().openapi({
      description:
        "What the order costs in inputCurrency, as an exact decimal string (the hosted widget API's Checkout.amount): " +
        'inputAmount, or for a checkout created with outputAmount the input that converts to it before fees',
      example: '98880',
    }),
    feesPaidBy: z.enum(['merchant', 'shopper']),
    expiresAt: TIMESTAMP,
    expired: z.boolean(),
    methods: z
      .array(SessionMethodSchema)
      .openapi({ description: 'The fiat methods, then the cryptos that pair with inputCurrency' }),
    // A union, not .nullable(): that is written allOf[Deposit, {type: [object, null]}], which refuses null.
    deposit: z
      .union([ShopperDepositSchema, z.null()])
      .openapi({ description: 'The deposit once a method is chosen; null before' }),
  })
  .openapi('CheckoutSession');

/** The answer to a choice: the deposit, and what the choice did (a field, so no caller reads it from the message). */
const ChoiceSchema = envelope(ShopperDepositSchema)
  .extend({
    choice: z.enum(['created', 'unchanged', 'switched']).openapi({
      description:
        'created: the deposit is new (201); unchanged: it had this method already, nothing changed; switched: it was switched to this method',
    }),
  })
  .openapi('MethodChoice');

/** The `data` of GET /checkout/{id}/session. */
export type CheckoutSession = z.infer<typeof SessionSchema>;

/** GET /checkout/{id}/session and POST /checkout/{id}/deposit, for mounting at the root. */
export function checkoutSessionRoutes(deps: ProviderDeps) {
  const router = createRouter();
  const base = () => deps.config.baseUrl;
  // Public, but a merchant's backend may sign its call (the checkout's own merchant): then the page to come back to
  // may be the shop's, which the backend decided from its configuration.
  const signed = signatureAuth(deps);
  const signedIfSigned = createMiddleware<ProviderEnv>(async (c, next) =>
    c.req.header('x-client-id') ? signed(c, next) : next(),
  );

  router.openapi(
    operation({
      method: 'get',
      path: '/checkout/{id}/session',
      operationId: 'readCheckoutSession',
      tags: ['Hosted checkout'],
      security: PUBLIC,
      summary: 'Checkout session: methods and payable amounts',
      request: { params: checkoutIdParam },
      responses: { 200: json(envelope(SessionSchema), 'The session'), ...errorResponses(404) },
    }),
    async (c) => {
      const checkout = await requireCheckout(deps, c.req.valid('param').id);
      const deposit = await checkoutDeposit(deps, checkout);
      const session = checkoutSession(base(), checkout, deposit, deps.now(), deps.config.rates);
      const data = { ...session, deposit: session.deposit && shopperDeposit(session.deposit) };
      return c.json({ statusCode: 200, message: 'Checkout session retrieved successfully', data }, 200);
    },
  );

  router.openapi(
    operation({
      method: 'post',
      path: '/checkout/{id}/deposit',
      operationId: 'chooseCheckoutMethod',
      tags: ['Hosted checkout'],
      security: PUBLIC,
      summary: 'Choose a payment method: creates the deposit (depositId = checkout id)',
      description:
        'paymentMethod is a bankCode or a crypto id of the session. The same method again answers the same deposit (200); another one ' +
        'while the deposit is pending and the checkout open switches it (200: same depositId, new payment details, the old ones no longer ' +
        'payable, a history entry, no webhook). `choice` says which of the three happened. After completion, expiry or the 15 minutes: ' +
        '400. A bank transfer when every unique code of the shop is held by a pending transfer: 409 (choose another method).',
      // No length limit on paymentMethod: an unknown code of any length is the interface's "Payment method not found".
      middleware: [signedIfSigned] as const,
      request: {
        params: checkoutIdParam,
        body: body(z.object({ paymentMethod: z.string().min(1).openapi({ example: 'BCA_VA' }), ...WALLET_FIELDS })),
      },
      responses: {
        200: json(ChoiceSchema, 'The deposit chosen before, or switched to this method'),
        201: json(ChoiceSchema, 'The new deposit'),
        // 401: signature headers that do not verify (a merchant's signed call choosing its own return page).
        ...errorResponses(400, 401, 404, 409),
      },
    }),
    async (c) => {
      const checkout = await requireCheckout(deps, c.req.valid('param').id);
      const { paymentMethod, mobileNumber, returnUrl } = c.req.valid('json');
      const byMerchant = c.get('auth') === 'signature' && c.get('merchant').merchantId === checkout.merchant_id;
      const back = byMerchant ? returnUrl : hostedReturnUrl(base(), checkout.id, returnUrl);
      const choice = await chooseMethod(deps, checkout, paymentMethod, { mobileNumber, returnUrl: back });
      const view = shopperDeposit(choice.view);
      if (choice.choice === 'switched')
        return c.json({ statusCode: 200, message: 'Payment method changed', choice: choice.choice, data: view }, 200);
      return choice.choice === 'created'
        ? c.json({ statusCode: 201, message: 'Deposit created successfully', choice: choice.choice, data: view }, 201)
        : c.json({ statusCode: 200, message: 'Deposit payment method set', choice: choice.choice, data: view }, 200);
    },
  );

  return router;
}
