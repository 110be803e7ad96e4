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
 * Whether a view may still be answered at `now`: not a pending one past its expiredAt, nor one whose wallet push is
 * past its window (it times out on the next read).
 */
function servable(view: DepositView, now: Date): boolean {
  if (view.status !== 'pending') return true;
  const at = now.toISOString();
  const pushEnds = view.paymentFiat.pushExpiresAt;
  return at < view.expiredAt && !(pushEnds && at >= pushEnds);
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
  /** Every drop counts one: each deposit's last drop and the last clear have marks no other drop has. */
  private drops = 0;
  /** The mark of each deposit's last drop: a read that began before a drop must not store. */
  private readonly droppedAt = new LRUCache<string, number>({
    max: MAX_ENTRIES,
    // A mark pushed out raises the floor: that deposit's generation still moves on.
    dispose: (mark, _depositId, reason) => {
      if (reason === 'evict') this.floor = Math.max(this.floor, mark);
    },
  });
  /** The generation of a deposit without a mark of its own: the last clear's, or the latest mark pushed out. */
  private floor = 0;

  /**
   * `heardUpToNow`: where other copies write the same database (PostgreSQL), the change feed's word that every change
   * committed before the call has reached this cache (deposits/changes.ts); a cached view is answered only after it,
   * if the view is still there. Without it (one copy holds the database: SQLite) every change reaches this cache in
   * process before it is answered, and a view is answered as it is.
   */
  constructor(
    clock: () => Date,
    private readonly heardUpToNow?: () => Promise<boolean>,
  ) {
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
    return Math.max(this.droppedAt.get(depositId) ?? 0, this.floor);
  }

  /**
   * The cached view of a deposit, if there is one and it is still the deposit's latest state. Another copy's change
   * reaches this cache by its NOTIFY, which may come after that copy has answered it: so, with other copies, the view
   * is answered once every change committed before this call has been heard, if none of them dropped the deposit
   * meanwhile (a view kept is never older than a drop: a read that began before one does not store).
   */
  async latest(depositId: string, merchantId: string, now: () => Date): Promise<DepositView | undefined> {
    const generation = this.generationOf(depositId);
    const view = this.get(depositId, merchantId, now());
    if (!view || !this.heardUpToNow) return view;
    if (!(await this.heardUpToNow()) || this.generationOf(depositId) !== generation) return undefined;
    return servable(view, now()) ? view : undefined;
  }

  private get(depositId: string, merchantId: string, now: Date): DepositView | undefined {
    const entry = this.entries.get(depositId);
    if (!entry || entry.merchantId !== merchantId) return undefined;
    // A clock moved back (tests) is not served.
    if (now.getTime() < entry.storedAt || !servable(entry.view, now)) {
      this.entries.delete(depositId);
      return undefined;
    }
    return entry.view;
  }

  /** Keeps a view read at `generation`, unless a change has dropped the deposit since. */
  store(merchantId: string, view: DepositView, now: Date, generation: number): void {
    if (this.generationOf(view.depositId) !== generation) return;
    this.entries.set(view.depositId, { merchantId, view, storedAt: now.getTime() });
  }

  /** Drops a deposit's view; reads that began before this call will not store theirs. */
  forget(depositId: string): void {
    this.entries.delete(depositId);
    this.droppedAt.set(depositId, ++this.drops);
  }

  /** Drops every view, and reads that began before this call will not store theirs (changes may have been missed). */
  clear(): void {
    this.entries.clear();
    this.floor = ++this.drops;
  }
}

/** The deposit core's caches of one service instance (ProviderDeps.caches). */
export interface DepositCaches {
  depositViews: DepositViewCache;
}

/**
 * The caches of one instance; the views follow the instance's deposit-change feed and clock, and, where other copies
 * write the same database (`shared`), are answered only once the feed has heard every change committed before.
 */
export function createDepositCaches(changes: DepositChangeFeed, clock: () => Date, shared: boolean): DepositCaches {
  const depositViews = new DepositViewCache(clock, shared ? () => changes.heardUpToNow() : undefined);
  changes.on((depositId) => (depositId ? depositViews.forget(depositId) : depositViews.clear()));
  return { depositViews };
}
