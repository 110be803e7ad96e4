// @kasir/checkout/vue: <kasir-checkout> in Vue 3 templates. `isCustomElement` tells Vue's compiler that the tag is a
// custom element (not a Vue component to resolve), and the types below let vue-tsc check its props and `@kasir-*`
// events. Nothing here loads Vue or the element at run time: import '@kasir/checkout' (or load the script) to register it.
import type { DefineComponent, HTMLAttributes } from 'vue';
import type { KasirEventHandlers } from './events.js';
import type { Locale, Strings } from './i18n.js';

/**
 * For Vue's `compilerOptions.isCustomElement`: true for `kasir-checkout`.
 *
 * ```ts
 * vue({ template: { compilerOptions: { isCustomElement } } })
 * ```
 */
export const isCustomElement = (tag: string): boolean => tag === 'kasir-checkout';

/** `<kasir-checkout>`'s attributes in a Vue template (`checkout-id` or `checkoutId`, `poll-interval` or `pollInterval`). */
export interface KasirCheckoutVueProps {
  /** Base URL of the widget API, e.g. `https://shop.example/api` or `/api` (required). */
  endpoint: string;
  /** A checkout the shop created on its server; wins over `amount` and `currency`. */
  checkoutId?: string;
  /** The shop's order, priced by its server's `priceOrder` hook: sent instead of `amount` and `currency` (`order-id`). */
  orderId?: string;
  /** What the order costs, a decimal string, e.g. `"150000"`. */
  amount?: string;
  /** The order's currency (default `IDR`). */
  currency?: string;
  /** `en` or `id` (default: the page's `lang`, else `en`). */
  locale?: Locale;
  /** First polling interval in ms (default 3000, at least 1000). */
  pollInterval?: number | `${number}`;
  /** Shows nothing until the element's `open()` (through a template ref), then a modal dialog; `@kasir-close` when it closes. */
  modal?: boolean;
  /** Texts that replace the element's own, by key (`{ choose: 'Pay with' }`); set as a property (`:strings` or `.strings`). */
  strings?: Strings;
}

/** The element's events as Vue listeners: `@kasir-completed="(e) => ..."` gets a `KasirCompletedEvent`. */
export type KasirCheckoutVueEvents = KasirEventHandlers;

declare module 'vue' {
  interface GlobalComponents {
    /** `<kasir-checkout>`: its props and events, and the usual HTML attributes (`id`, `aria-*`, `@click`...). */
    'kasir-checkout': DefineComponent<KasirCheckoutVueProps & KasirCheckoutVueEvents & Omit<HTMLAttributes, keyof KasirCheckoutVueProps>>;
  }
}
