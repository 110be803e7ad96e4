// zod schemas shared by the deposit, checkout and reference routes: they validate requests and, through
// @hono/zod-openapi, generate the OpenAPI document, so the two cannot drift apart.
import { z } from '@hono/zod-openapi';
import { FEE_KINDS } from '../../common/fee-policy.js';
import { TIMESTAMP } from '../openapi/operation.js';
import { DEPOSIT_WEBHOOKS, type DepositEventType } from '../webhooks/events.js';

/**
 * An amount: a positive JSON number. Its currency's rules are checked in pricing.ts (requestAmount), with a 400 naming
 * the field: at most the currency's places (a crypto's min(decimal, 8)) and at most its maximum, never rounded.
 */
const positive = () =>
  z.number({ error: 'must be a number' }).positive({ error: 'must be positive' }).openapi({
    description:
      "At most the currency's decimal places (a crypto: min(decimal, 8)) and at most its maximum; never rounded",
  });

const ActivitySchema = z
  .object({
    activity: z.string(),
    status: z.string(),
    description: z.string(),
    updatedAt: TIMESTAMP,
    _id: z.string(),
  })
  .openapi('DepositActivity');

/** The rate a converted payment is priced at: 1 `from` = `rate` `to`, as exact decimal text. */
export const ExchangeRateSchema = z
  .object({ from: z.string(), to: z.string(), rate: z.string().openapi({ example: '16495' }) })
  .openapi('ExchangeRate');

const PaymentSchema = z
  .object({
    amount: z.number().openapi({ description: 'What arrived, in `currency`' }),
    currency: z
      .string()
      .openapi({ description: 'The currency it arrived in: that of the payment details it was sent to' }),
    method: z.string().openapi({
      description:
        'The method it was paid to: a bankCode, or a crypto id (the current one, or one the deposit had before a switch)',
    }),
    value: z.number().openapi({
      description:
        "What it is worth toward the order, in the Deposit's orderCurrency: its amount in that currency, else at the price its method had",
    }),
    receivedAt: TIMESTAMP,
    late: z
      .boolean()
      .openapi({ description: 'Arrived after the deposit expired or was cancelled: the merchant owes a refund' }),
  })
  .openapi('DepositPayment');

export const DepositSchema = z
  .object({
    id: z.string(),
    depositId: z.string(),
    depositType: z.enum(['fiat', 'crypto']),
    userId: z.string(),
    inputCurrency: z.string(),
    inputAmount: z.number(),
    outputCurrency: z.string(),
    exchangeRate: z.number(),
    outputAmount: z.number(),
    fee: z.object({ amount: z.number(), percentage: z.number(), currency: z.string() }),
    paymentFiat: z.object({
      bankName: z.string().optional(),
      bankCode: z.string().optional(),
      accountName: z.string().optional(),
      accountNumber: z.string().optional(),
      qrData: z.string().optional(),
      checkoutUrl: z.string().optional(),
      uniqueCode: z.string().optional().openapi({
        description:
          'Bank transfer: the code (1 to 999, smallest currency unit) inputAmount was raised by to tell this transfer apart',
      }),
      flow: z.enum(['push', 'qr-or-app', 'redirect']).optional().openapi({
        description:
          "E-wallet: push (a request to the shopper's phone, approved in the app within 60 s), qr-or-app (qrData and checkoutUrl: the same payment), redirect (checkoutUrl, back to returnUrl)",
      }),
      mobileNumber: z
        .string()
        .optional()
        .openapi({ description: 'Push e-wallet: the number the request went to (E.164)' }),
      pushExpiresAt: TIMESTAMP.optional().openapi({
        description:
          'Push e-wallet: when the request awaiting approval times out (a failed attempt: timeout); absent once it ended',
      }),
      returnUrl: z
        .string()
        .optional()
        .openapi({ description: "Redirect e-wallet: where the wallet's page sends the shopper back" }),
      billerCode: z.string().optional().openapi({
        description: 'Mandiri VA (a bill payment, Multipayment): the biller (company) code',
        example: '88608',
      }),
      billKey: z
        .string()
        .optional()
        .openapi({ description: 'Mandiri VA: the bill key (the account number after the biller code)' }),
    }),
    paymentCrypto: z.object({
      payoutWallet: z.string().optional(),
      network: z.string().optional(),
      memo: z.string().optional().openapi({
        description:
          'Stellar: the memo the payment must carry (one account per merchant, a memo per deposit); wallets refuse to pay without it',
      }),
      memoType: z
        .enum(['id', 'text'])
        .optional()
        .openapi({ description: 'Stellar: id (MEMO_ID, an unsigned 64-bit integer) or text (MEMO_TEXT)' }),
    }),
    status: z.enum(['pending', 'expired', 'completed']),
    activityHistory: z.array(ActivitySchema),
    reference: z.string(),
    note: z.string(),
    bankNote: z.string(),
    paidAmount: z.number().openapi({
      description:
        'What arrived so far, in inputCurrency: the exact sum of the payments in it, plus the current price of what the others are worth; 0 before any payment',
    }),
    remainingAmount: z.number().openapi({
      description:
        "What is still due, in inputCurrency: the current method's price of what the order still lacks, rounded up; never below 0 (0 once completed)",
    }),
    overpaidAmount: z.number().openapi({ description: 'What arrived beyond the order, in inputCurrency; 0 otherwise' }),
    paidValue: z
      .number()
      .openapi({ description: 'What arrived so far, in orderCurrency (each payment at its own price)' }),
    remainingValue: z
      .number()
      .openapi({ description: 'What the order still lacks, in orderCurrency; never below 0 (0 once completed)' }),
    overpaidValue: z.number().openapi({ description: 'What arrived beyond the order, in orderCurrency; 0 otherwise' }),
    orderCurrency: z.string().openapi({
      description:
        "The order's currency: a checkout deposit's checkout currency, else the deposit's own inputCurrency at creation",
    }),
    payments: z.array(PaymentSchema).openapi({
      description:
        'Every payment that arrived, oldest first (after a method switch, in the currency of the method it was paid with)',
    }),
    lastFailure: z
      .object({
        reason: z.enum(['declined', 'insufficient_balance', 'timeout']),
        failedAt: TIMESTAMP,
      })
      .optional()
      .openapi({
        description:
          'The last failed attempt to pay (the deposit stays pending), while nothing happened to the deposit since',
      }),
    exchangeInfo: z
      .object({ exchangeRate: z.number(), outputCurrency: z.string(), outputAmount: z.number() })
      .optional(),
    isReconciled: z.boolean().optional(),
    payerInfo: z
      .object({
        transactionCode: z.string(),
        name: z.string(),
        bankName: z.string(),
        accountNumber: z.string(),
        mid: z.string(),
      })
      .optional()
      .openapi({ description: 'Detail response only, once there is a payer to show (a completed deposit)' }),
    expiredAt: TIMESTAMP,
    createdAt: TIMESTAMP,
    updatedAt: TIMESTAMP,
    version: z
      .number()
      .int()
      .openapi({
        description:
          'Grows by one with each committed change of the deposit (method switch, payment, expiry, cancel, completion): ' +
          'of two copies of one deposit, the higher version is the newer, whatever their updatedAt',
        example: 1,
      }),
  })
  .openapi('Deposit');

