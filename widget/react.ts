// @kasir/checkout/react: <KasirCheckout> for React 18 and 19, made with the Lit team's @lit/react. Importing this
// entry registers <kasir-checkout> and types the raw tag in React's JSX as well. A client component (React Server
// Components render it on the server as the tag with its attributes, and hydrate it in the browser).
'use client';

import { createComponent, type EventName } from '@lit/react';
import { isServer } from 'lit';
import * as React from 'react';
import type { KasirCheckoutEventMap } from './events.js';
import type { Locale, Strings } from './i18n.js';
import { KasirCheckout as KasirCheckoutElement } from './kasir-checkout.js';
import type {
  KasirCheckoutAttributes,
  KasirCheckoutOptions,
  KasirEventHandlers,
  KasirEventListeners,
} from './props.js';

export { KasirCheckoutElement };
export * from './events.js';
export type * from './props.js';
export type * from './types.js';
export type { Locale, Strings };

/** One callback per event of the element, each given the typed event (the handlers the Vue typings name too). */
export type KasirCheckoutCallbacks = KasirEventHandlers;

/** The props of `<KasirCheckout>`: the element's options, its callbacks, and the usual HTML attributes (`id`, `className`, `style`, `aria-*`...). */
export type KasirCheckoutProps = KasirCheckoutOptions &
  KasirCheckoutCallbacks &
  Omit<
    React.HTMLAttributes<KasirCheckoutElement>,
    keyof KasirCheckoutOptions | keyof KasirCheckoutCallbacks | 'children' | 'dangerouslySetInnerHTML'
  >;

/** An event's name, typed with its event for @lit/react. */
const named = <K extends keyof KasirCheckoutEventMap>(type: K) => type as EventName<KasirCheckoutEventMap[K]>;

/** Each callback's event (typed: a missing or mismatched one fails the build). */
const events: { [K in keyof KasirEventHandlers]-?: EventName<Parameters<NonNullable<KasirEventHandlers[K]>>[0]> } = {
  onKasirReady: named('kasir-ready'),
  onKasirMethodSelected: named('kasir-method-selected'),
  onKasirPending: named('kasir-pending'),
  onKasirCompleted: named('kasir-completed'),
  onKasirExpired: named('kasir-expired'),
  onKasirError: named('kasir-error'),
  onKasirClose: named('kasir-close'),
  onKasirOpenExternal: named('kasir-open-external'),
};

// @lit/react tells element properties from attributes by the class's prototype, which Lit fills when the class is
// defined: finalize it even when another copy of the element was registered first (then this class is not).
void KasirCheckoutElement.observedAttributes;

/** In the browser: properties set on the element, callbacks added as listeners of its events. */
const Client = createComponent({
  react: React,
  tagName: 'kasir-checkout',
  elementClass: KasirCheckoutElement,
  events,
  displayName: 'KasirCheckout',
});

/**
 * On the server (renderToString, Next.js, Remix, Astro): the tag with its attributes, so the markup says what to load
 * before hydration. @lit/react alone would drop the element's properties from server markup.
 */
const Server = React.forwardRef<KasirCheckoutElement, KasirCheckoutProps>(function KasirCheckout(props, _ref) {
  const attrs: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(props)) {
    // Not as attributes: callbacks, and `strings` (an object, set as a property once hydrated).
    if (value == null || typeof value === 'function' || typeof value === 'object' || key in events) continue;
    // An option under its attribute's name, as the element declares it (`checkout-id`); the rest as React names them.
    const attribute = KasirCheckoutElement.elementProperties.get(key)?.attribute;
    attrs[typeof attribute == 'string' ? attribute : key == 'className' ? 'class' : key] = value;
  }
  return React.createElement('kasir-checkout', attrs);
});
Server.displayName = 'KasirCheckout';

/**
 * `<kasir-checkout>` as a React component (React 18 and 19): props are set as the element's properties, and each
 * `kasir-*` event calls its `onKasir*` prop with the typed event. `ref` gives the element.
 *
 * ```tsx
 * <KasirCheckout endpoint="/api" checkoutId={order.checkoutId} onKasirCompleted={(e) => thank(e.detail.deposit)} />
 * ```
 */
export const KasirCheckout = (isServer || typeof document === 'undefined'
  ? Server
  : Client) as unknown as React.ForwardRefExoticComponent<
  KasirCheckoutProps & React.RefAttributes<KasirCheckoutElement>
>;

/**
 * The raw tag's props in JSX. React 19 sets the element's properties and listens to `onkasir-*` props
 * (`onkasir-completed={...}`); React 18 sets attributes only and ignores them: use `<KasirCheckout>` there.
 */
export interface KasirCheckoutTagProps
  extends
    React.DetailedHTMLProps<React.HTMLAttributes<KasirCheckoutElement>, KasirCheckoutElement>,
    KasirCheckoutAttributes,
    KasirEventListeners {}

declare module 'react' {
  // React 19's JSX namespace, and React 18's (whose global JSX extends it).
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace JSX {
    interface IntrinsicElements {
      'kasir-checkout': KasirCheckoutTagProps;
    }
  }
}
