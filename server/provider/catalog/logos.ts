// Small SVG logos served by the sandbox at /static/logos/:file (plain badges in each brand's colours).
import { CRYPTOS } from './cryptos.js';
import { FIAT_CURRENCIES } from './currencies.js';
import { PAYMENT_METHODS } from './payment-methods.js';

interface Badge {
  label: string;
  bg: string;
  fg: string;
}

/** The brands' own badges; every other currency and crypto gets a plain one (below). */
const BRANDS: Readonly<Record<string, Badge>> = {
  'bca.svg': { label: 'BCA', bg: '#0060AF', fg: '#FFFFFF' },
  'bni.svg': { label: 'BNI', bg: '#F15A23', fg: '#FFFFFF' },
  'bri.svg': { label: 'BRI', bg: '#00529C', fg: '#FFFFFF' },
  'mandiri.svg': { label: 'mandiri', bg: '#003D79', fg: '#FFB700' },
  'permata.svg': { label: 'Permata', bg: '#E4002B', fg: '#FFFFFF' },
  'cimb.svg': { label: 'CIMB', bg: '#7A0019', fg: '#FFFFFF' },
  'bsi.svg': { label: 'BSI', bg: '#00A39D', fg: '#FFFFFF' },
  'qris.svg': { label: 'QRIS', bg: '#FFFFFF', fg: '#D6001C' },
  'ovo.svg': { label: 'OVO', bg: '#4C3494', fg: '#FFFFFF' },
  'dana.svg': { label: 'DANA', bg: '#118EEA', fg: '#FFFFFF' },
  'shopeepay.svg': { label: 'ShopeePay', bg: '#EE4D2D', fg: '#FFFFFF' },
  'gopay.svg': { label: 'GoPay', bg: '#00AED6', fg: '#FFFFFF' },
  'linkaja.svg': { label: 'LinkAja', bg: '#E82127', fg: '#FFFFFF' },
  'usdt.svg': { label: 'USDT', bg: '#26A17B', fg: '#FFFFFF' },
  'usdc.svg': { label: 'USDC', bg: '#2775CA', fg: '#FFFFFF' },
  'eth.svg': { label: 'ETH', bg: '#627EEA', fg: '#FFFFFF' },
  'pol.svg': { label: 'POL', bg: '#8247E5', fg: '#FFFFFF' },
  'idrx.svg': { label: 'IDRX', bg: '#1B2A4A', fg: '#FFFFFF' },
  'xlm.svg': { label: 'XLM', bg: '#000000', fg: '#FFFFFF' },
};
const BADGES: Readonly<Record<string, Badge>> = {
  ...Object.fromEntries(CRYPTOS.map((c) => [c.logo, { label: c.symbol, bg: '#374151', fg: '#FFFFFF' }])),
  ...Object.fromEntries(
    FIAT_CURRENCIES.map((c) => [`${c.code.toLowerCase()}.svg`, { label: c.code, bg: '#F3F4F6', fg: '#111827' }]),
  ),
  ...BRANDS,
};

// Every method the catalog ships has its brand's badge: a method without one stops the sandbox here, not a 404 later.
const unbranded = PAYMENT_METHODS.filter((m) => !Object.hasOwn(BRANDS, m.logo)).map((m) => `${m.code} (${m.logo})`);
if (unbranded.length) throw new Error(`catalog/logos.ts has no badge for ${unbranded.join(', ')}`);

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

function render({ label, bg, fg }: Badge): string {
  const size = label.length > 6 ? 11 : label.length > 4 ? 14 : 17;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="96" height="48" viewBox="0 0 96 48" role="img" aria-label="${escape(label)}">` +
    `<rect x="0.5" y="0.5" width="95" height="47" rx="8" fill="${bg}" stroke="#D1D5DB"/>` +
    `<text x="48" y="30" text-anchor="middle" font-family="Arial, Helvetica, sans-serif" font-weight="700" font-size="${size}" fill="${fg}">${escape(label)}</text>` +
    `</svg>`
  );
}

const SVGS: ReadonlyMap<string, string> = new Map(Object.entries(BADGES).map(([file, badge]) => [file, render(badge)]));

/** The SVG text of a logo file, or undefined. */
export function logoSvg(file: string): string | undefined {
  return SVGS.get(file);
}

export function logoUrl(baseUrl: string, file: string): string {
  return `${baseUrl}/static/logos/${file}`;
}
