// The background job that expires overdue deposits (reads also expire them lazily; this catches the unread ones).
import type { ProviderDeps } from '../http/env.js';
import { expireOverdue } from './transitions.js';

/** Moves overdue pending deposits to expired every config.sweepIntervalMs. Returns a stop function. */
export function startExpirySweeper(deps: ProviderDeps): () => Promise<void> {
  let running: Promise<unknown> | undefined;
  let stopped = false;
  const tick = () => {
    if (running || stopped) return;
    running = expireOverdue(deps)
      .catch((err) => console.error('[provider] expiry sweep failed:', err instanceof Error ? err.message : err))
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
