// The one shape of the service's own in-process caches (credentials, verified tokens, organization names): a bounded
// LRU from lru-cache whose entries live a fixed time by the service's clock (deps.now, which tests move).
import { LRUCache } from 'lru-cache';

/** A cache by string key, at most `max` entries, each kept `ttlMs` (or its own `ttl` given to set) from when it was set. */
export type ExpiringCache<V extends {}> = LRUCache<string, V>;

export function expiringCache<V extends {}>(
  now: () => Date,
  options: { max: number; ttlMs: number },
): ExpiringCache<V> {
  // ttlResolution 0: every check reads the clock, which a test moves in jumps, never in real time.
  return new LRUCache<string, V>({
    max: options.max,
    ttl: options.ttlMs,
    ttlResolution: 0,
    perf: { now: () => now().getTime() },
  });
}