export const MessageSchema = z.object({ statusCode: z.number().int(), message: z.string() });

export const ListQuerySchema = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(100)
    .optional()
    .openapi({ description: 'Page size: 10 by default, 100 at most', example: 10 }),
  page: z.coerce.number().int().min(1).optional().openapi({ example: 1 }),
  sort: z
    .enum(['createdAt', '-createdAt', 'updatedAt', '-updatedAt'])
    .optional()
    .openapi({ description: 'createdAt (default) or updatedAt; prefix - for descending' }),
  status: z.enum(['pending', 'expired', 'completed']).optional(),
  depositType: z.enum(['fiat', 'crypto']).optional(),
  cursor: z
    .string()
    .min(1)
    .max(512)
    .optional()
    .openapi({
      description:
        "Beside page (an extension: without it the envelope is exactly the interface's): `start` for the first page, then the " +
        'nextCursor of the page before, with the same sort, status and depositType. It answers the page after that one (the envelope says which ' +
        'page it is) and costs the same at any depth, where a deep page number skips the index entries before it. page is ignored with it; the ' +
        'envelope then carries nextCursor.',
    }),
});

/** What an e-wallet's flow needs (docs/indonesian-payments.md), checked with the method (a 400 naming the field). */
export const WALLET_FIELDS = {
  mobileNumber: z.string().max(32).optional().openapi({
    description: "A push e-wallet (OVO): the shopper's mobile number (08..., 628... or +628...); required for one",
    example: '081234567890',
  }),
  returnUrl: z.string().max(2048).optional().openapi({
    description: 'A redirect e-wallet (DANA, LinkAja): the http(s) page its page sends the shopper back to',
  }),
};

export const FiatDepositSchema = z
  .object({
    inputCurrency: z.string().min(1).max(16).openapi({ example: 'IDR' }),
    inputAmount: positive().optional().openapi({ example: 150000 }),
    outputCurrency: z.string().min(1).max(32).openapi({ example: 'IDR' }),
    outputAmount: z.object({ fiat: positive().optional(), crypto: positive().optional() }).optional(),
    balanceType: z.string().min(1).max(32).openapi({ example: 'fiat' }),
    // No length limit: an unknown method of any length is the interface's "Payment method not found" (looked up first).
    paymentMethod: z.string().min(1).openapi({ example: 'BCA_VA' }),
    reference: z.string().min(1).max(128).optional(),
    note: z.string().max(500).optional(),
    quoteId: z
      .string()
      .min(1)
      .optional()
      .openapi({ description: 'From POST /v1/deposit/convert-estimation: the deposit gets its rate and amounts' }),
    ...WALLET_FIELDS,
  })
  .openapi('FiatDepositRequest');

