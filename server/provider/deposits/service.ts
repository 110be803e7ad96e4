// Reading deposits (a merchant's detail read through the per-instance read cache, the public read by id, the list),
// never showing one pending past its expiredAt, and the deposit core's surface the routes call. Pricing is in
// pricing.ts, the queries in repository.ts, every state change in transitions.ts.
import type { ProviderDeps } from '../deps.js';
import { paginate, type Page } from '../http/pagination.js';
import {
  activitiesByDeposit, activitiesOf, depositByDepositId, depositByIdOrReference, pageOfDeposits, paymentsByDeposit, paymentsOf, type DepositPageQuery,
} from './repository.js';
import { expireIfOverdue, expireOverdue } from './transitions.js';
import { toDepositView, type DepositRow, type DepositView } from './view.js';

export { quoteMethod, type FiatQuote } from './pricing.js';
export { recordPayment, type PaymentRequest } from './payments.js';
export {
  createCryptoDeposit, createFiatDeposit, DepositIdTaken, DepositNotFound, DepositNotPending, ownerOf, switchDepositMethod, transitionDeposit,
  type SwitchRequest, type TransitionKind,
} from './transitions.js';

/** A row as it stands after a read: expired first (with its history entry and webhook) when it is pending past expiredAt. */
async function current(deps: ProviderDeps, row: DepositRow, reread: () => Promise<DepositRow | undefined>): Promise<DepositRow> {
  if (row.status !== 'pending' || row.expired_at > deps.now().toISOString()) return row;
  await expireIfOverdue(deps, row.id);
  return (await reread()) ?? row;
}

async function detailOf(deps: ProviderDeps, row: DepositRow): Promise<DepositView> {
  return toDepositView(row, await activitiesOf(deps.db, row.id), await paymentsOf(deps.db, row.id), { detail: true });
}

/** Reads one deposit of a merchant by depositId, else by reference. Never shows pending past expiredAt. */
export async function readDeposit(deps: ProviderDeps, merchantId: string, idOrReference: string): Promise<DepositView | undefined> {
  const cache = deps.caches.depositViews;
  const hit = cache.get(idOrReference, merchantId, deps.now());
  if (hit) return hit;
  const generation = cache.generationOf(idOrReference);
  const find = () => depositByIdOrReference(deps.db, merchantId, idOrReference);
  const found = await find();
  if (!found) return undefined;
  const view = await detailOf(deps, await current(deps, found, find));
  if (view.depositId === idOrReference) cache.store(merchantId, view, deps.now(), generation);
  return view;
}

/** Reads a deposit by depositId for the public checkout pages (no merchant scope: the id is the key). */
export async function readDepositById(deps: ProviderDeps, depositId: string): Promise<{ row: DepositRow; view: DepositView } | undefined> {
  const find = () => depositByDepositId(deps.db, depositId);
  const found = await find();
  if (!found) return undefined;
  const row = await current(deps, found, find);
  return { row, view: await detailOf(deps, row) };
}

/** A page of a merchant's deposits (list items: no isReconciled or payerInfo), after expiring its overdue ones. */
export async function listDeposits(deps: ProviderDeps, merchantId: string, query: DepositPageQuery): Promise<Page<DepositView>> {
  await expireOverdue(deps, merchantId);
  const { rows, total } = await pageOfDeposits(deps.db, merchantId, query);
  const ids = rows.map((r) => r.id);
  const [history, payments] = await Promise.all([activitiesByDeposit(deps.db, ids), paymentsByDeposit(deps.db, ids)]);
  return paginate(rows.map((r) => toDepositView(r, history.get(r.id) ?? [], payments.get(r.id) ?? [])), total, query.page, query.limit);
}
