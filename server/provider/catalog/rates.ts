// The sandbox rate table: the price of one unit of each currency in IDR. A rate between two currencies is
// the quotient of their prices, to 12 significant digits (half-up). Override with KASIR_SANDBOX_RATES,
// a JSON object of { "<code>": "<price in IDR>" }.
import { Money } from '../money.js';
import type { Decimal } from 'decimal.js';

export const DEFAULT_PRICES_IDR: Readonly<Record<string, string>> = {
  IDR: '1', USD: '16500', SGD: '12300', EUR: '17800', MYR: '3700', PHP: '285', INR: '190',
  'USDT-ETHEREUM': '16480', 'USDC-ETHEREUM': '16495', 'ETH-ETHEREUM': '55000000',
  'USDC-POLYGON': '16495', 'USDT-POLYGON': '16480', 'IDRX-POLYGON': '1', 'POL-POLYGON': '3100',
  'USDC-BASE': '16495', 'USDC-STELLAR': '16495', 'XLM-STELLAR': '4950',
};

function loadPrices(): Record<string, string> {
  const prices: Record<string, string> = { ...DEFAULT_PRICES_IDR };
  const raw = process.env.KASIR_SANDBOX_RATES;
  if (raw) {
    try {
      for (const [code, price] of Object.entries(JSON.parse(raw) as Record<string, unknown>)) {
        if ((typeof price === 'string' || typeof price === 'number') && new Money(String(price)).greaterThan(0)) prices[code] = String(price);
      }
    } catch {
      console.error('[provider] KASIR_SANDBOX_RATES is not a JSON object of prices; using the default rate table');
    }
  }
  return prices;
}

const PRICES = loadPrices();

export const RATE_SIGNIFICANT_DIGITS = 12;

/** Units of `to` per unit of `from`; undefined when either is not in the table. */
export function rateOf(from: string, to: string): Decimal | undefined {
  if (from === to) return new Money(1);
  const a = PRICES[from];
  const b = PRICES[to];
  if (!a || !b) return undefined;
  return new Money(a).dividedBy(b).toSignificantDigits(RATE_SIGNIFICANT_DIGITS, Money.ROUND_HALF_UP);
}

export function hasRate(code: string): boolean {
  return code in PRICES;
}
