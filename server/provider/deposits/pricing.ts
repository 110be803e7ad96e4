// Pricing of deposits (docs/design.md, "Deposits"): exchange rates from the rate table, fees, rounding to each
// currency's places, and the checks of a request's amounts and currencies. Pure: no I/O, no clock; every amount is
// exact decimal.
//   fee          = feeFlat + inputAmount x feePercentage / 100, half-up to the input currency's places
//   outputAmount = (inputAmount - fee) x exchangeRate, half-up to the output currency's places
//   with outputAmount asked for: inputAmount is the smallest amount whose output after fee reaches it
import type { Decimal } from 'decimal.js';
import { ApiError } from '../../common/errors.js';
import {
  findCrypto,
  findFiat,
  findPaymentMethod,
  isCrypto,
  maximumOf,
  placesOf,
  type CryptoDef,
  type PaymentMethodDef,
  type RateTable,
} from '../catalog/index.js';
import { ceilTo, Money, money, roundTo, toText } from './money.js';

// ---------------------------------------------------------------------------------------------------------
// Rates, fees, rounding

const RATE_SIGNIFICANT_DIGITS = 12;

/**
 * Units of `to` per unit of `from`: the quotient of their prices in the table, to 12 significant digits (half-up);
 * 1 between a currency and itself; undefined when either is not in the table.
 */
export function rateOf(rates: RateTable, from: string, to: string): Money | undefined {
  if (from === to) return new Money(1);
  if (!Object.hasOwn(rates, from) || !Object.hasOwn(rates, to)) return undefined;
  return new Money(rates[from]).dividedBy(rates[to]).toSignificantDigits(RATE_SIGNIFICANT_DIGITS, Money.ROUND_HALF_UP);
}

/** Fee of a payment method on an input amount: feeFlat + amount x feePercentage / 100, half-up to `places`. */
export function feeOf(amount: Decimal, feeFlat: Decimal, feePercentage: Decimal, places: number): Money {
  return roundTo(feeFlat.plus(amount.times(feePercentage).dividedBy(100)), places);
}

/** outputAmount = (inputAmount - fee) x rate, half-up to the output currency's places. */
export function outputOf(amount: Decimal, fee: Decimal, rate: Decimal, outPlaces: number): Money {
  return roundTo(amount.minus(fee).times(rate), outPlaces);
}

interface DeriveOptions {
  target: Decimal;
  feeFlat: Decimal;
  feePercentage: Decimal;
  rate: Decimal;
  inPlaces: number;
  outPlaces: number;
}

/**
 * The smallest input amount (at the input precision) whose output after fee reaches `target` (checkouts and
 * deposits with outputAmount). Input minus fee never decreases as the input grows (the fee rises by less than the
 * input while feePercentage < 100), so a binary search over whole input units finds it exactly.
 */
export function deriveInputAmount(o: DeriveOptions): Money {
  const scale = new Money(10).pow(o.inPlaces);
  const reaches = (units: Decimal) => {
    const amount = units.dividedBy(scale);
    return outputOf(
      amount,
      feeOf(amount, o.feeFlat, o.feePercentage, o.inPlaces),
      o.rate,
      o.outPlaces,
    ).greaterThanOrEqualTo(o.target);
  };
  const keep = new Money(1).minus(o.feePercentage.dividedBy(100));
  if (keep.lessThanOrEqualTo(0) || o.rate.lessThanOrEqualTo(0))
    throw new RangeError('fee percentage must be below 100 and rate positive');
  // Estimate, then widen until the bracket [lo, hi] holds the answer.
  const estimate = new Money(o.target).dividedBy(o.rate).plus(o.feeFlat).dividedBy(keep).times(scale).ceil();
  let hi = Money.max(estimate, 1);
  while (!reaches(hi)) hi = hi.times(2).plus(1);
  let lo = Money.max(estimate.minus(estimate.dividedBy(100).ceil()).minus(2), 0);
  if (reaches(lo)) lo = new Money(0);
  // Invariant: !reaches(lo) or lo = 0 checked below, reaches(hi).
  if (lo.isZero() && reaches(lo)) return lo;
  while (hi.minus(lo).greaterThan(1)) {
    const mid = lo.plus(hi).dividedBy(2).floor();
    if (reaches(mid)) hi = mid;
    else lo = mid;
  }
  return hi.dividedBy(scale);
}

// ---------------------------------------------------------------------------------------------------------
// Quotes: a method's price for an amount

