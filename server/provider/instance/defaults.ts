// The sandbox's built-in defaults, plain data its configuration (config.ts) lays the options over and the domains
// above read: how long a deposit of each kind of method stays pending, and the rate table.
import type { FEE_KINDS } from '../../common/fee-policy.js';

/** Every kind of method a deposit is paid by: a fiat kind (FEE_KINDS) or crypto. */
export type MethodKind = (typeof FEE_KINDS)[number] | 'crypto';

/**
 * How long a deposit of each kind stays pending by default, in seconds (`expirySeconds`,
 * KASIR_EXPIRY_{VA,BANK,QRIS,EWALLET,CRYPTO}_SECONDS), in the order the configuration names the kinds.
 */
export const DEFAULT_EXPIRY_SECONDS = {
  va: 24 * 3600,
  bank: 24 * 3600,
  qris: 30 * 60,
  ewallet: 15 * 60,
  crypto: 60 * 60,
} as const satisfies Record<MethodKind, number>;

/** Every kind, in the configuration's order. */
export const KINDS = Object.keys(DEFAULT_EXPIRY_SECONDS) as MethodKind[];

// The built-in rate table: the price of one unit of each currency or crypto in IDR, as decimal text. The table a
// service uses is config.rates (this one, with the `rates` option or KASIR_SANDBOX_RATES laid over it);
// deposits/pricing.ts derives the rate between two currencies from it.

/** Prices in IDR by currency code or crypto id. */
export type RateTable = Readonly<Record<string, string>>;

export const DEFAULT_PRICES_IDR: RateTable = Object.freeze({
  IDR: '1',
  USD: '16500',
  SGD: '12300',
  EUR: '17800',
  MYR: '3700',
  PHP: '285',
  INR: '190',
  'USDT-ETHEREUM': '16480',
  'USDC-ETHEREUM': '16495',
  'ETH-ETHEREUM': '55000000',
  'USDC-POLYGON': '16495',
  'USDT-POLYGON': '16480',
  'IDRX-POLYGON': '1',
  'POL-POLYGON': '3100',
  'USDC-BASE': '16495',
  'USDC-STELLAR': '16495',
  'XLM-STELLAR': '4950',
});
