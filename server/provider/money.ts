import { Decimal } from 'decimal.js';

/**
 * Exact decimal money. Amounts travel as JSON numbers (the interface says so) but are parsed from their
 * shortest decimal text, computed with decimal.js and stored as decimal text: never binary floating point.
 */
export const Money = Decimal.clone({ precision: 60, rounding: Decimal.ROUND_HALF_UP, toExpNeg: -40, toExpPos: 40 });
export type Money = Decimal;

/** Parses a JSON number or decimal string exactly as written (String(0.1) is "0.1"). */
export function money(value: number | string | Decimal): Decimal {
  if (value instanceof Decimal) return new Money(value);
  if (typeof value === 'number' && !Number.isFinite(value)) throw new RangeError('amount must be finite');
  return new Money(typeof value === 'number' ? String(value) : value);
}

/** Rounds half-up to `places` decimal places. */
export function roundTo(value: Decimal, places: number): Decimal {
  return value.toDecimalPlaces(places, Decimal.ROUND_HALF_UP);
}

/** Rounds up (towards +infinity) to `places` decimal places. */
export function ceilTo(value: Decimal, places: number): Decimal {
  return value.toDecimalPlaces(places, Decimal.ROUND_CEIL);
}

/** Number of decimal places written in the value (0.50 -> 1, 10 -> 0). */
export function placesOf(value: Decimal): number {
  return value.decimalPlaces();
}

/** Decimal text for storage: plain notation, no exponent, no trailing zeros. */
export function toText(value: Decimal): string {
  return value.toFixed();
}

/** The JSON number of the interface. */
export function toNumber(value: Decimal | string): number {
  return Number(typeof value === 'string' ? value : value.toFixed());
}

/** One unit of the last place: 10^-places. */
export function unit(places: number): Decimal {
  return new Money(1).dividedBy(new Money(10).pow(places));
}

/**
 * Fee of a payment method on an input amount (DESIGN.md 3): feeFlat + amount x feePercentage / 100,
 * half-up to the input currency's precision.
 */
export function feeOf(amount: Decimal, feeFlat: Decimal, feePercentage: Decimal, places: number): Decimal {
  return roundTo(feeFlat.plus(amount.times(feePercentage).dividedBy(100)), places);
}

/** outputAmount = (inputAmount - fee) x rate, half-up to the output currency's precision. */
export function outputOf(amount: Decimal, fee: Decimal, rate: Decimal, outPlaces: number): Decimal {
  return roundTo(amount.minus(fee).times(rate), outPlaces);
}

export interface DeriveOptions {
  target: Decimal;
  feeFlat: Decimal;
  feePercentage: Decimal;
  rate: Decimal;
  inPlaces: number;
  outPlaces: number;
}

/**
 * The smallest input amount (at the input precision) whose output after fee reaches `target`
 * (DESIGN.md 3, checkout and deposits with outputAmount). Input minus fee never decreases as the input
 * grows (the fee rises by less than the input while feePercentage < 100), so a binary search over
 * whole input units finds it exactly.
 */
export function deriveInputAmount(o: DeriveOptions): Decimal {
  const scale = new Money(10).pow(o.inPlaces);
  const reaches = (units: Decimal) => {
    const amount = units.dividedBy(scale);
    return outputOf(amount, feeOf(amount, o.feeFlat, o.feePercentage, o.inPlaces), o.rate, o.outPlaces).greaterThanOrEqualTo(o.target);
  };
  const keep = new Money(1).minus(o.feePercentage.dividedBy(100));
  if (keep.lessThanOrEqualTo(0) || o.rate.lessThanOrEqualTo(0)) throw new RangeError('fee percentage must be below 100 and rate positive');
  // Estimate, then widen until the bracket [lo, hi] holds the answer.
  const estimate = o.target.dividedBy(o.rate).plus(o.feeFlat).dividedBy(keep).times(scale).ceil();
  let hi = Decimal.max(estimate, 1);
  while (!reaches(hi)) hi = hi.times(2).plus(1);
  let lo = Decimal.max(estimate.minus(estimate.dividedBy(100).ceil()).minus(2), 0);
  if (reaches(lo)) lo = new Money(0);
  // Invariant: !reaches(lo) or lo = 0 checked below, reaches(hi).
  if (lo.isZero() && reaches(lo)) return lo;
  while (hi.minus(lo).greaterThan(1)) {
    const mid = lo.plus(hi).dividedBy(2).floor();
    if (reaches(mid)) hi = mid; else lo = mid;
  }
  return hi.dividedBy(scale);
}