const bad = (message: string) => new ApiError(400, message);

/** Significant digits any decimal text keeps through a JSON number (IEEE 754 doubles hold 15 exactly). */
const EXACT_NUMBER_DIGITS = 15;

/**
 * A request's amount of `currency` exactly as sent: positive, in at most the currency's places (placesOf) and at most
 * its maximum; else a 400 naming the field. Never rounded: a JSON number with more digits than a double keeps arrives
 * already changed (1.123456789012345678 parses as 1.1234567890123457), and its places then exceed the currency's, so
 * it is refused, not priced silently. Within the places and the maximum an amount has at most 15 significant digits,
 * which a JSON number carries exactly (the catalog's test checks every currency).
 */
export function requestAmount(value: number, field: string, currency: string): Money {
  const amount = money(value);
  if (!amount.isFinite() || amount.lessThanOrEqualTo(0)) throw bad(`${field}: must be positive`);
  const places = placesOf(currency)!;
  if (amount.decimalPlaces() > places) {
    const changed =
      amount.precision() > EXACT_NUMBER_DIGITS
        ? ` (a JSON number carries at most 15 significant digits exactly: this one arrived as ${String(value)})`
        : '';
    throw bad(`${field}: ${currency} amounts have at most ${places} decimal places${changed}`);
  }
  const maximum = maximumOf(currency)!;
  if (amount.greaterThan(maximum)) throw bad(`${field}: ${currency} amounts are at most ${maximum}`);
  return amount;
}

/** A computed amount (derived or converted) within its currency's maximum; else a 400 naming the field it came from. */
function checkMaximum(amount: Decimal, currency: string, field: string): void {
  const maximum = maximumOf(currency)!;
  if (amount.greaterThan(maximum))
    throw bad(`${field}: ${toText(amount)} ${currency} is above the maximum of ${maximum} ${currency}`);
}

/** Output currency of a conversion: a known fiat or crypto with a rate, pairing with the input. */
function resolveOutput(
  rates: RateTable,
  inputCurrency: string,
  outputCurrency: string,
): { rate: Money; places: number } {
  const places = placesOf(outputCurrency);
  const rate = rateOf(rates, inputCurrency, outputCurrency);
  if (places === undefined || !rate) throw bad(`outputCurrency: unsupported currency '${outputCurrency}'`);
  const pair = (crypto: CryptoDef | undefined, fiat: string) =>
    !crypto || !findFiat(fiat) || crypto.currencies.includes(fiat);
  if (!pair(findCrypto(outputCurrency), inputCurrency) || !pair(findCrypto(inputCurrency), outputCurrency)) {
    throw bad(`outputCurrency: ${outputCurrency} does not pair with ${inputCurrency}`);
  }
  return { rate, places };
}

export interface FiatQuote {
  method: PaymentMethodDef;
  inputAmount: Money;
  fee: Money;
  rate: Money;
  outputAmount: Money;
  /** Whether the amount is within the method's minimum and maximum. */
  withinLimits: boolean;
}

/**
 * Prices a fiat method for a given input amount or wanted output amount (fees, rounding, conversion). Throws a 400
 * naming outputCurrency when the pair has no rate or is not allowed.
 */
export function quoteMethod(
  method: PaymentMethodDef,
  outputCurrency: string,
  amount: { input: Decimal } | { output: Decimal },
  rates: RateTable,
): FiatQuote {
  const inPlaces = placesOf(method.currency)!;
  const { rate, places: outPlaces } = resolveOutput(rates, method.currency, outputCurrency);
  const feeFlat = money(method.feeFlat);
  const feePercentage = money(method.feePercentage);
  const inputAmount =
    'input' in amount
      ? money(amount.input)
      : deriveInputAmount({ target: amount.output, feeFlat, feePercentage, rate, inPlaces, outPlaces });
  const fee = feeOf(inputAmount, feeFlat, feePercentage, inPlaces);
  const outputAmount = outputOf(inputAmount, fee, rate, outPlaces);
  const withinLimits =
    inputAmount.greaterThanOrEqualTo(method.minimumAmount) &&
    inputAmount.lessThanOrEqualTo(method.maximumAmount) &&
    outputAmount.greaterThan(0);
  return { method, inputAmount, fee, rate, outputAmount, withinLimits };
}

// ---------------------------------------------------------------------------------------------------------
// Requests: the amounts and currencies of a deposit request, checked and priced

