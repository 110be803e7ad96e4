// @kasir/checkout/react: <KasirCheckout> for React 18 and 19, made with the Lit team's @lit/react. Importing this
// entry registers <kasir-checkout> and types the raw tag in React's JSX as well. A client component (React Server
// Components render it on the server as the tag with its attributes, and hydrate it in the browser).
'use client';

import { createComponent, type EventName } from '@lit/react';
import { isServer } from 'lit';
import * as React from 'react';
import type {
  KasirCloseEvent,
  KasirCompletedEvent,
  KasirErrorEvent,
  KasirEventHandlers,
  KasirExpiredEvent,
  KasirMethodSelectedEvent,
  KasirOpenExternalEvent,
  KasirPendingEvent,
  KasirReadyEvent,
} from './events.js';
import type { Locale, Strings } from './i18n.js';
import { KasirCheckout as KasirCheckoutElement } from './kasir-checkout.js';

export { KasirCheckoutElement };
export * from './events.js';
export type * from './types.js';
export type { Locale, Strings };

/** The element's own props: what its attributes say, under their property names. */
export interface KasirCheckoutOptions {
  /** Base URL of the widget API, e.g. `https://shop.example/api` or `/api` (required). */
  endpoint: string;
  /** A checkout the shop created on its server; wins over `amount` and `currency`. */
  checkoutId?: string;
  /** The shop's order, priced by its server's `priceOrder` hook: sent instead of `amount` and `currency`. */
  orderId?: string;
  /** What the order costs, a decimal string, e.g. `"150000"`. */
  amount?: string;
  /** The order's currency (default `IDR`). */
  currency?: string;
  /** `en` or `id` (default: the page's `lang`, else `en`). */
  locale?: Locale;
  /** First polling interval in ms (default 3000, at least 1000). */
  pollInterval?: number;
  /** Shows nothing until the element's `open()` (through `ref`), then a modal dialog; `onKasirClose` when it closes. */
  modal?: boolean;
  /** Texts that replace the element's own, by key (`{ choose: 'Pay with' }`). */
  strings?: Strings;
}

/** One callback per event of the element, each given the typed event (the handlers the Vue typings name too). */
export type KasirCheckoutCallbacks = KasirEventHandlers;

/** The props of `<KasirCheckout>`: the element's options, its callbacks, and the usual HTML attributes (`id`, `className`, `style`, `aria-*`...). */
export type KasirCheckoutProps = KasirCheckoutOptions &
  KasirCheckoutCallbacks &
  Omit<React.HTMLAttributes<KasirCheckoutElement>, keyof KasirCheckoutOptions | keyof KasirCheckoutCallbacks | 'children' | 'dangerouslySetInnerHTML'>;

const events = {
  onKasirReady: 'kasir-ready' as EventName<KasirReadyEvent>,
  onKasirMethodSelected: 'kasir-method-selected' as EventName<KasirMethodSelectedEvent>,
  onKasirPending: 'kasir-pending' as EventName<KasirPendingEvent>,
  onKasirCompleted: 'kasir-completed' as EventName<KasirCompletedEvent>,
  onKasirExpired: 'kasir-expired' as EventName<KasirExpiredEvent>,
  onKasirError: 'kasir-error' as EventName<KasirErrorEvent>,
  onKasirClose: 'kasir-close' as EventName<KasirCloseEvent>,
  onKasirOpenExternal: 'kasir-open-external' as EventName<KasirOpenExternalEvent>,
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

const attributes: Record<string, string> = { className: 'class', checkoutId: 'checkout-id', orderId: 'order-id', pollInterval: 'poll-interval' };

/**
 * On the server (renderToString, Next.js, Remix, Astro): the tag with its attributes, so the markup says what to load
 * before hydration. @lit/react alone would drop the element's properties from server markup.
 */
const Server = React.forwardRef<KasirCheckoutElement, KasirCheckoutProps>(function KasirCheckout(props, _ref) {
  const attrs: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(props)) {
    // Not as attributes: callbacks, and `strings` (an object, set as a property once hydrated).
    if (value == null || typeof value === 'function' || typeof value === 'object' || key in events) continue;
    attrs[attributes[key] ?? key] = value;
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
export const KasirCheckout = (isServer || typeof document === 'undefined' ? Server : Client) as unknown as React.ForwardRefExoticComponent<
  KasirCheckoutProps & React.RefAttributes<KasirCheckoutElement>
>;

/**
 * The raw tag's props in JSX. React 19 sets the element's properties and listens to `onkasir-*` props
 * (`onkasir-completed={...}`); React 18 sets attributes only and ignores them: use `<KasirCheckout>` there.
 */
export interface KasirCheckoutTagProps extends React.DetailedHTMLProps<React.HTMLAttributes<KasirCheckoutElement>, KasirCheckoutElement> {
  endpoint: string;
  'checkout-id'?: string;
  'order-id'?: string;
  amount?: string;
  currency?: string;
  locale?: Locale;
  'poll-interval'?: number | `${number}`;
  modal?: boolean;
  'onkasir-ready'?: (event: KasirReadyEvent) => void;
  'onkasir-method-selected'?: (event: KasirMethodSelectedEvent) => void;
  'onkasir-pending'?: (event: KasirPendingEvent) => void;
  'onkasir-completed'?: (event: KasirCompletedEvent) => void;
  'onkasir-expired'?: (event: KasirExpiredEvent) => void;
  'onkasir-error'?: (event: KasirErrorEvent) => void;
  'onkasir-close'?: (event: KasirCloseEvent) => void;
  'onkasir-open-external'?: (event: KasirOpenExternalEvent) => void;
}

declare module 'react' {
  // React 19's JSX namespace, and React 18's (whose global JSX extends it).
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace JSX {
    interface IntrinsicElements {
      'kasir-checkout': KasirCheckoutTagProps;
    }
  }
}
