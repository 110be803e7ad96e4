// How a deposit is to be paid and priced, planned before its write: the price (from its quote when it names one),
// then, inside the write's transaction, the payment details drawn for it (a VA number, a bank transfer's unique code).
// Creation (create.ts) and a method switch (switch-method.ts) write a plan the same way.
import type { Transaction } from 'kysely';
import { mobileNumber, returnUrl } from '../../common/ewallet.js';
import { placesOf, type PaymentMethodDef } from '../catalog/index.js';
import type { Database } from '../db/database.js';
import type { NewDeposit } from '../db/deposit-tables.js';
import type { AuthenticatedMerchant, ProviderDeps } from '../instance/deps.js';
import { money, toText } from './money.js';
import { cryptoPaymentDetails } from './payment-details.js';
import { fiatPaymentDetails, type MethodKind } from './method-kinds.js';
import {
  feeOf,
  outputOf,
  priceCryptoDeposit,
  priceFiatDeposit,
  type CryptoPricingRequest,
  type FiatPricingRequest,
} from './pricing.js';
import { claimQuote, usableQuote } from './quotes.js';
import {
  freeUniqueCode,
  insertUniqueCode,
  organizationName,
  releaseUniqueCode,
  uniqueViolation,
} from './repository.js';

/** Who a deposit belongs to. */
export interface DepositOwner {
  merchantId: string;
  userId: string;
  organizationId: string;
}

export function ownerOf(merchant: AuthenticatedMerchant): DepositOwner {
  return { merchantId: merchant.merchantId, userId: merchant.userId, organizationId: merchant.organizationId };
}

/** POST /v1/deposit/fiat (and the hosted checkout's choice of a method). */
export interface FiatDepositRequest extends FiatPricingRequest {
  balanceType: string;
  reference?: string;
  note?: string;
  quoteId?: string;
  /** A push e-wallet (OVO): the shopper's mobile number the request goes to (docs/indonesian-payments.md). */
  mobileNumber?: string;
  /** A redirect e-wallet (DANA, LinkAja): where its page sends the shopper back. */
  returnUrl?: string;
}

/** POST /v1/deposit/crypto. */
export interface CryptoDepositRequest extends CryptoPricingRequest {
  reference?: string;
  note?: string;
  quoteId?: string;
}

export interface CreateOptions {
  depositId?: string;
  checkoutId?: string;
  exchangeInfo?: boolean;
  /** A checkout deposit's order (docs/money.md): its currency, and in another currency than the method's, what the method's price covers. */
  order?: { currency: string; value?: string };
}

/**
 * The ledger's columns of a freshly priced method (docs/money.md): the order is in its own currency unless a checkout
 * says otherwise; a price in the order's currency is worth its amount (a unique code or fee included), another covers
 * `value`. `arrived` is what the order had already received (a switch), so the order is worth that plus this price.
 */
export function ledgerColumns(
  columns: Pick<NewDeposit, 'input_currency' | 'input_amount'>,
  order: CreateOptions['order'],
  arrived = '0',
) {
  const orderCurrency = order?.currency ?? columns.input_currency;
  const value =
    orderCurrency === columns.input_currency || order?.value === undefined ? columns.input_amount : order.value;
  return {
    order_currency: orderCurrency,
    order_value: toText(money(arrived).plus(value)),
    price_amount: columns.input_amount,
    price_value: value,
  };
}

/** The columns that say how a deposit is paid and priced: what a creation writes and a method switch replaces. */
type PaymentColumns = Pick<
  NewDeposit,
  | 'deposit_type'
  | 'method_code'
  | 'input_currency'
  | 'input_amount'
  | 'output_currency'
  | 'output_amount'
  | 'exchange_rate'
  | 'fee_amount'
  | 'fee_percentage'
  | 'fee_currency'
  | 'payment_fiat'
  | 'payment_crypto'
  | 'va_number'
  | 'balance_type'
  | 'quote_id'
  | 'show_exchange_info'
  | 'expired_at'
>;

/** A priced deposit, ready to be written: its payment details are drawn per attempt, inside the attempt's transaction. */
export interface PaymentPlan {
  /** The columns of one attempt (a fresh VA number or unique code each time); `code` is a bank transfer's unique code. */
  draw(
    trx: Transaction<Database>,
    recordId: string,
    now: Date,
  ): Promise<{ columns: PaymentColumns; code?: { account: string; code: number } }>;
  /** The method it pays with: a fiat method's bankCode, or the crypto id. */
  code: string;
  quoteId?: string;
}

/** Attempts of a write whose drawn VA number or unique code turned out taken by a concurrent write. */
const MAX_DRAWS = 8;

/**
 * Runs a write of drawn payment details in one transaction, and again (drawing afresh) when a concurrent write took
 * the VA number or unique code it drew, at most MAX_DRAWS times more; any other error is the caller's.
 */
export async function withFreshDraws<T>(
  deps: ProviderDeps,
  write: (trx: Transaction<Database>) => Promise<T>,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await deps.db.transaction().execute(write);
    } catch (err) {
      const which = uniqueViolation(err);
      if ((which === 'va_number' || which === 'unique_code') && attempt < MAX_DRAWS) continue;
      throw err;
    }
  }
}

/** What else a write of payment details holds in its transaction: the unique code's row and the quote's claim. */
export async function writePaymentExtras(
  trx: Transaction<Database>,
  merchantId: string,
  rowId: string,
  plan: PaymentPlan,
  code: { account: string; code: number } | undefined,
  now: Date,
) {
  await releaseUniqueCode(trx, rowId);
  if (code)
    await insertUniqueCode(trx, {
      deposit_row_id: rowId,
      merchant_id: merchantId,
      account_number: code.account,
      unique_code: code.code,
    });
  if (plan.quoteId) await claimQuote(trx, merchantId, plan.quoteId, rowId, now);
}

