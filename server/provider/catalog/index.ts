import { findCrypto } from './cryptos.js';
import { findFiat } from './currencies.js';

export * from './banks.js';
export * from './cryptos.js';
export * from './currencies.js';
export * from './payment-methods.js';
export * from './rates.js';

/** Decimal places of a currency code or crypto id; undefined when unknown. */
export function placesOf(code: string): number | undefined {
  const f = findFiat(code);
  if (f) return f.places;
  return findCrypto(code)?.decimal;
}

export function isCrypto(code: string): boolean {
  return findCrypto(code) !== undefined;
}
