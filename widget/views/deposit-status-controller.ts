import type { ReactiveController } from 'lit';
import { detail } from '../api.js';
import type { KasirErrorDetail } from '../events.js';
import type { KasirCheckout } from '../kasir-checkout.js';
import { methodKinds } from '../method-kinds.js';
import type { Deposit } from '../types.js';

/** After the first minute the interval grows by half each poll up to this. */
const MAX_INTERVAL = 10_000;
const FAST_PHASE = 60_000;
/** How long an event stream may take to reconnect before the shopper is told the connection is lost. */
const RECONNECT_GRACE_MS = 5_000;

/**
 * Follows the element's pending deposit until it is completed or expired (a bank transfer or crypto one on past
 * expiry): by server-sent events when the backend offers them (`start(eventsUrl)`), else by polling: at once, every
 * `poll-interval` (3 s by default) for the first minute, then backing off to 10 s. One request is in flight at a time;
 * polling pauses while the tab is hidden and polls at once when it shows again; `checkNow()` polls out of turn
 * (joining a request already in flight). An event stream that fails for good falls back to polling. The element's own
 * code, in the views' chunks so that the first paint does not carry it: it reads and sets the element's private
 * members by name (`el['__deposit']`), as the element itself would.
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

  private __host: KasirCheckout;

  constructor(host: KasirCheckout) {
    this.__host = host;
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
    const el = this.__host;
    this.__inFlight = el['__api']
      .call<Deposit>(`/checkouts/${el['__checkout']!.id}/deposit`)
      .then(
        (deposit) => {
          this.__trouble(null);
          this.__accept(deposit);
        },
        (err) => this.__trouble(err),
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

  /**
   * A deposit read or pushed, shown unless it is of an older version than the deposit shown (a read begun before a
   * switch, or a cached 304: versions order a deposit's changes, clocks do not) or the element moved on to another
   * checkout meanwhile.
   */
  private __accept(deposit: Deposit) {
    const el = this.__host;
    if (deposit.id === el['__deposit']?.id && deposit.version >= el['__deposit'].version) el['__deposit'] = deposit;
    // A bank transfer or crypto deposit can still be paid after it expired (docs/design.md, "Payments that do not go as
    // planned"): followed on, so the shopper reads that the shop will refund it. Anything else is over.
    // An expired deposit of a kind whose payer types the amount: a payment may still arrive.
    if (deposit.status !== 'pending' && !(deposit.status == 'expired' && methodKinds[deposit.method.kind]?.late))
      this.stop();
  }

  /**
   * A failed read (the follower keeps trying), or `null` once one succeeds again: reported once, when the trouble
   * begins; the shopper reads "Connection lost. Retrying…".
   */
  private __trouble(err: KasirErrorDetail | null) {
    const el = this.__host;
    if (err && !el['__offline']) el['__report'](detail(err, el['__t'].offline));
    el['__offline'] = !!err;
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
      this.__trouble(null);
    };
    source.onerror = () => {
      clearTimeout(trouble);
      if (source.readyState !== EventSource.CLOSED) {
        trouble = setTimeout(
          () => source === this.__source && this.__trouble({ kind: 'network', message: 'reconnecting' }),
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
    // `poll-interval`: not a positive number, the default; else at least a second, so a typo cannot flood the server.
    const { pollInterval } = this.__host;
    const base = pollInterval > 0 ? Math.max(1000, pollInterval) : 3000;
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
