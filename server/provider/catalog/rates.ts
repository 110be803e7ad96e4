// The sandbox's built-in rate table: the price of one unit of each currency or crypto in IDR, as decimal text.
// The table a service uses is config.rates (this one, with the `rates` option or KASIR_SANDBOX_RATES laid over
// it); deposits/pricing.ts derives the rate between two currencies from it.

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
