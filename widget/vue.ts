// @kasir/checkout/vue: <kasir-checkout> in Vue 3 templates. `isCustomElement` tells Vue's compiler that the tag is a
// custom element (not a Vue component to resolve), and the types below let vue-tsc check its props and `@kasir-*`
// events. Nothing here loads Vue or the element at run time: import '@kasir/checkout' (or load the script) to register it.
import type { DefineComponent, HTMLAttributes } from 'vue';
import type { KasirCheckoutTemplateProps, KasirEventHandlers } from './props.js';

/**
 * For Vue's `compilerOptions.isCustomElement`: true for `kasir-checkout`.
 *
 * ```ts
 * vue({ template: { compilerOptions: { isCustomElement } } })
 * ```
 */
export const isCustomElement = (tag: string): boolean => tag === 'kasir-checkout';

/** `<kasir-checkout>`'s options in a Vue template (`checkout-id` or `checkoutId`, `poll-interval` or `pollInterval`; `strings` as a property: `:strings` or `.strings`). */
export type KasirCheckoutVueProps = KasirCheckoutTemplateProps;

/** The element's events as Vue listeners: `@kasir-completed="(e) => ..."` gets a `KasirCompletedEvent`. */
export type KasirCheckoutVueEvents = KasirEventHandlers;

declare module 'vue' {
  interface GlobalComponents {
    /** `<kasir-checkout>`: its props and events, and the usual HTML attributes (`id`, `aria-*`, `@click`...). */
    'kasir-checkout': DefineComponent<
      KasirCheckoutVueProps & KasirCheckoutVueEvents & Omit<HTMLAttributes, keyof KasirCheckoutVueProps>
    >;
  }
}
