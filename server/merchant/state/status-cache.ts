// Cheap status reads: what the payment service said last, refreshed by webhooks (pushed) and by bounded
// re-reads (at most one upstream read per key per refresh interval, concurrent readers sharing one request),
// so a thousand shoppers polling one checkout cost the payment service one call every couple of seconds.
// Stale-while-revalidate: a value past its interval but within `staleMs` more is answered at once while its one
// re-read runs in the background (readers never queue behind the payment service for a status they already have);
// a value never read, or older than that, waits for the read.
// With several copies of the backend (Redis), the deposit cache has a shared layer (SharedState): a copy first asks
// whether another one read the deposit within the interval, and every change one copy learns reaches the others.
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { supersedes, TERMINAL, type StoredDeposit } from '../model.js';
import type { SharedState } from './shared-state.js';

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
  /**
   * How long past refreshMs a value is still answered at once while its re-read runs in the background, in ms
   * (default 0: every reader of a value past refreshMs waits for the re-read).
   */
  staleMs?: number;
  /** Largest number of keys kept; the least recently used go first. */
  maxEntries?: number;
  /** A value that can no longer change is never loaded again. */
  isFinal?: (value: T) => boolean;
  now?: () => number;
}

/** What a load may tell besides its value: how old the value already is (read by another copy earlier). */
interface LoadInfo {
  ageMs: number;
}

/** A read-through cache that loads each key at most once per `refreshMs` and coalesces concurrent loads. */
export class BoundedReader<T> {
  private readonly slots = new Map<string, Slot<T>>();
  private readonly now: () => number;

  constructor(
    private readonly load: (key: string, info: LoadInfo) => Promise<T>,
    private readonly options: BoundedReaderOptions<T>,
  ) {
    this.now = options.now ?? Date.now;
  }

  /**
   * The value, loading it when it is missing or older than refreshMs (answered at once, the load in the background,
   * while it is less than refreshMs + staleMs old); a failed load falls back to the last value.
   */
  async get(key: string, options: { maxAgeMs?: number } = {}): Promise<T> {
    const slot = this.touch(key);
    const maxAge = options.maxAgeMs ?? this.options.refreshMs;
    const known = this.answerNow(key, slot, maxAge);
    if (known !== undefined) return known;
    if (slot.inflight) return slot.inflight;
    if (slot.failedAt !== undefined && this.now() - slot.failedAt < maxAge) throw slot.error;
    return (slot.inflight = this.startLoad(key, slot));
  }

  /** What get() would answer without waiting (starting the background re-read it would start), else undefined. */
  current(key: string): T | undefined {
    return this.slots.has(key) ? this.answerNow(key, this.touch(key), this.options.refreshMs) : undefined;
  }

  private answerNow(key: string, slot: Slot<T>, maxAge: number): T | undefined {
    if (slot.value === undefined) return undefined;
    if (this.options.isFinal?.(slot.value)) return slot.value;
    const age = this.now() - slot.fetchedAt;
    if (age < maxAge) return slot.value;
    if (age < maxAge + (this.options.staleMs ?? 0)) {
      slot.inflight ??= this.startLoad(key, slot);
      return slot.value;
    }
    return undefined;
  }

  /** One load of `key` into `slot` (the caller records it as the slot's inflight load). */
  private startLoad(key: string, slot: Slot<T>): Promise<T> {
    const started = this.now();
    const info: LoadInfo = { ageMs: 0 };
    const inflight: Promise<T> = this.load(key, info)
      .then(
        (value) => {
          // A push that landed while the load was in flight is at least as new: keep it.
          if (slot.value === undefined || slot.fetchedAt <= started) this.store(key, slot, value, info.ageMs);
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
      )
      .finally(() => {
        if (slot.inflight === inflight) slot.inflight = undefined;
      });
    return inflight;
  }

  peek(key: string): T | undefined {
    return this.slots.get(key)?.value;
  }

  /** Stores a pushed value (a webhook, or the answer of a write) as fresh. */
  put(key: string, value: T): void {
    this.store(key, this.touch(key), value);
  }

  /** Drops the key (its value, any failure): nothing of it is kept. */
  forget(key: string): void {
    this.slots.delete(key);
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

  private store(key: string, slot: Slot<T>, value: T, ageMs = 0) {
    slot.error = slot.failedAt = undefined;
    slot.value = this.onStore(key, slot.value, value);
    slot.fetchedAt = this.now() - ageMs;
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

/** How long the shared layer keeps a deposit nobody reads (a checkout's life and its payment window are shorter). */
const SHARED_TTL_MS = 2 * 24 * 3600_000;
/** Longest wait for another copy's read of a deposit this copy has never seen, before reading it itself. */
const MAX_WAIT_MS = 3000;

/** The deposit status of each checkout, with ETags and change listeners (SSE). */
export class DepositStatusCache extends BoundedReader<CachedDeposit> {
  private readonly listeners = new Map<string, Set<DepositListener>>();

  constructor(
    load: (checkoutId: string) => Promise<StoredDeposit | null>,
    private readonly shared: SharedState,
    options: Omit<BoundedReaderOptions<CachedDeposit>, 'isFinal'>,
  ) {
    super(
      async (id, info) => {
        for (let waited = 0; ; waited += 50) {
          // Redis away: this copy reads for itself (its own bound still holds).
          const read = await shared.readDeposit(id, options.refreshMs).catch(() => ({ kind: 'load' as const }));
          if (read.kind === 'fresh') {
            info.ageMs = read.ageMs;
            return entryOf(read.deposit);
          }
          if (read.kind === 'wait' && read.deposit !== undefined) {
            info.ageMs = options.refreshMs; // another copy is reading it: take what was known, ask again next time
            return entryOf(read.deposit);
          }
          if (read.kind === 'load' || waited >= MAX_WAIT_MS) break;
          await sleep(50);
        }
        return entryOf(await this.share(id, await load(id)));
      },
      { ...options, isFinal: (entry) => !!entry.deposit && TERMINAL.has(entry.deposit.status) },
    );
    // A change another copy learnt: applied where this copy holds the deposit (a reader or a stream), which wakes
    // its streams; a deposit not held here is read from the shared layer when asked for.
    shared.onDepositChange((id, deposit) => {
      if (this.peek(id) !== undefined || this.listeners.has(id)) this.put(id, entryOf(deposit));
    });
  }

  /**
   * Records a deposit learnt from a webhook or a write, for every copy; wakes the listeners when what a shopper sees
   * changed. Answers the entry as it now stands (a newer one already known wins).
   */
  async update(deposit: StoredDeposit): Promise<CachedDeposit> {
    this.put(deposit.checkoutId, entryOf(await this.share(deposit.checkoutId, deposit)));
    return this.peek(deposit.checkoutId)!;
  }

  /** Stores the deposit in the shared layer; the winner of the two (or this one, when Redis is away). */
  private async share(id: string, deposit: StoredDeposit | null): Promise<StoredDeposit | null> {
    return this.shared.storeDeposit(id, deposit, SHARED_TTL_MS).catch(() => deposit);
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