/** Organization names are kept a few seconds per instance (deps.caches.organizationNames), to spare a query per create. */
export const ORGANIZATION_NAME_CACHE = { max: 1000, ttlMs: 5000 };

/** The merchant's name on its deposits (accountName, QRIS merchant name). */
async function accountNameOf(deps: ProviderDeps, organizationId: string): Promise<string> {
  const cache = deps.caches.organizationNames;
  const cached = cache.get(organizationId);
  if (cached !== undefined) return cached;
  const name = (await organizationName(deps.db, organizationId)) ?? 'Kasir Merchant';
  cache.set(organizationId, name);
  return name;
}

function expiresAt(deps: ProviderDeps, now: Date, kind: MethodKind): string {
  return new Date(now.getTime() + deps.config.expirySeconds[kind] * 1000).toISOString();
}

/** Prices a fiat deposit (from its quote when it names one) and plans its payment details. */
export async function fiatPlan(
  deps: ProviderDeps,
  owner: DepositOwner,
  req: FiatDepositRequest,
  depositId: string,
  options: CreateOptions,
): Promise<PaymentPlan> {
  const held = req.quoteId === undefined ? undefined : await usableQuote(deps, owner.merchantId, req.quoteId);
  const quote = priceFiatDeposit(req, deps.config.rates, held);
  const { method } = quote;
  const accountName = await accountNameOf(deps, owner.organizationId);
  const inPlaces = placesOf(method.currency)!;
  const outPlaces = placesOf(req.outputCurrency)!;
  const account = method.collectionAccount?.accountNumber;
  const wallet = walletRequest(method, req);
  return {
    quoteId: req.quoteId,
    code: method.code,
    async draw(trx, recordId, now) {
      // A bank transfer's amount is raised by its unique code (in the currency's smallest unit), and priced on that.
      const code = account
        ? { account, code: await freeUniqueCode(trx, owner.merchantId, account, method.code) }
        : undefined;
      const inputAmount = code
        ? quote.inputAmount.plus(money(code.code).dividedBy(money(10).pow(inPlaces)))
        : quote.inputAmount;
      const fee = code ? feeOf(inputAmount, money(method.feeFlat), money(method.feePercentage), inPlaces) : quote.fee;
      const outputAmount = code ? outputOf(inputAmount, fee, quote.rate, outPlaces) : quote.outputAmount;
      const { paymentFiat, vaNumber } = fiatPaymentDetails({
        method,
        accountName,
        amount: toText(inputAmount),
        recordId,
        depositId,
        merchantId: owner.merchantId,
        baseUrl: deps.config.baseUrl,
        ...wallet,
        now,
      });
      if (code) paymentFiat.uniqueCode = String(code.code);
      return {
        code,
        columns: {
          deposit_type: 'fiat',
          method_code: method.code,
          input_currency: req.inputCurrency,
          input_amount: toText(inputAmount),
          output_currency: req.outputCurrency,
          output_amount: toText(outputAmount),
          exchange_rate: toText(quote.rate),
          fee_amount: toText(fee),
          fee_percentage: method.feePercentage,
          fee_currency: method.currency,
          payment_fiat: JSON.stringify(paymentFiat),
          payment_crypto: '{}',
          va_number: vaNumber,
          balance_type: req.balanceType,
          quote_id: req.quoteId ?? null,
          show_exchange_info: options.exchangeInfo || req.outputCurrency !== req.inputCurrency ? 1 : 0,
          expired_at: expiresAt(deps, now, method.kind),
        },
      };
    },
  };
}

/** What an e-wallet's flow needs of the request: a push its shopper's number, a redirect where to come back (both checked). */
function walletRequest(
  method: PaymentMethodDef,
  req: FiatDepositRequest,
): { mobileNumber?: string; returnUrl?: string } {
  // Without a number a push wallet's deposit waits for one: choosing it again with the number sends the request.
  if (method.flow === 'push')
    return req.mobileNumber === undefined ? {} : { mobileNumber: mobileNumber(req.mobileNumber, 'mobileNumber') };
  if (method.flow === 'redirect' && req.returnUrl !== undefined)
    return { returnUrl: returnUrl(req.returnUrl, 'returnUrl') };
  return {};
}

/** Prices a crypto deposit (from its quote when it names one) and plans its payout wallet. */
export async function cryptoPlan(
  deps: ProviderDeps,
  owner: DepositOwner,
  req: CryptoDepositRequest,
  options: CreateOptions,
): Promise<PaymentPlan> {
  const held = req.quoteId === undefined ? undefined : await usableQuote(deps, owner.merchantId, req.quoteId);
  const quote = priceCryptoDeposit(req, deps.config.rates, held);
  const { crypto, outputCurrency } = quote;
  return {
    quoteId: req.quoteId,
    code: crypto.id,
    async draw(_trx, _recordId, now) {
      return {
        columns: {
          deposit_type: 'crypto',
          method_code: null,
          input_currency: crypto.id,
          input_amount: toText(quote.inputAmount),
          output_currency: outputCurrency,
          output_amount: toText(quote.outputAmount),
          exchange_rate: toText(quote.rate),
          fee_amount: toText(quote.fee),
          fee_percentage: '0',
          fee_currency: crypto.id,
          payment_fiat: '{}',
          payment_crypto: JSON.stringify(cryptoPaymentDetails(crypto, owner.merchantId)),
          va_number: null,
          balance_type: 'crypto',
          quote_id: req.quoteId ?? null,
          show_exchange_info: options.exchangeInfo || outputCurrency !== crypto.id ? 1 : 0,
          expired_at: expiresAt(deps, now, 'crypto'),
        },
      };
    },
  };
}
