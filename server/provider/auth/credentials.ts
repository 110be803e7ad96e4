// A merchant's signing credentials (client id -> secret and account), read by the signature check on the service's
// hottest path (merchants polling deposits), so kept briefly in memory per instance.
import { credentialOfClient } from '../accounts/merchants.js';
import type { Credential, ProviderDeps } from '../instance/deps.js';

/** How long a merchant's credentials are trusted from memory: a secret rotated elsewhere takes effect within this. */
export const CREDENTIAL_CACHE = { max: 1000, ttlMs: 5000 };

/** Forgets this service's cached credentials, so a secret rotated in this process takes effect at once. */
export function forgetCredentials(deps: ProviderDeps): void {
  deps.caches.credentials.clear();
}

/** A client's credentials, from memory when fresh; undefined when the client id is not registered. */
export async function credentialOf(deps: ProviderDeps, clientId: string): Promise<Credential | undefined> {
  const cache = deps.caches.credentials;
  const cached = cache.get(clientId);
  if (cached) return cached;
  const entry = await credentialOfClient(deps.db, clientId);
  if (!entry) return undefined;
  cache.set(clientId, entry);
  return entry;
}
