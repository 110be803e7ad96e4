// The provider's one money type: exact decimal (decimal.js), never binary floating point. The pricing rules that
// compute with it (fees, rates, rounding per currency) are in deposits/pricing.ts.
import { Decimal } from 'decimal.js';

/**
 * Exact decimal money. Amounts travel as JSON numbers (the interface says so) but are parsed from their
 * shortest decimal text, computed with decimal.js and stored as decimal text: never binary floating point.
 * Every value made here carries this precision into the results computed from it.
 */
export const Money = Decimal.clone({ precision: 60, rounding: Decimal.ROUND_HALF_UP, toExpNeg: -40, toExpPos: 40 });
export type Money = Decimal;

/** Parses a JSON number or decimal string exactly as written (String(0.1) is "0.1"). */
export function money(value: number | string | Decimal): Money {
  if (value instanceof Decimal) return new Money(value);
  if (typeof value === 'number' && !Number.isFinite(value)) throw new RangeError('amount must be finite');
  return new Money(typeof value === 'number' ? String(value) : value);
}

/** Rounds half-up to `places` decimal places. */
export function roundTo(value: Decimal, places: number): Money {
  return value.toDecimalPlaces(places, Decimal.ROUND_HALF_UP);
}

/** Rounds up (towards +infinity) to `places` decimal places. */
export function ceilTo(value: Decimal, places: number): Money {
  return value.toDecimalPlaces(places, Decimal.ROUND_CEIL);
}

/** Decimal text for storage: plain notation, no exponent, no trailing zeros. */
export function toText(value: Decimal): string {
  return value.toFixed();
}

/** The JSON number of the interface. */
export function toNumber(value: Decimal | string): number {
  return Number(typeof value === 'string' ? value : value.toFixed());
}
