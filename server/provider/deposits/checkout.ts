// Hosted checkout: a priced, 15-minute link whose deposit (depositId = checkout id) the shopper creates.
import type { Decimal } from 'decimal.js';
import { findFiat, findPaymentMethod, PAYMENT_METHODS, placesOf, type RateTable } from '../catalog/index.js';
import type { CheckoutRow } from '../db/deposit-tables.js';
import { ApiError } from '../http/errors.js';
import type { AuthenticatedMerchant, ProviderDeps } from '../http/env.js';
import { newUuid } from '../ids.js';
import { ceilTo, money, toText } from '../money.js';
import { rateOf } from './pricing.js';
import { checkoutById, insertCheckout, merchantOwner } from './repository.js';
import { createFiatDeposit, DepositIdTaken, quoteMethod, readDepositById, type FiatQuote } from './service.js';
import type { DepositRow, DepositView } from './view.js';

const CHECKOUT_VALIDITY_SECONDS = 15 * 60;

export type { CheckoutRow } from '../db/deposit-tables.js';

export interface CheckoutRequest {
  inputCurrency: string;
  inputAmount?: number;
  outputAmount?: number;
  outputCurrency?: string;
}

const bad = (message: string) => new ApiError(400, message);

export interface MethodOffer {
  quote: FiatQuote;
  /** What the order costs in the input currency, before any fee the shopper bears. */
  amount: Decimal;
  /** What the shopper pays on top of amount (0 when the merchant bears the fee). */
  shopperFee: Decimal;
  available: boolean;
}

/** The methods a checkout offers and what each costs the shopper, at the service's rates (deps.config.rates). */
export function offersFor(checkout: Pick<CheckoutRow, 'input_currency' | 'output_currency' | 'input_amount' | 'output_amount'>, rates: RateTable): MethodOffer[] {
  const inPlaces = placesOf(checkout.input_currency)!;
  const methods = PAYMENT_METHODS.filter((m) => m.currency === checkout.input_currency);
  return methods.map((method) => {
    if (checkout.input_amount !== null) {
      const quote = quoteMethod(method, checkout.output_currency, { input: money(checkout.input_amount) }, rates);
      return { quote, amount: quote.inputAmount, shopperFee: money(0), available: quote.withinLimits };
    }
    const output = money(checkout.output_amount!);
    const quote = quoteMethod(method, checkout.output_currency, { output }, rates);
    const amount = ceilTo(output.dividedBy(quote.rate), inPlaces);
    const shopperFee = quote.inputAmount.minus(amount);
    return { quote, amount, shopperFee: shopperFee.isNegative() ? money(0) : shopperFee, available: quote.withinLimits };
  });
}

/** POST /v1/checkout: validates, prices and stores a checkout; returns {id, url}. */
export async function createCheckout(deps: ProviderDeps, merchant: AuthenticatedMerchant, req: CheckoutRequest): Promise<{ id: string; url: string }> {
  const hasIn = req.inputAmount !== undefined;
  if (hasIn === (req.outputAmount !== undefined)) throw bad('inputAmount: send exactly one of inputAmount and outputAmount');
  const fiat = findFiat(req.inputCurrency);
  if (!fiat || !PAYMENT_METHODS.some((m) => m.currency === fiat.code)) {
    throw bad(`inputCurrency: checkout accepts ${[...new Set(PAYMENT_METHODS.map((m) => m.currency))].join(', ')}`);
  }
  const outputCurrency = req.outputCurrency ?? req.inputCurrency;
  const outPlaces = placesOf(outputCurrency);
  if (outPlaces === undefined || !rateOf(deps.config.rates, req.inputCurrency, outputCurrency)) throw bad(`outputCurrency: unsupported currency '${outputCurrency}'`);
  const field = hasIn ? 'inputAmount' : 'outputAmount';
  const amount = money((hasIn ? req.inputAmount : req.outputAmount)!);
  if (amount.lessThanOrEqualTo(0)) throw bad(`${field}: must be positive`);
  const places = hasIn ? fiat.places : outPlaces;
  if (amount.decimalPlaces() > places) throw bad(`${field}: ${hasIn ? fiat.code : outputCurrency} amounts have at most ${places} decimal places`);
  const draft = {
    input_currency: fiat.code, output_currency: outputCurrency,
    input_amount: hasIn ? toText(amount) : null, output_amount: hasIn ? null : toText(amount),
  };
  // Throws a 400 naming outputCurrency when the pair is not allowed.
  const offers = offersFor(draft, deps.config.rates);
  if (!offers.some((o) => o.available)) throw bad(`${field}: no payment method accepts this amount`);
  const now = deps.now();
  const id = newUuid();
  await insertCheckout(deps.db, {
    id, merchant_id: merchant.merchantId, ...draft,
    expires_at: new Date(now.getTime() + CHECKOUT_VALIDITY_SECONDS * 1000).toISOString(), created_at: now.toISOString(),
  });
  return { id, url: `${deps.config.baseUrl}/checkout/${id}` };
}

