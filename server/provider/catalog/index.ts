import { findCrypto } from './cryptos';
import { findFiat } from './currencies';

export * from './cryptos';
export * from './currencies';
export * from './payment-methods';
export * from './rates';

/** Decimal places of a currency code or crypto id; undefined when unknown. */
export function placesOf(code: string): number | undefined {
  const f = findFiat(code);
  if (f) return f.places;
  return findCrypto(code)?.decimal;
}

export function isCrypto(code: string): boolean {
  return findCrypto(code) !== undefined;
}
