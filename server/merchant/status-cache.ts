// Cheap status reads: what the payment service said last, refreshed by webhooks (pushed) and by bounded
// re-reads (at most one upstream read per key per refresh interval, concurrent readers sharing one request),
// so a thousand shoppers polling one checkout cost the payment service one call every couple of seconds.
import { createHash } from 'node:crypto';
import { TERMINAL, type StoredDeposit } from './views.js';

interface Slot<T> {
  value?: T;
  fetchedAt: number;
  inflight?: Promise<T>;
  /** The last failed load while there was no value, and when: repeated for refreshMs instead of retried. */
  error?: unknown;
  failedAt?: number;
}

export interface BoundedReaderOptions<T> {
  /** Least time between two loads of one key, in ms. */
  refreshMs: number;
  /** Largest number of keys kept; the least recently used go first. */
  maxEntries?: number;
  /** A value that can no longer change is never loaded again. */
  isFinal?: (value: T) => boolean;
  now?: () => number;
}

/** A read-through cache that loads each key at most once per `refreshMs` and coalesces concurrent loads. */
export class BoundedReader<T> {
  private readonly slots = new Map<string, Slot<T>>();
  private readonly now: () => number;
  /** Loads started (each one upstream call). */
  loads = 0;

  constructor(private readonly load: (key: string) => Promise<T>, private readonly options: BoundedReaderOptions<T>) {
    this.now = options.now ?? Date.now;
  }

  /** The value, loading it when it is missing or older than refreshMs; a failed load falls back to the last value. */
  async get(key: string, options: { maxAgeMs?: number } = {}): Promise<T> {
    const slot = this.touch(key);
    const maxAge = options.maxAgeMs ?? this.options.refreshMs;
    if (slot.value !== undefined) {
      if (this.options.isFinal?.(slot.value)) return slot.value;
      if (this.now() - slot.fetchedAt < maxAge) return slot.value;
    }
    if (slot.inflight) return slot.inflight;
    if (slot.failedAt !== undefined && this.now() - slot.failedAt < maxAge) throw slot.error;
    this.loads++;
    const started = this.now();
    const inflight = this.load(key).then(
      (value) => {
        // A push that landed while the load was in flight is at least as new: keep it.
        if (slot.value === undefined || slot.fetchedAt <= started) this.store(key, slot, value);
        return slot.value as T;
      },
      (err) => {
        if (slot.value === undefined) {
          slot.error = err;
          slot.failedAt = this.now();
          throw err;
        }
        slot.fetchedAt = this.now(); // back off: the next try is one interval away
        return slot.value;
      },
    ).finally(() => {
      if (slot.inflight === inflight) slot.inflight = undefined;
    });
    slot.inflight = inflight;
    return inflight;
  }

  peek(key: string): T | undefined {
    return this.slots.get(key)?.value;
  }

  /** Stores a pushed value (a webhook, or the answer of a write) as fresh. */
  put(key: string, value: T): void {
    this.store(key, this.touch(key), value);
  }

  /** Makes the next get() load again. */
  invalidate(key: string): void {
    const slot = this.slots.get(key);
    if (slot) slot.fetchedAt = 0;
  }

  get size() {
    return this.slots.size;
  }

  /** Called with every stored value; subclasses hook change detection here. */
  protected onStore(_key: string, _previous: T | undefined, _value: T): T {
    return _value;
  }

  protected keep(_key: string): boolean {
    return false;
  }

  private store(key: string, slot: Slot<T>, value: T) {
    slot.error = slot.failedAt = undefined;
    slot.value = this.onStore(key, slot.value, value);
    slot.fetchedAt = this.now();
  }

  private touch(key: string): Slot<T> {
    let slot = this.slots.get(key);
    if (slot) {
      this.slots.delete(key);
    } else {
      slot = { fetchedAt: 0 };
      const max = this.options.maxEntries ?? 50_000;
      if (this.slots.size >= max) {
        for (const old of this.slots.keys()) {
          if (this.slots.size < max) break;
          if (!this.keep(old)) this.slots.delete(old);
        }
      }
    }
    this.slots.set(key, slot);
    return slot;
  }
}

export interface CachedDeposit {
  /** null: no deposit yet (no method chosen). */
  deposit: StoredDeposit | null;
  /** Weak validator of the deposit as a shopper sees it. */
  etag: string;
  /** The deposit's JSON without its closing brace, so an answer only appends serverTime (hot read path). */
  jsonHead: string;
}

export type DepositListener = (entry: CachedDeposit) => void;

function entryOf(deposit: StoredDeposit | null): CachedDeposit {
  const json = JSON.stringify(deposit);
  return {
    deposit,
    etag: `W/"${createHash('sha256').update(json).digest('base64url').slice(0, 22)}"`,
    jsonHead: deposit ? json.slice(0, -1) : '',
  };
}

/** Whether `next` may replace `current`: a terminal status is final, and an older update never wins. */
function supersedes(current: StoredDeposit | null | undefined, next: StoredDeposit | null): boolean {
  if (!current) return true;
  if (!next) return false; // a deposit never disappears
  if (TERMINAL.has(current.status) && !TERMINAL.has(next.status)) return false;
  if (TERMINAL.has(current.status) && TERMINAL.has(next.status)) return false;
  if (TERMINAL.has(next.status)) return true;
  return Date.parse(next.updatedAt) >= Date.parse(current.updatedAt);
}

/** The deposit status of each checkout, with ETags and change listeners (SSE). */
export class DepositStatusCache extends BoundedReader<CachedDeposit> {
  private readonly listeners = new Map<string, Set<DepositListener>>();

  constructor(load: (checkoutId: string) => Promise<StoredDeposit | null>, options: Omit<BoundedReaderOptions<CachedDeposit>, 'isFinal'>) {
    super(async (id) => {
      const deposit = await load(id);
      return entryOf(deposit);
    }, { ...options, isFinal: (entry) => !!entry.deposit && TERMINAL.has(entry.deposit.status) });
  }

  /** Records a deposit learnt from a webhook or a write; wakes the listeners when what a shopper sees changed. */
  update(deposit: StoredDeposit): CachedDeposit {
    this.put(deposit.checkoutId, entryOf(deposit));
    return this.peek(deposit.checkoutId)!;
  }

  subscribe(checkoutId: string, listener: DepositListener): () => void {
    let set = this.listeners.get(checkoutId);
    if (!set) this.listeners.set(checkoutId, (set = new Set()));
    set.add(listener);
    return () => {
      set!.delete(listener);
      if (!set!.size && this.listeners.get(checkoutId) === set) this.listeners.delete(checkoutId);
    };
  }

  listenerCount(checkoutId?: string): number {
    if (checkoutId) return this.listeners.get(checkoutId)?.size ?? 0;
    let n = 0;
    for (const set of this.listeners.values()) n += set.size;
    return n;
  }

  protected override onStore(key: string, previous: CachedDeposit | undefined, value: CachedDeposit): CachedDeposit {
    if (previous && !supersedes(previous.deposit, value.deposit)) return previous;
    if (previous?.etag !== value.etag) {
      for (const listener of [...(this.listeners.get(key) ?? [])]) {
        try {
          listener(value);
        } catch {
          /* a listener's failure is its own */
        }
      }
    }
    return value;
  }

  protected override keep(key: string): boolean {
    return this.listeners.has(key);
  }
}
