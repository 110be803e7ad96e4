import { findCrypto } from './cryptos.js';
import { findFiat } from './currencies.js';

export * from './banks.js';
export * from './cryptos.js';
export * from './currencies.js';
export * from './payment-methods.js';
export type { RateTable } from '../instance/defaults.js';

/**
 * The most decimal places a crypto is priced in (docs/design.md, "The shopper's choice, on any device"): what a person
 * can read and type.
 */
const CRYPTO_PLACES = 8;

/**
 * Decimal places amounts of a currency code or crypto id are priced in: the fiat's places, min(decimal, 8) for a
 * crypto (its on-chain `decimal` stays what base units are counted in); undefined when unknown.
 */
export function placesOf(code: string): number | undefined {
  const f = findFiat(code);
  if (f) return f.places;
  const crypto = findCrypto(code);
  return crypto && Math.min(crypto.decimal, CRYPTO_PLACES);
}

/** The largest amount of a currency code or crypto id one deposit, checkout or conversion takes; undefined when unknown. */
export function maximumOf(code: string): string | undefined {
  return (findFiat(code) ?? findCrypto(code))?.maximumAmount;
}

export function isCrypto(code: string): boolean {
  return findCrypto(code) !== undefined;
}
