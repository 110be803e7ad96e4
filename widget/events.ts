// The element's events: typed classes, bubbling and composed so a shop can listen on any ancestor.
import type { Checkout, CheckoutState, Deposit, Method } from './types.js';

abstract class KasirEvent<T> extends CustomEvent<T> {
  constructor(type: string, detail: T, cancelable?: boolean) {
    super(type, { detail, bubbles: true, composed: true, cancelable });
  }
}

/** The checkout is loaded (created or resumed); `detail.checkout` is the widget API's Checkout. */
export class KasirReadyEvent extends KasirEvent<{ checkout: Checkout }> {
  constructor(checkout: Checkout) {
    super('kasir-ready', { checkout });
  }
}

/** The shopper chose a payment method. */
export class KasirMethodSelectedEvent extends KasirEvent<{ method: Method }> {
  constructor(method: Method) {
    super('kasir-method-selected', { method });
  }
}

/** A deposit waits for the shopper's payment (after a choice, or resumed on reload). */
export class KasirPendingEvent extends KasirEvent<{ deposit: Deposit }> {
  constructor(deposit: Deposit) {
    super('kasir-pending', { deposit });
  }
}

/** The payment was received. */
export class KasirCompletedEvent extends KasirEvent<{ deposit: Deposit }> {
  constructor(deposit: Deposit) {
    super('kasir-completed', { deposit });
  }
}

/** The deposit (or, before any choice, the checkout) expired. */
export class KasirExpiredEvent extends KasirEvent<{ deposit: Deposit | null }> {
  constructor(deposit: Deposit | null) {
    super('kasir-expired', { deposit });
  }
}

/** The modal dialog was closed (Escape, its close button, or `close()`); the payment goes on. `detail.state` is the phase. */
export class KasirCloseEvent extends KasirEvent<{ state: CheckoutState }> {
  constructor(state: CheckoutState) {
    super('kasir-close', { state });
  }
}

/** What kind of failure a `kasir-error` is (docs/design.md, "Seeing and testing an integration"). */
export type KasirErrorKind =
  /** The page's setup: a missing or invalid attribute, an endpoint that is not the widget API, an order the shop's server refuses to create. */
  | 'config'
  /** No answer: the connection, CORS, or a screen that could not be loaded. */
  | 'network'
  /** The shop's server or the payment service failed (HTTP 5xx). */
  | 'server'
  /** The server refused a request (HTTP 4xx): an unknown or ended checkout, a method it will not take, too many attempts. */
  | 'refused';

/** A failure, for the shop's developers (the element also writes it to the console, once). */
export interface KasirErrorDetail {
  kind: KasirErrorKind;
  /** The server's own message, or the element's: what is wrong and what to check. */
  message: string;
  /** The HTTP status, when there was an answer. */
  status?: number;
  /** The URL that failed, when a request did. */
  url?: string;
}

/**
 * Something failed. The shopper sees a localized message chosen by the kind of failure (and "Try again" where
 * retrying can help); `detail` says what failed for the shop's developers.
 */
export class KasirErrorEvent extends KasirEvent<KasirErrorDetail> {
  constructor(detail: KasirErrorDetail) {
    super('kasir-error', detail);
  }
}

/**
 * A link leaving the page is about to open (docs/design.md, "The shopper's choice, on any device"): a crypto wallet's
 * payment request (`part="open-wallet"`, `kind: 'wallet'`) or an e-wallet's approval page (`part="open-app"`,
 * `kind: 'app'`). Cancelable: a shop inside an app's WebView, where such links do not open by themselves, calls
 * `preventDefault()` and opens `url` its own way.
 */
export class KasirOpenExternalEvent extends KasirEvent<{ url: string; kind: 'wallet' | 'app' }> {
  constructor(url: string, kind: 'wallet' | 'app') {
    super('kasir-open-external', { url, kind }, true);
  }
}

/** The element's events by name (each documented by its class): the one list the DOM's event map, the React component's callbacks and the Vue template's listeners are derived from (props.ts). */
export interface KasirCheckoutEventMap {
  /** The checkout is loaded; `event.detail.checkout`. */
  'kasir-ready': KasirReadyEvent;
  /** The shopper chose a method; `event.detail.method`. */
  'kasir-method-selected': KasirMethodSelectedEvent;
  /** A deposit awaits payment; `event.detail.deposit`. */
  'kasir-pending': KasirPendingEvent;
  /** The payment was received; `event.detail.deposit`. */
  'kasir-completed': KasirCompletedEvent;
  /** The time to pay ran out; `event.detail.deposit` (null when none was made). */
  'kasir-expired': KasirExpiredEvent;
  /** Something failed; `event.detail`: `kind`, `message` (for developers), `status`, `url`. */
  'kasir-error': KasirErrorEvent;
  /** The modal dialog was closed; `event.detail.state`. */
  'kasir-close': KasirCloseEvent;
  /** A link to a wallet or an e-wallet app is about to open; `preventDefault()` to open `event.detail.url` yourself. */
  'kasir-open-external': KasirOpenExternalEvent;
}

declare global {
  interface HTMLElementEventMap extends KasirCheckoutEventMap {}
}
