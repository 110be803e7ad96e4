// The background job that expires overdue deposits (reads also expire them lazily; this catches the unread ones).
// Safe on every copy of the service: each expiry locks its row (PostgreSQL) and moves it only while it is pending, so
// two copies sweeping at once expire each deposit once, with one history entry and one webhook.
import type { ProviderDeps } from '../deps.js';
import { expireOverdue } from './expire.js';

/**
 * Every config.sweepIntervalMs, moves every overdue pending deposit to expired: one at a time, yielding between them,
 * and on until none is due (not a fixed number per tick), so a backlog drains at the rate the database takes while
 * requests are still served. Returns a stop function.
 */
export function startExpirySweeper(deps: ProviderDeps): () => Promise<void> {
  let running: Promise<unknown> | undefined;
  let stopped = false;
  const tick = () => {
    if (running || stopped) return;
    running = expireOverdue(deps, undefined, Number.POSITIVE_INFINITY, () => stopped)
      .catch((err) => deps.logger.error({ err }, 'expiry sweep failed'))
      .finally(() => { running = undefined; });
  };
  const timer = setInterval(tick, deps.config.sweepIntervalMs);
  timer.unref();
  tick();
  return async () => {
    stopped = true;
    clearInterval(timer);
    await running;
  };
}
