// A brief in-process cache of Deposit views for the hot read path (GET /v1/deposit/:id, polled by merchant
// backends). Entries live READ_CACHE_MS at most, are dropped by every transition in this process, and are
// never served as pending once expiredAt has passed, so the rule "no read shows pending past expiredAt" holds.
// Another process (scale-out) sees a change at most READ_CACHE_MS late.
import type { DepositView } from './view.js';

export const READ_CACHE_MS = 1000;
const MAX_ENTRIES = 10_000;

interface Entry { merchantId: string; view: DepositView; storedAt: number }

const entries = new Map<string, Entry>();
/** Bumped by every forget: a read that began before a change must not store what it read. */
const generations = new Map<string, number>();

export function generationOf(depositId: string): number {
  return generations.get(depositId) ?? 0;
}

export function cachedView(depositId: string, merchantId: string, now: Date): DepositView | undefined {
  const entry = entries.get(depositId);
  if (!entry || entry.merchantId !== merchantId) return undefined;
  const t = now.getTime();
  if (t - entry.storedAt > READ_CACHE_MS || t < entry.storedAt || (entry.view.status === 'pending' && now.toISOString() >= entry.view.expiredAt)) {
    entries.delete(depositId);
    return undefined;
  }
  return entry.view;
}

export function storeView(merchantId: string, view: DepositView, now: Date, generation: number): void {
  if (generationOf(view.depositId) !== generation) return;
  if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value!);
  entries.set(view.depositId, { merchantId, view, storedAt: now.getTime() });
}

export function forgetView(depositId: string): void {
  entries.delete(depositId);
  if (generations.size >= MAX_ENTRIES) generations.clear();
  generations.set(depositId, generationOf(depositId) + 1);
}
