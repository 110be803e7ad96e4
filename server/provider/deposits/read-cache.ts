// Brief in-process caches of the deposit core. Each service instance makes its own (deps.caches, built in
// main.ts openProvider): two services in one process never share one.
import type { DepositView } from './view.js';

/** How long a cached Deposit view is served at most. */
const READ_CACHE_MS = 1000;
const MAX_ENTRIES = 10_000;

interface ViewEntry { merchantId: string; view: DepositView; storedAt: number }

/**
 * Deposit views of the hot read path (GET /v1/deposit/:id, polled by merchant backends), by depositId. Entries
 * live READ_CACHE_MS at most, are dropped by every transition in this process, and are never served as pending once
 * expiredAt has passed, so the rule "no read shows pending past expiredAt" holds. Another process (scale-out) sees a
 * change at most READ_CACHE_MS late.
 */
class DepositViewCache {
  private readonly entries = new Map<string, ViewEntry>();
  /** Bumped by every forget: a read that began before a change must not store what it read. */
  private readonly generations = new Map<string, number>();

  /** Take this before reading the database; hand it to store(). */
  generationOf(depositId: string): number {
    return this.generations.get(depositId) ?? 0;
  }

  get(depositId: string, merchantId: string, now: Date): DepositView | undefined {
    const entry = this.entries.get(depositId);
    if (!entry || entry.merchantId !== merchantId) return undefined;
    const t = now.getTime();
    if (t - entry.storedAt > READ_CACHE_MS || t < entry.storedAt || (entry.view.status === 'pending' && now.toISOString() >= entry.view.expiredAt)) {
      this.entries.delete(depositId);
      return undefined;
    }
    return entry.view;
  }

  /** Keeps a view read at `generation`, unless a transition has forgotten the deposit since. */
  store(merchantId: string, view: DepositView, now: Date, generation: number): void {
    if (this.generationOf(view.depositId) !== generation) return;
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(view.depositId, { merchantId, view, storedAt: now.getTime() });
  }

  /** Drops a deposit's view; reads that began before this call will not store theirs. */
  forget(depositId: string): void {
    this.entries.delete(depositId);
    if (this.generations.size >= MAX_ENTRIES) this.generations.clear();
    this.generations.set(depositId, this.generationOf(depositId) + 1);
  }
}

/** The deposit core's caches of one service instance (ProviderDeps.caches). */
export interface DepositCaches {
  depositViews: DepositViewCache;
}

export function createDepositCaches(): DepositCaches {
  return { depositViews: new DepositViewCache() };
}
