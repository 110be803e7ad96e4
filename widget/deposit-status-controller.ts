import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { KasirErrorDetail } from './events.js';
import type { Deposit } from './types.js';

export interface DepositStatusOptions {
  /** Reads the deposit once (GET .../deposit, with If-None-Match). */
  read: () => Promise<Deposit>;
  /** Called with every deposit read or pushed. */
  onDeposit: (deposit: Deposit) => void;
  /** Called when a read fails (`read`'s ApiError; the controller keeps trying), and with `null` when one succeeds again. */
  onTrouble?: (error: KasirErrorDetail | null) => void;
  /** First interval in ms (the `poll-interval` attribute); 3 s by default. */
  interval?: () => number;
}

/** After the first minute the interval grows by half each poll up to this. */
const MAX_INTERVAL = 10_000;
const FAST_PHASE = 60_000;
/** How long an event stream may take to reconnect before the shopper is told the connection is lost. */
const RECONNECT_GRACE_MS = 5_000;

/** The kinds whose payer types the amount, so a payment may still arrive after expiry. */
const lateKind = (deposit: Deposit) => deposit.status == 'expired' && /^(bank|crypto)$/.test(deposit.method.kind);

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
  private running = false;
  private sseUrl: string | null = null;
  private source: EventSource | null = null;
  private timer?: ReturnType<typeof setTimeout>;
  private inFlight: Promise<void> | null = null;
  private startedAt = 0;
  private delay = 0;

  private host: ReactiveControllerHost;
  private options: DepositStatusOptions;

  constructor(host: ReactiveControllerHost, options: DepositStatusOptions) {
    this.host = host;
    this.options = options;
    host.addController(this);
  }

  /** Starts following (idempotent while running). With `eventsUrl`, by SSE; otherwise by polling. */
  start(eventsUrl?: string | null) {
    if (this.running) return;
    this.running = true;
    this.sseUrl = eventsUrl || null;
    this.startedAt = Date.now();
    this.delay = 0;
    this.resume();
  }

  stop() {
    this.running = false;
    this.pause();
  }

  /** Reads the status now (one request in flight at most) and restarts the polling clock from here. */
  checkNow(): Promise<void> {
    if (this.inFlight) return this.inFlight;
    clearTimeout(this.timer);
    this.busy = true;
    this.host.requestUpdate();
    this.inFlight = this.options
      .read()
      .then(
        (deposit) => {
          this.options.onTrouble?.(null);
          this.accept(deposit);
        },
        (err) => this.options.onTrouble?.(err),
      )
      .finally(() => {
        this.inFlight = null;
        this.busy = false;
        this.host.requestUpdate();
        this.schedule();
      });
    return this.inFlight;
  }

  hostConnected() {
    document.addEventListener('visibilitychange', this.onVisibility);
    if (this.running) this.resume();
  }

  hostDisconnected() {
    document.removeEventListener('visibilitychange', this.onVisibility);
    this.pause();
  }

  private accept(deposit: Deposit) {
    this.options.onDeposit(deposit);
    // A bank transfer or crypto deposit can still be paid after it expired (DESIGN.md 10): followed on, so the shopper
    // reads that the shop will refund it. Anything else is over.
    if (deposit.status !== 'pending' && !lateKind(deposit)) this.stop();
  }

  private resume() {
    if (this.sseUrl && typeof EventSource === 'function') this.listen(this.sseUrl);
    else if (!document.hidden) this.checkNow();
  }

  private pause() {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.source?.close();
    this.source = null;
  }

  private listen(url: string) {
    const source = (this.source = new EventSource(url));
    source.addEventListener('deposit', (event) => {
      try {
        this.accept(JSON.parse((event as MessageEvent).data));
      } catch {
        // a malformed message: the next one, or a poll, will tell
      }
    });
    // The server ends long streams on purpose and the browser reconnects within its retry (3 s): only a
    // reconnection that takes longer than that is trouble worth showing the shopper.
    let trouble: ReturnType<typeof setTimeout> | undefined;
    source.onopen = () => {
      clearTimeout(trouble);
      this.options.onTrouble?.(null);
    };
    source.onerror = () => {
      clearTimeout(trouble);
      if (source.readyState !== EventSource.CLOSED) {
        trouble = setTimeout(() => source === this.source && this.options.onTrouble?.({ kind: 'network', message: 'reconnecting' }), RECONNECT_GRACE_MS);
        return;
      }
      // The stream is gone for good (an error status, a wrong content type): poll instead.
      this.source = null;
      this.sseUrl = null;
      if (this.running) this.checkNow();
    };
  }

  /** Plans the next poll: never while streaming, stopped or hidden. */
  private schedule() {
    clearTimeout(this.timer);
    if (!this.running || this.source || document.hidden) return;
    const base = this.options.interval?.() || 3000;
    this.delay =
      Date.now() - this.startedAt < FAST_PHASE ? base : Math.min(Math.max(base, MAX_INTERVAL), Math.max(this.delay, base) * 1.5);
    this.timer = setTimeout(() => this.checkNow(), this.delay);
  }

  private onVisibility = () => {
    if (!this.running || this.source) return;
    if (document.hidden) clearTimeout(this.timer);
    else this.checkNow();
  };
}
