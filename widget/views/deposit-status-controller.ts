import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { KasirErrorDetail } from '../events.js';
import type { Deposit } from '../types.js';

export interface DepositStatusOptions {
  /** Reads the deposit once (GET .../deposit, with If-None-Match). */
  read: () => Promise<Deposit>;
  /** Called with every deposit read or pushed. */
  onDeposit: (deposit: Deposit) => void;
  /** Called when a read fails (`read`'s ApiError; the controller keeps trying), and with `null` when one succeeds again. */
  onTrouble?: (error: KasirErrorDetail | null) => void;
  /** First interval in ms (the `poll-interval` attribute); 3 s by default. */
  interval?: () => number;
  /** Whether money may still arrive for a deposit of this kind after it expired (method-kinds.ts `late`). */
  late?: (deposit: Deposit) => boolean | undefined;
}

/** After the first minute the interval grows by half each poll up to this. */
const MAX_INTERVAL = 10_000;
const FAST_PHASE = 60_000;
/** How long an event stream may take to reconnect before the shopper is told the connection is lost. */
const RECONNECT_GRACE_MS = 5_000;

/**
 * Follows a pending deposit until it is completed or expired (a bank transfer or crypto one on past expiry): by server-sent events when the backend offers
 * them (`start(eventsUrl)`), else by polling: at once, every 3 s for the first minute, then backing off to 10 s.
 * One request is in flight at a time; polling pauses while the tab is hidden and polls at once when it shows
 * again; `checkNow()` polls out of turn (joining a request already in flight). An event stream that fails for
 * good falls back to polling.
 */
export class DepositStatusController implements ReactiveController {
  /** True while a read is in flight. */
  busy = false;
  private __running = false;
  private __sseUrl: string | null = null;
  private __source: EventSource | null = null;
  private __timer?: ReturnType<typeof setTimeout>;
  private __inFlight: Promise<void> | null = null;
  private __startedAt = 0;
  private __delay = 0;
  /** The element is off the page: no polling until it is back. */
  private __detached = false;

  private __host: ReactiveControllerHost;
  private __options: DepositStatusOptions;

  constructor(host: ReactiveControllerHost, options: DepositStatusOptions) {
    this.__host = host;
    this.__options = options;
    host.addController(this);
  }

  /** Starts following (idempotent while running). With `eventsUrl`, by SSE; otherwise by polling. */
  start(eventsUrl?: string | null) {
    if (this.__running) return;
    this.__running = true;
    this.__sseUrl = eventsUrl || null;
    this.__startedAt = Date.now();
    this.__delay = 0;
    this.__resume();
  }

  stop() {
    this.__running = false;
    this.__pause();
  }

  /** Reads the status now (one request in flight at most) and restarts the polling clock from here. */
  checkNow(): Promise<void> {
    if (this.__inFlight) return this.__inFlight;
    clearTimeout(this.__timer);
    this.busy = true;
    this.__host.requestUpdate();
    this.__inFlight = this.__options
      .read()
      .then(
        (deposit) => {
          this.__options.onTrouble?.(null);
          this.__accept(deposit);
        },
        (err) => this.__options.onTrouble?.(err),
      )
      .finally(() => {
        this.__inFlight = null;
        this.busy = false;
        this.__host.requestUpdate();
        this.__schedule();
      });
    return this.__inFlight;
  }

  hostConnected() {
    this.__detached = false;
    document.addEventListener('visibilitychange', this.__onVisibility);
    if (this.__running) this.__resume();
  }

  hostDisconnected() {
    this.__detached = true;
    document.removeEventListener('visibilitychange', this.__onVisibility);
    this.__pause();
  }

  private __accept(deposit: Deposit) {
    this.__options.onDeposit(deposit);
    // A bank transfer or crypto deposit can still be paid after it expired (docs/design.md, "Payments that do not go as
    // planned"): followed on, so the shopper reads that the shop will refund it. Anything else is over.
    // An expired deposit of a kind whose payer types the amount: a payment may still arrive.
    if (deposit.status !== 'pending' && !(deposit.status == 'expired' && this.__options.late?.(deposit))) this.stop();
  }

  private __resume() {
    if (this.__sseUrl && typeof EventSource === 'function') this.__listen(this.__sseUrl);
    else if (!document.hidden) this.checkNow();
  }

  private __pause() {
    clearTimeout(this.__timer);
    this.__timer = undefined;
    this.__source?.close();
    this.__source = null;
  }

  private __listen(url: string) {
    const source = (this.__source = new EventSource(url));
    source.addEventListener('deposit', (event) => {
      try {
        this.__accept(JSON.parse((event as MessageEvent).data));
      } catch {
        // a malformed message: the next one, or a poll, will tell
      }
    });
    // The server ends long streams on purpose and the browser reconnects within its retry (3 s): only a
    // reconnection that takes longer than that is trouble worth showing the shopper.
    let trouble: ReturnType<typeof setTimeout> | undefined;
    source.onopen = () => {
      clearTimeout(trouble);
      this.__options.onTrouble?.(null);
    };
    source.onerror = () => {
      clearTimeout(trouble);
      if (source.readyState !== EventSource.CLOSED) {
        trouble = setTimeout(
          () => source === this.__source && this.__options.onTrouble?.({ kind: 'network', message: 'reconnecting' }),
          RECONNECT_GRACE_MS,
        );
        return;
      }
      // The stream is gone for good (an error status, a wrong content type): poll instead.
      this.__source = null;
      this.__sseUrl = null;
      if (this.__running) this.checkNow();
    };
  }

  /** Plans the next poll: never while streaming, stopped or hidden. */
  private __schedule() {
    clearTimeout(this.__timer);
    // Off the page, a read that was in flight when the element was removed plans no next one.
    if (!this.__running || this.__detached || this.__source || document.hidden) return;
    const base = this.__options.interval?.() || 3000;
    this.__delay =
      Date.now() - this.__startedAt < FAST_PHASE
        ? base
        : Math.min(Math.max(base, MAX_INTERVAL), Math.max(this.__delay, base) * 1.5);
    this.__timer = setTimeout(() => this.checkNow(), this.__delay);
  }

  private __onVisibility = () => {
    if (!this.__running || this.__source) return;
    if (document.hidden) clearTimeout(this.__timer);
    else this.checkNow();
  };
}
