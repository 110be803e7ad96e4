// The background job that expires overdue deposits (reads also expire them lazily; this catches the unread ones).
// Safe on every copy of the service: each expiry locks its row (PostgreSQL) and moves it only while it is pending, so
// two copies sweeping at once expire each deposit once, with one history entry and one webhook.
import type { ProviderDeps } from '../deps.js';
import { expireOverdue } from './transitions.js';

/** Moves overdue pending deposits to expired every config.sweepIntervalMs. Returns a stop function. */
export function startExpirySweeper(deps: ProviderDeps): () => Promise<void> {
  let running: Promise<unknown> | undefined;
  let stopped = false;
  const tick = () => {
    if (running || stopped) return;
    running = expireOverdue(deps)
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
