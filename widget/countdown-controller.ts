import type { ReactiveController, ReactiveControllerHost } from 'lit';

export type Spoken = { n: number; unit: 'hour' | 'minute' | 'second' };

/**
 * Counts down to a server time, corrected for the difference between the server's clock and this one
 * (every answer carries `serverTime`). Re-renders the host each second; `spoken` changes only at coarse
 * steps (each hour above an hour, each 5 minutes above 5 minutes, each minute below, then at 30 s) so a
 * polite live region does not chatter, and is null again once the visible second changes, so what it said never
 * disagrees with the visible clock. Calls `onZero` once when the time is up.
 */
export class CountdownController implements ReactiveController {
  /** Milliseconds left (0 when up or unset). */
  remaining = 0;
  spoken: Spoken | null = null;
  private __end = NaN;
  private __skew = 0;
  private __timer?: ReturnType<typeof setInterval>;
  private __fired = false;
  private __step = NaN;
  /** The second `spoken` was said at. */
  private __said = NaN;

  private __host: ReactiveControllerHost;
  private __onZero: () => void;

  constructor(host: ReactiveControllerHost, onZero: () => void) {
    this.__host = host;
    this.__onZero = onZero;
    host.addController(this);
  }

  /** Counts to `endsAt`, taking `serverTime` (ISO) as "now" on the server. */
  set(endsAt: string, serverTime?: string) {
    const server = Date.parse(serverTime || '');
    if (server) this.__skew = server - Date.now();
    const end = Date.parse(endsAt);
    if (end !== this.__end) {
      this.__fired = false;
      this.__step = NaN;
    }
    this.__end = end;
    this.__tick();
    if (!this.__timer) this.__timer = setInterval(() => this.__tick(), 1000);
  }

  stop() {
    clearInterval(this.__timer);
    this.__timer = undefined;
  }

  hostDisconnected() {
    this.stop();
  }

  hostConnected() {
    if (this.__end && !this.__fired && !this.__timer) this.set(new Date(this.__end).toISOString());
  }

  private __tick() {
    this.remaining = Math.max(0, this.__end - (Date.now() + this.__skew)) || 0;
    const s = Math.ceil(this.remaining / 1000);
    // The step this moment falls in; the announcement changes only when the step does, and then says the time left.
    const step =
      s > 3600 ? -Math.ceil(s / 3600) : s > 300 ? Math.ceil(s / 300) * 5 : s > 30 ? Math.ceil(s / 60) : s ? 0.5 : 0;
    if (step !== this.__step) {
      this.__step = step;
      this.__said = s;
      this.spoken =
        s > 3600
          ? { n: Math.ceil(s / 3600), unit: 'hour' }
          : s > 30
            ? { n: Math.ceil(s / 60), unit: 'minute' }
            : s
              ? { n: s, unit: 'second' }
              : null;
      // Said as the step begins, then cleared once the visible clock moves on: left in place it would go on
      // saying a time the clock has already left behind ("6 seconds" at 0:05).
    } else if (s !== this.__said) this.spoken = null;
    this.__host.requestUpdate();
    if (!s && !this.__fired) {
      this.__fired = true;
      this.stop();
      this.__onZero();
    }
  }
}
