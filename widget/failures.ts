// What a failure other than a lost connection is (docs/design.md, "Seeing and testing an integration"): its kind, what
// the shopper reads and can do, and what the shop's developers read (the `kasir-error` event and the console). i18n.ts
// keeps the lost connection's words, which must show when nothing more can be loaded. Failures are rare: the element
// loads this module when one happens (its own chunk in the script-tag build), so the first paint does not carry it.
import type { ApiError } from './api.js';
import type { KasirErrorDetail, KasirErrorKind } from './events.js';
import type { Locale } from './i18n.js';
import en from './locales/failures.en.js';
import id from './locales/failures.id.js';

type Failure = keyof typeof en;

/** The words, one module per locale (locales/failures.<locale>.ts). */
const words = { en, id } satisfies Record<Locale, typeof en>;

/** What the element knows when something failed. */
export interface Context {
  /** Words in the element's language, with the shop's `strings` over them. */
  text(words: Record<Locale, Record<Failure, string>>): Record<Failure, string>;
  /** The element's attributes, for the developers' message about one it cannot use. */
  endpoint: string;
  amount: string;
  currency: string;
  /** A checkout is open: a 400 then refuses the shopper's choice. */
  open: boolean;
  /** Starting over makes sense (a checkout of the shop's own order was open). */
  restart?: 'restart';
}

/** A failure as the element shows it, and `detail` as it reports it (`kasir-error`). */
export interface Described {
  text: string;
  action?: 'retry' | 'restart' | 'back';
  detail: KasirErrorDetail;
}

/**
 * The developers' words for an attribute the element cannot use (kind `config`, `message` naming it); `server`: the
 * shop's server's reason, when it refused the attribute (a currency's decimal places are the server's to say).
 */
function attribute(name: string, c: Context, server?: string) {
  const value = c[name as 'endpoint' | 'amount' | 'currency'];
  if (!value && name != 'currency') {
    return name == 'endpoint'
      ? 'the endpoint attribute is missing: set it to the URL of your widget API, e.g. endpoint="/api"'
      : 'the amount attribute is missing: set amount (and currency), order-id or checkout-id';
  }
  // A thousands separator ("150.000" is Rp 150,000, not Rp 150): named, with the amount written without it. One "."
  // group in a currency with cents ("10.125" dollars) is a digit too many instead.
  const grouped = name == 'amount' && /^\d{1,3}(?:([.,' ])\d{3})+(?:[.,]\d+)?$/.exec(value);
  // One "." group ("150.000") is a separator in rupiah and three decimals in dollars: the currency's places are the
  // server's to say (not this browser's Intl data), so that one is left to its refusal, which names the separator too.
  const separator = grouped && (grouped[1] != '.' || /\..*[.,]/.test(value)) && grouped[1];
  if (separator) {
    return `invalid amount "${value}": it is written with ${separator == ' ' ? 'a space' : `"${separator}"`} as a thousands separator; write a plain decimal number without it, e.g. "${value.split(separator).join('').replace(',', '.')}"`;
  }
  const why =
    name == 'endpoint'
      ? 'the URL or path of your widget API, e.g. "https://shop.example/api" or "/api"'
      : name == 'currency'
        ? 'a 3-letter currency code, e.g. IDR'
        : `a plain decimal number above 0 with no thousands separator${server ? ` (the shop's server says: ${server})` : ''}, e.g. "150000"`;
  return `invalid ${name} "${value}": ${why}`;
}

/**
 * The kind of a failure (`config`: the page's setup; `server`: a 5xx; `refused`: another 4xx; a lost connection,
 * `network`, is the element's own to describe: undefined here),
 * the shopper's words for it (never a claim that may be untrue: the server's text is shown only below a refused
 * choice, whose 400 explains it), what the shopper can do, and the developers' message naming what to check.
 */
export default function describe(err: ApiError, c: Context): Described | undefined {
  const { status: s, url } = err;
  // A lost connection is the element's own to tell, as is an exception that is no ApiError (no kind).
  if (!err.kind || err.kind == 'network') return;
  const created = !c.open && /\/checkouts$/.test(url || '');
  let kind: KasirErrorKind = 'refused';
  let failure: Failure;
  let action: Described['action'];
  let message = err.message;
  if (err.kind == 'config') {
    kind = 'config';
    failure = 'setup';
    message = `kasir-checkout: ${attribute(message, c)}`;
  } else if (err.kind == 'server') {
    kind = 'server';
    failure = 'server';
    action = 'retry';
  } else if (created && /^amount:.*(decimal places|thousands separator)/.test(message)) {
    // The shop's server refused the amount (more decimal places than the currency has, or a thousands separator: its
    // to say, not Intl's).
    kind = 'config';
    failure = 'setup';
    const reason = message.replace(/^amount:\s*/, '');
    message = `kasir-checkout: ${/separator/.test(reason) ? `invalid amount "${c.amount}": ${reason}` : attribute('amount', c, reason)}`;
  } else if (!message || (created && (s == 404 || /^(currency|orderId)\b/.test(message)))) {
    // Not the widget API (a wrong endpoint), or the shop's server will not open a checkout for what the page asks
    // (a currency it does not accept, which it names; an order it does not know): the page's setup.
    kind = 'config';
    failure = 'setup';
    if (!err.message)
      message = `kasir-checkout: ${url} answered HTTP ${s}, not as the widget API: check the endpoint attribute "${c.endpoint}"`;
  } else if (s == 403 || (s == 401 && /^orderToken\b/.test(message))) {
    // The shop's server refused this page's origin (KASIR_ALLOWED_ORIGINS), or the order's token (order-token: missing,
    // another order's or expired): its message names the origin and the setting, or orderToken.
    kind = 'config';
    failure = 'setup';
    message = `kasir-checkout: ${message}`;
  } else if (s == 429) {
    failure = 'busy';
    action = 'retry';
  } else if (s == 404) {
    failure = 'gone';
    action = c.restart;
  } else if (s == 400) {
    // A refused choice (a method not offered, an amount out of its range, a closed checkout): choose again.
    [failure, action] = c.open ? ['refused', 'back'] : ['badAmount'];
  } else {
    failure = 'failed';
    action = c.restart;
  }
  const text = c.text(words)[failure];
  return { text, action, detail: { kind, message: message || text, status: s, url } };
}