/** The amounts and currencies of POST /v1/deposit/fiat. */
export interface FiatPricingRequest {
  inputCurrency: string;
  inputAmount?: number;
  outputCurrency: string;
  outputAmount?: { fiat?: number; crypto?: number };
  paymentMethod: string;
}

/**
 * A quote held for a deposit (convert estimation, docs/design.md, "Quotes, banks, bank transfers"): what the deposit
 * must match and the figures it gets.
 */
export interface HeldQuote {
  inputCurrency: string;
  inputAmount: string;
  outputCurrency: string;
  outputAmount: string;
  rate: string;
  fee: string;
  /** The bankCode the quote included the fee of, or null. */
  paymentMethod: string | null;
}

const QUOTE_MISMATCH = 'Quote does not match the deposit';

/**
 * Checks a fiat deposit request against the catalog and prices it; a 400 naming the field otherwise. With a held
 * quote the request must match it (currencies, the amount sent, the method when the quote named one) and gets
 * exactly its rate and, when the quote included the method's fee, its amounts.
 */
export function priceFiatDeposit(req: FiatPricingRequest, rates: RateTable, held?: HeldQuote): FiatQuote {
  const method = findPaymentMethod(req.paymentMethod);
  if (!method) throw new ApiError(400, 'Payment method not found', 'Not Found');
  if (!findFiat(req.inputCurrency)) throw bad(`inputCurrency: unsupported currency '${req.inputCurrency}'`);
  if (req.inputCurrency !== method.currency) throw bad(`inputCurrency: ${method.code} accepts ${method.currency} only`);
  if ((req.inputAmount === undefined) === (req.outputAmount === undefined))
    throw bad('inputAmount: send exactly one of inputAmount and outputAmount');
  resolveOutput(rates, req.inputCurrency, req.outputCurrency);

  let quote: FiatQuote;
  let field: 'inputAmount' | 'outputAmount';
  let sent: Money;
  if (req.inputAmount !== undefined) {
    field = 'inputAmount';
    sent = requestAmount(req.inputAmount, field, method.currency);
    quote = quoteMethod(method, req.outputCurrency, { input: sent }, rates);
  } else {
    field = 'outputAmount';
    const { fiat, crypto } = req.outputAmount!;
    if ((fiat === undefined) === (crypto === undefined))
      throw bad('outputAmount: send exactly one of outputAmount.fiat and outputAmount.crypto');
    const outIsCrypto = isCrypto(req.outputCurrency);
    if (outIsCrypto && fiat !== undefined)
      throw bad(`outputAmount.fiat: outputCurrency ${req.outputCurrency} is a crypto; send outputAmount.crypto`);
    if (!outIsCrypto && crypto !== undefined)
      throw bad(`outputAmount.crypto: outputCurrency ${req.outputCurrency} is fiat; send outputAmount.fiat`);
    const outputField = fiat !== undefined ? 'outputAmount.fiat' : 'outputAmount.crypto';
    sent = requestAmount((fiat ?? crypto)!, outputField, req.outputCurrency);
    quote = quoteMethod(method, req.outputCurrency, { output: sent }, rates);
  }
  if (held) {
    const matches =
      held.inputCurrency === req.inputCurrency &&
      held.outputCurrency === req.outputCurrency &&
      (held.paymentMethod === null || held.paymentMethod === method.code) &&
      (field === 'inputAmount' ? sent.equals(held.inputAmount) : askedOutput(held, sent));
    if (!matches) throw bad(QUOTE_MISMATCH);
    quote = fromHeldQuote(method, held, field === 'outputAmount' ? sent : undefined);
  }
  const { inputAmount } = quote;
  if (inputAmount.lessThan(method.minimumAmount)) {
    throw bad(
      `${field}: ${toText(inputAmount)} ${method.currency} is below the minimum of ${method.minimumAmount} ${method.currency} for ${method.code}`,
    );
  }
  if (inputAmount.greaterThan(method.maximumAmount)) {
    throw bad(
      `${field}: ${toText(inputAmount)} ${method.currency} is above the maximum of ${method.maximumAmount} ${method.currency} for ${method.code}`,
    );
  }
  if (quote.outputAmount.lessThanOrEqualTo(0))
    throw bad(`${field}: the amount does not cover the fee of ${toText(quote.fee)} ${method.currency}`);
  checkMaximum(quote.outputAmount, req.outputCurrency, field);
  return quote;
}

