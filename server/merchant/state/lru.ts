// The merchant backend's one bounded map: lru-cache, counting entries through maxSize so that it allocates as it
// fills (with `max` it allocates every slot up front, at each start).
import { LRUCache } from 'lru-cache';

/** At most `max` entries; setting one makes it the newest, and the least recently set goes first (read with peek). */
export function lruMap<V extends {}>(max: number): LRUCache<string, V> {
  return new LRUCache<string, V>({ maxSize: max, sizeCalculation: () => 1 });
}
