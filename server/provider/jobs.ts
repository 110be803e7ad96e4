import { startExpirySweeper } from './deposits/expiry-sweeper.js';
import type { ProviderDeps } from './http/env.js';
import { startWebhookDispatcher } from './webhooks/dispatcher.js';

/** Background work of the service (expiry sweeper, webhook dispatcher). Returns a function that stops it. */
export function startBackgroundJobs(deps: ProviderDeps): () => Promise<void> {
  const stops = [startExpirySweeper(deps), startWebhookDispatcher(deps)];
  return async () => {
    await Promise.all(stops.map((stop) => stop()));
  };
}