/**
 * Whether a quote is the estimation of an output of `target`: it yields exactly that, or its input is what the
 * target derives to at its rate and fee. An estimation by outputAmount keeps the output it priced, which rounding
 * may put above the target asked for; the deposit asks for the target, so the quote matches on what was asked.
 */
function askedOutput(held: HeldQuote, target: Decimal): boolean {
  if (target.equals(held.outputAmount)) return true;
  const method = held.paymentMethod === null ? undefined : findPaymentMethod(held.paymentMethod);
  const derived = deriveInputAmount({
    target,
    feeFlat: money(method?.feeFlat ?? 0),
    feePercentage: money(method?.feePercentage ?? 0),
    rate: money(held.rate),
    inPlaces: placesOf(held.inputCurrency)!,
    outPlaces: placesOf(held.outputCurrency)!,
  });
  return derived.equals(held.inputAmount);
}

/**
 * A method's price from a held quote: the quoted rate, and the quoted amounts when the quote included this method's
 * fee. A quote without the method pins the rate only: the method's fee is added, on the quoted input (a deposit by
 * inputAmount), or on the input that reaches the `target` output at the quoted rate (a deposit by outputAmount).
 */
function fromHeldQuote(method: PaymentMethodDef, held: HeldQuote, target?: Decimal): FiatQuote {
  const rate = money(held.rate);
  const withFee = held.paymentMethod === method.code;
  const feeFlat = money(method.feeFlat);
  const feePercentage = money(method.feePercentage);
  const inPlaces = placesOf(method.currency)!;
  const outPlaces = placesOf(held.outputCurrency)!;
  const inputAmount =
    withFee || !target
      ? money(held.inputAmount)
      : deriveInputAmount({ target, feeFlat, feePercentage, rate, inPlaces, outPlaces });
  const fee = withFee ? money(held.fee) : feeOf(inputAmount, feeFlat, feePercentage, inPlaces);
  const outputAmount = withFee ? money(held.outputAmount) : outputOf(inputAmount, fee, rate, outPlaces);
  const withinLimits =
    inputAmount.greaterThanOrEqualTo(method.minimumAmount) &&
    inputAmount.lessThanOrEqualTo(method.maximumAmount) &&
    outputAmount.greaterThan(0);
  return { method, inputAmount, fee, rate, outputAmount, withinLimits };
}

/** The amounts and currencies of POST /v1/deposit/crypto. */
export interface CryptoPricingRequest {
  inputCurrency: string;
  inputAmount: number;
  outputCurrency?: string;
}

interface CryptoQuote {
  crypto: CryptoDef;
  outputCurrency: string;
  inputAmount: Money;
  /** Crypto deposits carry no fee. */
  fee: Money;
  rate: Money;
  outputAmount: Money;
}

/**
 * Checks a crypto deposit request against the catalog and prices it (no fee); a 400 naming the field otherwise.
 * With a held quote the request must match it and gets exactly its rate and output.
 */
export function priceCryptoDeposit(req: CryptoPricingRequest, rates: RateTable, held?: HeldQuote): CryptoQuote {
  const crypto = findCrypto(req.inputCurrency);
  if (!crypto) throw new ApiError(400, 'Crypto not found', 'Not Found');
  const outputCurrency = req.outputCurrency ?? crypto.id;
  const inputAmount = requestAmount(req.inputAmount, 'inputAmount', crypto.id);
  const { rate: current, places } = resolveOutput(rates, crypto.id, outputCurrency);
  if (
    held &&
    (held.inputCurrency !== crypto.id ||
      held.outputCurrency !== outputCurrency ||
      !inputAmount.equals(held.inputAmount) ||
      held.paymentMethod !== null)
  ) {
    throw bad(QUOTE_MISMATCH);
  }
  const rate = held ? money(held.rate) : current;
  const fee = money(0);
  const outputAmount = held ? money(held.outputAmount) : outputOf(inputAmount, fee, rate, places);
  if (outputAmount.lessThanOrEqualTo(0)) throw bad(`inputAmount: too small to convert into ${outputCurrency}`);
  checkMaximum(outputAmount, outputCurrency, 'inputAmount');
  return { crypto, outputCurrency, inputAmount, fee, rate, outputAmount };
}

// ---------------------------------------------------------------------------------------------------------
// Crypto in checkout: the token amount that covers an order

export interface CryptoCoveringQuote {
  crypto: CryptoDef;
  /** The token amount to pay, in at most min(decimal, 8) places (placesOf). */
  inputAmount: Money;
  /** Units of the output currency per token. */
  rate: Money;
  outputAmount: Money;
  /** Whether the amount is within the crypto's maximum (then it has at most 15 significant digits). */
  withinLimits: boolean;
}

