import { startExpirySweeper } from '../deposits/expiry-sweeper.js';
import type { ProviderDeps } from '../instance/deps.js';
import { startWebhookDispatcher } from '../webhooks/dispatcher.js';

export interface BackgroundJobOptions {
  /** Webhooks are delivered once this settles (undefined: at once). */
  deliverAfter?: Promise<unknown>;
}

/**
 * Background work of the service (expiry sweeper, webhook dispatcher), safe to run on every copy. Returns a function
 * that stops it, letting webhook deliveries in flight finish for up to `graceMs`.
 */
export function startBackgroundJobs(
  deps: ProviderDeps,
  options: BackgroundJobOptions = {},
): (graceMs?: number) => Promise<void> {
  // On PostgreSQL this copy hears the other copies' deposit changes (its read cache and dispatcher listen).
  if (deps.config.databaseUrl)
    deps.changes.listen(deps.config.databaseUrl, deps.logger.child({ component: 'changes' }));
  const stopSweeper = startExpirySweeper(deps);
  const stopDispatcher = startWebhookDispatcher(deps, {
    startAfter: options.deliverAfter,
    // Counted when metrics are on; each webhook continues the trace of its change (instance/telemetry.ts).
    onAttempt: deps.telemetry?.registry && deps.telemetry.attempted,
    traceHeaders: deps.telemetry?.traceHeaders,
  });
  return async (graceMs = 0) => {
    await Promise.all([stopSweeper(), stopDispatcher(graceMs)]);
    await deps.changes.close();
  };
}