export const CryptoDepositSchema = z
  .object({
    // No length limit: an unknown crypto of any length is the interface's "Crypto not found" (looked up first).
    inputCurrency: z.string().min(1).openapi({ example: 'USDC-POLYGON' }),
    inputAmount: positive().openapi({ example: 25.5 }),
    outputCurrency: z.string().min(1).max(32).optional(),
    reference: z.string().min(1).max(128).optional(),
    note: z.string().max(500).optional(),
    quoteId: z
      .string()
      .min(1)
      .optional()
      .openapi({ description: 'From POST /v1/deposit/convert-estimation: the deposit gets its rate and amounts' }),
  })
  .openapi('CryptoDepositRequest');

export const SandboxStatusSchema = z
  .object({
    status: z.enum(['completed', 'expired']).openapi({ description: 'pending deposits move to completed or expired' }),
  })
  .openapi('SandboxStatusUpdate');

export const SandboxAttemptSchema = z
  .object({
    outcome: z.enum(['declined', 'insufficient_balance', 'timeout']).openapi({ description: 'Why the attempt failed' }),
  })
  .openapi('SandboxAttempt');

export const SandboxPaymentSchema = z
  .object({
    amount: z
      .union([positive(), z.string().regex(/^\d{1,20}(\.\d{1,18})?$/, { error: 'must be a positive decimal' })])
      .optional()
      .openapi({
        description:
          "What arrives, in the payment's currency (a number, or decimal text to carry every digit), at most that currency's maximum; default what its method asks for the rest",
        example: 60000,
      }),
    currency: z.string().min(1).max(32).optional().openapi({
      description:
        "The currency that arrives: the deposit's current inputCurrency (default) or that of a method it had before a switch",
      example: 'IDR',
    }),
    method: z.string().min(1).max(64).optional().openapi({
      description:
        'The bankCode or crypto id it was sent to: the current one (default) or one the deposit had before a switch (money to its old details)',
      example: 'BCA_TRANSFER',
    }),
  })
  .openapi('SandboxPayment');

const FEES_PAID_BY = z.enum(['merchant', 'shopper']);

export const CheckoutRequestSchema = z
  .object({
    inputCurrency: z.string().min(1).max(16).openapi({ example: 'IDR' }),
    inputAmount: positive().optional().openapi({ example: 150000 }),
    outputAmount: positive().optional(),
    outputCurrency: z.string().min(1).max(32).optional(),
    feesPaidBy: z
      .union([
        FEES_PAID_BY,
        // One optional entry per fiat kind (FEE_KINDS: va, bank, qris, ewallet).
        z.strictObject(
          Object.fromEntries(FEE_KINDS.map((kind) => [kind, FEES_PAID_BY.optional()])) as Record<
            (typeof FEE_KINDS)[number],
            z.ZodOptional<typeof FEES_PAID_BY>
          >,
        ),
      ])
      .optional()
      .openapi({
        description:
          'Who bears the method fee, for every kind or per kind (va, bank, qris, ewallet); a kind left out: the merchant with inputAmount, ' +
          'the shopper with outputAmount. QRIS is never surcharged (Bank Indonesia: the MDR is borne by the merchant): qris "shopper" is refused (400).',
        example: { va: 'shopper', ewallet: 'shopper', qris: 'merchant' },
      }),
  })
  .openapi('CheckoutRequest');

export const ConvertEstimationSchema = z
  .object({
    inputCurrency: z.string().min(1).max(32).openapi({ example: 'IDR' }),
    outputCurrency: z.string().min(1).max(32).openapi({ example: 'USDC-POLYGON' }),
    inputAmount: positive().optional().openapi({ example: 150000 }),
    outputAmount: positive().optional(),
    paymentMethod: z
      .string()
      .min(1)
      .optional()
      .openapi({ description: 'A bankCode: its fee is then included', example: 'BCA_VA' }),
  })
  .openapi('ConvertEstimationRequest');

export const QuoteSchema = z
  .object({
    quoteId: z.string(),
    inputCurrency: z.string(),
    inputAmount: z.number(),
    outputCurrency: z.string(),
    outputAmount: z.number(),
    exchangeRate: z.number(),
    fee: z.number().openapi({ description: "In inputCurrency: the payment method's fee, 0 without one" }),
    expiredAt: TIMESTAMP.openapi({ description: 'The quote holds until then (60 s)' }),
  })
  .openapi('Quote');

export const PaymentMethodSchema = z
  .object({
    depositPaymentType: z.string().openapi({ description: 'va, qris, ewallet or bank_transfer' }),
    bankName: z.string(),
    bankCode: z.string(),
    currency: z.string(),
    minimumAmount: z.number(),
    maximumAmount: z.number(),
    image: z.string(),
    feeFlat: z.number(),
    feePercentage: z.number(),
  })
  .openapi('PaymentMethod');

/**
 * The body of a deposit webhook (docs/design.md, "Webhooks"): orderId = depositId (= the checkout id for checkout
 * deposits).
 */
export const depositWebhookSchema = (type: DepositEventType) =>
  z
    .object({
      type: z.literal(type),
      orderId: z.string(),
      depositId: z.string(),
      reference: z.string(),
      status: z.literal(DEPOSIT_WEBHOOKS[type].status),
      data: DepositSchema,
      timestamp: TIMESTAMP,
    })
    .openapi(DEPOSIT_WEBHOOKS[type].name);
