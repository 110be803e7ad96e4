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
  private end = NaN;
  private skew = 0;
  private timer?: ReturnType<typeof setInterval>;
  private fired = false;
  private step = NaN;
  /** The second `spoken` was said at. */
  private said = NaN;

  private host: ReactiveControllerHost;
  private onZero: () => void;

  constructor(host: ReactiveControllerHost, onZero: () => void) {
    this.host = host;
    this.onZero = onZero;
    host.addController(this);
  }

  /** Counts to `endsAt`, taking `serverTime` (ISO) as "now" on the server. */
  set(endsAt: string, serverTime?: string) {
    const server = Date.parse(serverTime || '');
    if (server) this.skew = server - Date.now();
    const end = Date.parse(endsAt);
    if (end !== this.end) {
      this.fired = false;
      this.step = NaN;
    }
    this.end = end;
    this.tick();
    if (!this.timer) this.timer = setInterval(() => this.tick(), 1000);
  }

  stop() {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  hostDisconnected() {
    this.stop();
  }

  hostConnected() {
    if (this.end && !this.fired && !this.timer) this.set(new Date(this.end).toISOString());
  }

  private tick() {
    this.remaining = Math.max(0, this.end - (Date.now() + this.skew)) || 0;
    const s = Math.ceil(this.remaining / 1000);
    // The step this moment falls in; the announcement changes only when the step does, and then says the time left.
    const step = s > 3600 ? -Math.ceil(s / 3600) : s > 300 ? Math.ceil(s / 300) * 5 : s > 30 ? Math.ceil(s / 60) : s ? 0.5 : 0;
    if (step !== this.step) {
      this.step = step;
      this.said = s;
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
    } else if (s !== this.said) this.spoken = null;
    this.host.requestUpdate();
    if (!s && !this.fired) {
      this.fired = true;
      this.stop();
      this.onZero();
    }
  }
}