export async function findCheckout(deps: ProviderDeps, id: string): Promise<CheckoutRow | undefined> {
  return checkoutById(deps.db, id);
}

/** The checkout with this id, or a 404 "Checkout not found". */
export async function requireCheckout(deps: ProviderDeps, id: string): Promise<CheckoutRow> {
  const checkout = await findCheckout(deps, id);
  if (!checkout) throw new ApiError(404, 'Checkout not found');
  return checkout;
}

export async function checkoutDeposit(deps: ProviderDeps, checkout: CheckoutRow): Promise<{ row: DepositRow; view: DepositView } | undefined> {
  const found = await readDepositById(deps, checkout.id);
  return found && found.row.checkout_id === checkout.id ? found : undefined;
}

/**
 * The shopper picks a method: creates the deposit whose depositId is the checkout id. The same method again
 * returns the same deposit; another method is a 400; after 15 minutes nothing can be created.
 */
export async function chooseMethod(deps: ProviderDeps, checkout: CheckoutRow, code: string): Promise<{ view: DepositView; created: boolean }> {
  const existing = async () => {
    const found = await checkoutDeposit(deps, checkout);
    if (!found) return undefined;
    if (found.row.method_code !== code) throw bad(`paymentMethod: this checkout is already being paid with ${found.row.method_code}`);
    return { view: found.view, created: false };
  };
  const before = await existing();
  if (before) return before;
  const method = findPaymentMethod(code);
  if (!method) throw new ApiError(400, 'Payment method not found', 'Not Found');
  if (checkout.expires_at <= deps.now().toISOString()) throw bad('Checkout has expired: no payment method can be chosen after 15 minutes');
  const offer = offersFor(checkout, deps.config.rates).find((o) => o.quote.method.code === code);
  if (!offer) throw bad(`paymentMethod: ${code} does not accept ${checkout.input_currency}`);
  if (!offer.available) throw bad(`paymentMethod: ${code} does not accept ${toText(offer.quote.inputAmount)} ${checkout.input_currency} (minimum ${method.minimumAmount}, maximum ${method.maximumAmount})`);
  const owner = await merchantOwner(deps.db, checkout.merchant_id);
  try {
    const view = await createFiatDeposit(deps, owner, {
      inputCurrency: checkout.input_currency,
      inputAmount: Number(toText(offer.quote.inputAmount)),
      outputCurrency: checkout.output_currency,
      balanceType: 'fiat',
      paymentMethod: code,
      note: `Checkout ${checkout.id}`,
    }, { depositId: checkout.id, checkoutId: checkout.id, exchangeInfo: true });
    return { view, created: true };
  } catch (err) {
    // Two choices at once: the database let one win; the other answers like a repeated choice.
    if (err instanceof DepositIdTaken) {
      const after = await existing();
      if (after) return after;
    }
    throw err;
  }
}
