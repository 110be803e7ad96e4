// Brief in-process caches of the deposit core. Each service instance makes its own (deps.caches, built in
// process/main.ts openProvider): two services in one process never share one.
import { LRUCache } from 'lru-cache';
import type { DepositChangeFeed } from './changes.js';
import type { DepositView } from './view.js';

/** How long a cached Deposit view is served at most. */
const READ_CACHE_MS = 1000;
const MAX_ENTRIES = 10_000;

interface ViewEntry {
  merchantId: string;
  view: DepositView;
  storedAt: number;
}

/**
 * Deposit views of the hot read path (GET /v1/deposit/:id, polled by merchant backends), by depositId: an LRU of
 * MAX_ENTRIES whose entries live READ_CACHE_MS at most on the service's clock. Every committed change of a deposit
 * drops its entry (the deposit-change feed: this instance's changes, and on PostgreSQL every copy's as it commits),
 * and an entry is never served as pending once expiredAt has passed, so the rule "no read shows pending past
 * expiredAt" holds.
 */
class DepositViewCache {
  private readonly entries: LRUCache<string, ViewEntry>;
  /** Bumped by every forget: a read that began before a change must not store what it read. */
  private readonly generations = new LRUCache<string, number>({ max: MAX_ENTRIES });
  private readonly versions?: LatestVersions;

  /**
   * `latestVersions`: where other copies write the same database (PostgreSQL), how a cached view is checked against
   * its row before it is answered; without it (one copy holds the database: SQLite) every change reaches this cache
   * in process before it is answered, and a view is answered as it is.
   */
  constructor(clock: () => Date, latestVersions?: (depositIds: string[]) => Promise<Map<string, number>>) {
    if (latestVersions) this.versions = new LatestVersions(latestVersions);
    // ttlResolution 0: the clock is asked on every get (tests move it).
    this.entries = new LRUCache({
      max: MAX_ENTRIES,
      ttl: READ_CACHE_MS,
      ttlResolution: 0,
      perf: { now: () => clock().getTime() },
    });
  }

  /** Take this before reading the database; hand it to store(). */
  generationOf(depositId: string): number {
    return this.generations.get(depositId) ?? 0;
  }

  get(depositId: string, merchantId: string, now: Date): DepositView | undefined {
    const entry = this.entries.get(depositId);
    if (!entry || entry.merchantId !== merchantId) return undefined;
    // A clock moved back (tests) or a pending view past its expiredAt is not served.
    // Nor one whose wallet push is past its window (it times out on the next read).
    const pushEnds = entry.view.paymentFiat.pushExpiresAt;
    if (
      now.getTime() < entry.storedAt ||
      (entry.view.status === 'pending' &&
        (now.toISOString() >= entry.view.expiredAt || (!!pushEnds && now.toISOString() >= pushEnds)))
    ) {
      this.entries.delete(depositId);
      return undefined;
    }
    return entry.view;
  }

  /**
   * Whether a view from get() is still its deposit's latest state. Another copy's change reaches this cache by its
   * NOTIFY, which may come after that copy has answered it: so, with other copies, the row's version is read (the
   * reads waiting at one moment share one query) and a view older than the row is not answered.
   */
  async isLatest(view: DepositView): Promise<boolean> {
    if (!this.versions) return true;
    return (await this.versions.of(view.depositId)) === view.version;
  }

  /** Keeps a view read at `generation`, unless a change has dropped the deposit since. */
  store(merchantId: string, view: DepositView, now: Date, generation: number): void {
    if (this.generationOf(view.depositId) !== generation) return;
    this.entries.set(view.depositId, { merchantId, view, storedAt: now.getTime() });
  }

  /** Drops a deposit's view; reads that began before this call will not store theirs. */
  forget(depositId: string): void {
    this.entries.delete(depositId);
    this.generations.set(depositId, this.generationOf(depositId) + 1);
  }

  /** Drops every view (changes may have been missed: the feed's connection to PostgreSQL dropped). */
  clear(): void {
    for (const depositId of this.entries.keys()) this.forget(depositId);
  }
}

/**
 * Deposits' current versions read in batches: a version asked for while a batch is being read goes into the next
 * batch, so its answer is always read after it was asked (never one read before a change another copy answered).
 */
class LatestVersions {
  private waiting = new Map<
    string,
    Array<{ resolve: (version: number | undefined) => void; reject: (err: unknown) => void }>
  >();
  private reading = false;

  constructor(private readonly read: (depositIds: string[]) => Promise<Map<string, number>>) {}

  of(depositId: string): Promise<number | undefined> {
    return new Promise((resolve, reject) => {
      const waiters = this.waiting.get(depositId);
      if (waiters) waiters.push({ resolve, reject });
      else this.waiting.set(depositId, [{ resolve, reject }]);
      this.next();
    });
  }

  private next(): void {
    if (this.reading || !this.waiting.size) return;
    this.reading = true;
    // The reads that arrive until the event loop's next turn join this batch: one query for all of them.
    setImmediate(() => {
      const batch = this.waiting;
      this.waiting = new Map();
      this.read([...batch.keys()])
        .then(
          (versions) => {
            for (const [id, waiters] of batch) for (const w of waiters) w.resolve(versions.get(id));
          },
          (err: unknown) => {
            for (const waiters of batch.values()) for (const w of waiters) w.reject(err);
          },
        )
        .finally(() => {
          this.reading = false;
          this.next();
        });
    });
  }
}

/** The deposit core's caches of one service instance (ProviderDeps.caches). */
export interface DepositCaches {
  depositViews: DepositViewCache;
}

/**
 * The caches of one instance; the views follow the instance's deposit-change feed and clock, and, where other copies
 * write the same database, are checked against `latestVersions` before they are answered.
 */
export function createDepositCaches(
  changes: DepositChangeFeed,
  clock: () => Date,
  latestVersions?: (depositIds: string[]) => Promise<Map<string, number>>,
): DepositCaches {
  const depositViews = new DepositViewCache(clock, latestVersions);
  changes.on((depositId) => (depositId ? depositViews.forget(depositId) : depositViews.clear()));
  return { depositViews };
}
