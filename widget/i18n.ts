// The element's locales (its words: one file per language in locales/, loaded when needed; every other place words
// live has one file per language too, locales/<place>.<locale>.ts, each place's table of them a `Record<Locale, ...>`;
// the words of a lost connection are here), and locale-aware money and duration formatting. Keys are unique across all
// of them: a shop's `strings` replace any text by its key. A new locale is a row in `formats`, a file in locales/ for
// the element and one per place, each named by the compiler.

export type Locale = 'en' | 'id';
/** A locale file's words (locales/). */
export type Words = typeof import('./locales/en.js').default;
/** The element's words: its locale file's and those of a lost connection (`offline`). */
export type Messages = Words & (typeof offline)[Locale];
/** A shop's texts by key (a list of steps is an array), replacing the element's own in every locale. */
export type Strings = Record<string, string | string[]>;

/** How each locale writes numbers: its Intl tag, and a token amount's group and decimal separators. */
const formats = {
  en: { tag: 'en-US', group: ',', point: '.' },
  id: { tag: 'id-ID', group: '.', point: ',' },
} satisfies Record<Locale, { tag: string; group: string; point: string }>;

/** The element's words per locale, each its own file (and chunk): only the shopper's language is downloaded. */
export const locales: Record<Locale, () => Promise<{ default: Words }>> = {
  en: () => import('./locales/en.js'),
  id: () => import('./locales/id.js'),
};

/** The element's locale of a language tag (`id-ID` is `id`), if it has one. */
export const localeOf = (tag?: string) => {
  const language = /^[a-z]+\b/i.exec(tag!)?.[0].toLowerCase() as Locale;
  return formats.hasOwnProperty(language) ? language : undefined;
};

/** The shopper's locale: the element's `locale`, else the page's `lang`, else the browser's language, else English. */
export const shopperLocale = (attribute?: string | null): Locale =>
  [attribute!, document.documentElement.lang, navigator.language].map(localeOf).find(Boolean) || 'en';

/**
 * What the element says when its words cannot be loaded (the connection is lost), in every locale: the only words
 * the first paint carries (a locale file has the rest).
 */
export const offline = {
  en: {
    errorTitle: 'Something went wrong',
    noConnection: 'We could not reach the payment service. Please try again in a moment.',
    retry: 'Try again',
  },
  id: {
    errorTitle: 'Terjadi kesalahan',
    noConnection: 'Layanan pembayaran tidak dapat dihubungi. Silakan coba lagi sebentar lagi.',
    retry: 'Coba lagi',
  },
} satisfies Record<Locale, Record<'errorTitle' | 'noConnection' | 'retry', string>>;

/** Fills `{0}`, `{1}` ... in a message. */
export const fill = (text: string, ...values: string[]) => text.replace(/\{(\d)\}/g, (_, i) => values[+i] ?? '');

/**
 * A token amount as shown and copied (docs/design.md, "The shopper's choice, on any device"): the exact string without
 * trailing zeros ("0.50" is "0.5").
 */
export const exact = (amount: string) => amount.replace(/\.0*$|(\.\d*?)0+$/, '$1');

/**
 * Formats a decimal string exactly (Intl formats numeric strings without going through a float), with as many
 * fraction digits as the string carries: "150000" IDR is "Rp 150.000" in `id`, "Rp 150,000" in `en`. A token amount
 * (with its `symbol`) is grouped by hand, digit for digit, without trailing zeros: "1234.500000" USDC is "1,234.5 USDC" in `en`, since its
 * 18 decimals (ETH) may be more than Intl keeps and an older engine would round it through a float.
 */
export function money(amount: string, currency: string, locale: Locale, symbol?: string) {
  if (symbol) {
    const [whole, fraction] = exact(amount).split('.');
    const { group, point } = formats[locale];
    return `${whole.replace(/\B(?=(\d{3})+$)/g, group)}${fraction ? point + fraction : ''} ${symbol}`;
  }
  const digits = (amount.split('.')[1] || '').length;
  try {
    return (moneyFormats[`${locale} ${currency} ${digits}`] ||= new Intl.NumberFormat(formats[locale].tag, {
      style: 'currency',
      currency,
      currencyDisplay: 'narrowSymbol',
      minimumFractionDigits: digits,
      maximumFractionDigits: digits,
    })).format(amount as unknown as number);
  } catch {
    return `${amount} ${currency}`;
  }
}

/** Made once per locale, currency and precision (a method list formats the same few again and again). */
const moneyFormats: Record<string, Intl.NumberFormat> = {};

/**
 * Readies the browser's number formatting while the checkout is still on its way: a page's first Intl.NumberFormat
 * loads the engine's locale data (CPU time a phone notices), which would otherwise fall between
 * the checkout's arrival and the method list.
 */
export const prepareFormats = (locale: Locale) => void new Intl.NumberFormat(formats[locale].tag);

/** "14 minutes" / "14 menit": a spoken duration for a polite announcement. */
export function duration(value: number, unit: 'hour' | 'minute' | 'second', locale: Locale) {
  return new Intl.NumberFormat(formats[locale].tag, { style: 'unit', unit, unitDisplay: 'long' }).format(value);
}

/** "23:59:07" or "14:07": the visible countdown of `ms` (not negative) left. */
export function clock(ms: number) {
  const s = Math.ceil(ms / 1000);
  const two = (n: number) => ('0' + n).slice(-2);
  const h = Math.floor(s / 3600);
  return `${h ? `${h}:${two(Math.floor(s / 60) % 60)}` : Math.floor(s / 60)}:${two(s % 60)}`;
}