/**
 * What paying an order with a crypto costs (docs/design.md, "The shopper's choice, on any device"): the smallest token
 * amount in min(decimal, 8) places whose exact conversion into `outputCurrency` reaches `target` (crypto deposits carry
 * no fee). Undefined when the crypto has no rate to the output currency or does not pair with it.
 */
export function quoteCryptoCovering(
  crypto: CryptoDef,
  outputCurrency: string,
  target: Decimal,
  rates: RateTable,
): CryptoCoveringQuote | undefined {
  let rate: Money;
  let outPlaces: number;
  try {
    ({ rate, places: outPlaces } = resolveOutput(rates, crypto.id, outputCurrency));
  } catch {
    return undefined;
  }
  // Up, so that the exact conversion (not only its rounded outputAmount) reaches the target.
  const inputAmount = ceilTo(target.dividedBy(rate), placesOf(crypto.id)!);
  const outputAmount = outputOf(inputAmount, money(0), rate, outPlaces);
  return {
    crypto,
    inputAmount,
    rate,
    outputAmount,
    withinLimits:
      inputAmount.lessThanOrEqualTo(crypto.maximumAmount) && outputAmount.lessThanOrEqualTo(maximumOf(outputCurrency)!),
  };
}

// ---------------------------------------------------------------------------------------------------------
// Convert estimation (docs/design.md, "Quotes, banks, bank transfers"): what a conversion yields at the current rate,
// before it is held as a quote

/** The body of POST /v1/deposit/convert-estimation. */
export interface ConversionRequest {
  inputCurrency: string;
  outputCurrency: string;
  inputAmount?: number;
  outputAmount?: number;
  /** A bankCode: its fee is then included. */
  paymentMethod?: string;
}

export interface ConversionEstimate {
  inputCurrency: string;
  inputAmount: Money;
  outputCurrency: string;
  outputAmount: Money;
  rate: Money;
  /** In the input currency: the method's fee, 0 without a method. */
  fee: Money;
  paymentMethod: string | null;
}

/** Checks and prices a convert estimation; a 400 naming the field otherwise. */
export function estimateConversion(req: ConversionRequest, rates: RateTable): ConversionEstimate {
  const method = req.paymentMethod === undefined ? undefined : findPaymentMethod(req.paymentMethod);
  if (req.paymentMethod !== undefined && !method) throw new ApiError(400, 'Payment method not found', 'Not Found');
  const inPlaces = placesOf(req.inputCurrency);
  if (inPlaces === undefined) throw bad(`inputCurrency: unsupported currency '${req.inputCurrency}'`);
  if (method && method.currency !== req.inputCurrency)
    throw bad(`paymentMethod: ${method.code} accepts ${method.currency} only`);
  if ((req.inputAmount === undefined) === (req.outputAmount === undefined))
    throw bad('inputAmount: send exactly one of inputAmount and outputAmount');
  const { rate, places: outPlaces } = resolveOutput(rates, req.inputCurrency, req.outputCurrency);
  const feeFlat = money(method?.feeFlat ?? 0);
  const feePercentage = money(method?.feePercentage ?? 0);
  let inputAmount: Money;
  const field = req.inputAmount !== undefined ? 'inputAmount' : 'outputAmount';
  if (req.inputAmount !== undefined) {
    inputAmount = requestAmount(req.inputAmount, field, req.inputCurrency);
  } else {
    const target = requestAmount(req.outputAmount!, field, req.outputCurrency);
    inputAmount = deriveInputAmount({ target, feeFlat, feePercentage, rate, inPlaces, outPlaces });
    checkMaximum(inputAmount, req.inputCurrency, field);
  }
  const fee = feeOf(inputAmount, feeFlat, feePercentage, inPlaces);
  const outputAmount = outputOf(inputAmount, fee, rate, outPlaces);
  if (outputAmount.lessThanOrEqualTo(0))
    throw bad(
      `inputAmount: too small to convert into ${req.outputCurrency}${method ? ` after the fee of ${toText(fee)} ${method.currency}` : ''}`,
    );
  checkMaximum(outputAmount, req.outputCurrency, field);
  return {
    inputCurrency: req.inputCurrency,
    inputAmount,
    outputCurrency: req.outputCurrency,
    outputAmount,
    rate,
    fee,
    paymentMethod: method?.code ?? null,
  };
}
