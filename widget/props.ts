// The element's public surface, declared once: its options (KasirCheckoutOptions, here) and its events
// (KasirCheckoutEventMap, events.ts). The class (kasir-checkout.ts), the React component and the raw tag in JSX
// (react.ts) and the Vue template's props and listeners (vue.ts) are all derived from these two. Types only: nothing
// here reaches the script a shopper downloads.
import type { KasirCheckoutEventMap } from './events.js';
import type { Locale, Strings } from './i18n.js';

/** The element's options: each a property and an attribute of its name in kebab case (`checkoutId`: `checkout-id`), but `strings`. */
export interface KasirCheckoutOptions {
  /** Base URL of the widget API, e.g. `https://shop.example/api` or `/api` (required). */
  endpoint: string;
  /** A checkout the shop created on its server; wins over `amount` and `currency`. */
  checkoutId?: string;
  /** The shop's order, priced by its server's `priceOrder` hook: sent instead of `amount` and `currency`. */
  orderId?: string;
  /**
   * The order's token, made on the shop's server by `kasir.orderToken(orderId)`: with `orderId`, what lets this page
   * open and act on the order's checkout (docs/security.md). Sent with every request that opens or acts on it.
   */
  orderToken?: string;
  /** What the order costs, a decimal string with at most the currency's decimal places, e.g. `"150000"` (no thousands separator). */
  amount?: string;
  /** The order's currency (default `IDR`). */
  currency?: string;
  /** `en` or `id` (default: the page's `lang`, else the browser's language, else `en`). */
  locale?: Locale;
  /** First polling interval in ms (default 3000, at least 1000; backs off to 10 s after a minute). */
  pollInterval?: number;
  /** Shows nothing until the element's `open()`, then a modal dialog (the payment goes on while it is closed); `kasir-close` when it closes. */
  modal?: boolean;
  /** Texts that replace the element's own, by key (`{ choose: 'Pay with' }`): a property only, never an attribute. */
  strings?: Strings;
}

/** An option's attribute: its name in kebab case (`pollInterval`: `poll-interval`). */
export type AttributeName<K extends string> = K extends `${infer H}${infer T}`
  ? `${H extends Lowercase<H> ? H : `-${Lowercase<H>}`}${AttributeName<T>}`
  : K;

/** A value as markup may write it: a number also as a numeric string. */
type Written<T> = T extends number ? T | `${number}` : T;

/** The element's attributes, as markup writes them (`checkout-id`, `poll-interval="5000"`); `strings` is not one. */
export type KasirCheckoutAttributes = {
  [K in keyof KasirCheckoutOptions as K extends 'strings' ? never : AttributeName<K>]: Written<KasirCheckoutOptions[K]>;
};

/** The options as a template sets them (Vue: camelCase or kebab-case names, a number also as a numeric string). */
export type KasirCheckoutTemplateProps = { [K in keyof KasirCheckoutOptions]: Written<KasirCheckoutOptions[K]> };

/** `kasir-method-selected`: `KasirMethodSelected`. */
type Pascal<S extends string> = S extends `${infer H}-${infer T}` ? `${Capitalize<H>}${Pascal<T>}` : Capitalize<S>;

/**
 * One handler per event of the element, by its `on` name, each given the typed event: the React component's callbacks
 * (`onKasirCompleted={...}`) and the Vue template's listeners (`@kasir-completed="..."`).
 */
export type KasirEventHandlers = {
  [K in keyof KasirCheckoutEventMap as `on${Pascal<K>}`]?: (event: KasirCheckoutEventMap[K]) => void;
};

/** The same handlers by the event's own name (`onkasir-completed`), as React 19 listens on a custom element's tag. */
export type KasirEventListeners = {
  [K in keyof KasirCheckoutEventMap as `on${K}`]?: (event: KasirCheckoutEventMap[K]) => void;
};
