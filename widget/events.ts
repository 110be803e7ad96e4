// The element's events: typed classes, bubbling and composed so a shop can listen on any ancestor.
import type { Checkout, CheckoutState, Deposit, Method } from './types.js';

abstract class KasirEvent<T> extends CustomEvent<T> {
  constructor(type: string, detail: T) {
    super(type, { detail, bubbles: true, composed: true });
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

/**
 * Something failed. The shopper sees a localized message chosen by the kind of failure (and "Try again" where
 * retrying can help); `message` is the server's own (or, with none, the shopper's), for the shop's developers, and
 * `status` the HTTP status when there was one.
 */
export class KasirErrorEvent extends KasirEvent<{ message: string; status?: number }> {
  constructor(message: string, status?: number) {
    super('kasir-error', { message, status });
  }
}

/**
 * One handler per event of the element, by its `on` name, each given the typed event: the React component's callbacks
 * (`onKasirCompleted={...}`) and the Vue template's listeners (`@kasir-completed="..."`).
 */
export interface KasirEventHandlers {
  /** The checkout is loaded; `event.detail.checkout`. */
  onKasirReady?: (event: KasirReadyEvent) => void;
  /** The shopper chose a method; `event.detail.method`. */
  onKasirMethodSelected?: (event: KasirMethodSelectedEvent) => void;
  /** A deposit awaits payment; `event.detail.deposit`. */
  onKasirPending?: (event: KasirPendingEvent) => void;
  /** The payment was received; `event.detail.deposit`. */
  onKasirCompleted?: (event: KasirCompletedEvent) => void;
  /** The time to pay ran out; `event.detail.deposit` (null when none was made). */
  onKasirExpired?: (event: KasirExpiredEvent) => void;
  /** Something failed; `event.detail.message` (for developers) and `event.detail.status`. */
  onKasirError?: (event: KasirErrorEvent) => void;
  /** The modal dialog was closed; `event.detail.state`. */
  onKasirClose?: (event: KasirCloseEvent) => void;
}

declare global {
  interface HTMLElementEventMap {
    'kasir-ready': KasirReadyEvent;
    'kasir-method-selected': KasirMethodSelectedEvent;
    'kasir-pending': KasirPendingEvent;
    'kasir-completed': KasirCompletedEvent;
    'kasir-expired': KasirExpiredEvent;
    'kasir-error': KasirErrorEvent;
    'kasir-close': KasirCloseEvent;
  }
}
