// Reading deposits (a merchant's detail read through the per-instance read cache, the public read by id, the list),
// never showing one pending past its expiredAt, and the deposit core's surface the routes call. Pricing is in
// pricing.ts, the queries in repository.ts; the state changes: create.ts, switch-method.ts, expire.ts, payments.ts.
import { ApiError } from '../../common/errors.js';
import type { ProviderDeps } from '../instance/deps.js';
import { paginate, type Page } from '../openapi/pagination.js';
import {
  activitiesByDeposit,
  activitiesOf,
  countDeposits,
  depositByDepositId,
  depositByIdOrReference,
  depositsByRowIds,
  pageIdsOfDeposits,
  paymentsByDeposit,
  paymentsOf,
  sortColumn,
  type DepositPageQuery,
} from './repository.js';
import { expireFirstIfOverdue, expireIfOverdue, isOverdue } from './expire.js';
import { timeOutPushIfOverdue } from './attempts.js';
import { toDepositView, type DepositRow, type DepositView } from './view.js';
import type { DepositCaches } from './read-cache.js';

declare module '../instance/deps.js' {
  /** Among the instance's caches: the deposit core's view cache (made in process/main.ts openProvider). */
  interface ProviderCaches extends DepositCaches {}
}

export { quoteMethod, type FiatQuote } from './pricing.js';
export { recordPayment, type PaymentRequest } from './payments.js';
export { createCryptoDeposit, createFiatDeposit } from './create.js';
export { DepositIdTaken, DepositNotFound, DepositNotPending } from './errors.js';
export { transitionDeposit, type TransitionKind } from './expire.js';
export { ownerOf } from './payment-plan.js';
export { switchDepositMethod, type SwitchRequest } from './switch-method.js';

/** A row as it stands after a read: expired first (with its history entry and webhook) when it is pending past expiredAt. */
async function current(
  deps: ProviderDeps,
  row: DepositRow,
  reread: () => Promise<DepositRow | undefined>,
): Promise<DepositRow> {
  // Pending past expiredAt: expired first; a wallet's push past its window: timed out first (docs/indonesian-payments.md).
  if (!(await expireFirstIfOverdue(deps, row)) && !(await timeOutPushIfOverdue(deps, row))) return row;
  return (await reread()) ?? row;
}

async function detailOf(deps: ProviderDeps, row: DepositRow): Promise<DepositView> {
  return toDepositView(row, await activitiesOf(deps.db, row.id), await paymentsOf(deps.db, row.id), { detail: true });
}

/** Reads one deposit of a merchant by depositId, else by reference. Never shows pending past expiredAt. */
export async function readDeposit(
  deps: ProviderDeps,
  merchantId: string,
  idOrReference: string,
): Promise<DepositView | undefined> {
  const cache = deps.caches.depositViews;
  const hit = await cache.latest(idOrReference, merchantId, deps.now);
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
export async function readDepositById(
  deps: ProviderDeps,
  depositId: string,
): Promise<{ row: DepositRow; view: DepositView } | undefined> {
  const find = () => depositByDepositId(deps.db, depositId);
  const found = await find();
  if (!found) return undefined;
  const row = await current(deps, found, find);
  return { row, view: await detailOf(deps, row) };
}

/** A page of a merchant's deposits and, when the request sent a cursor, the cursor of the page after it. */
export type DepositPage = Page<DepositView> & { nextCursor?: string | null };

/** The cursor that asks for the first page (and for nextCursor in the envelope). */
const FIRST_PAGE = 'start';

/** A list query as the route takes it: `cursor` (`start`, then a page's nextCursor) instead of `page` seeks, at any depth. */
export type ListQuery = Omit<DepositPageQuery, 'after'> & { cursor?: string };

interface CursorState {
  sort: DepositPageQuery['sort'];
  status?: string;
  depositType?: string;
  page: number;
  value: string;
  id: string;
}

/** A cursor is opaque to clients: base64url JSON of the query it continues and the last row it showed. */
function encodeCursor(state: CursorState): string {
  return Buffer.from(JSON.stringify(state)).toString('base64url');
}

function decodeCursor(cursor: string, query: ListQuery): CursorState {
  let state: Partial<CursorState> | undefined;
  try {
    state = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Partial<CursorState>;
  } catch {
    state = undefined;
  }
  if (
    !state ||
    typeof state.value !== 'string' ||
    typeof state.id !== 'string' ||
    !Number.isSafeInteger(state.page) ||
    (state.page ?? 0) < 1
  ) {
    throw new ApiError(400, 'cursor: not a cursor this service gave; use the nextCursor of a page');
  }
  if (state.sort !== query.sort || state.status !== query.status || state.depositType !== query.depositType) {
    throw new ApiError(
      400,
      'cursor: it continues another query; send the same sort, status and depositType as the page it came from',
    );
  }
  return state as CursorState;
}

/**
 * A page of a merchant's deposits (list items: no isReconciled or payerInfo). totalDocs comes from the counts table and
 * the page from its index (repository.ts), so the cost does not grow with the merchant's rows. Only the deposits the
 * page shows are expired when overdue (the sweeper does the rest): when that moves rows out of or into a status filter,
 * the page is read once more; a row found overdue then is expired and shown as it now stands, so a list never answers
 * a pending deposit past its expiredAt.
 */
export async function listDeposits(deps: ProviderDeps, merchantId: string, query: ListQuery): Promise<DepositPage> {
  const cursor =
    query.cursor === undefined || query.cursor === FIRST_PAGE ? undefined : decodeCursor(query.cursor, query);
  const pageQuery: DepositPageQuery = {
    ...query,
    page: cursor ? cursor.page + 1 : query.cursor === FIRST_PAGE ? 1 : query.page,
    after: cursor && { value: cursor.value, id: cursor.id },
  };
  let rows: DepositRow[] = [];
  for (let read = 0; read < 2; read++) {
    rows = await depositsByRowIds(deps.db, await pageIdsOfDeposits(deps.db, merchantId, pageQuery));
    const overdue = rows.filter((r) => isOverdue(r, deps.now()));
    if (!overdue.length) break;
    for (const r of overdue) await expireIfOverdue(deps, r.id);
    if (read === 0 && query.status) continue;
    rows = await depositsByRowIds(
      deps.db,
      rows.map((r) => r.id),
    );
    break;
  }
  const total = await countDeposits(deps.db, merchantId, query);
  const ids = rows.map((r) => r.id);
  const [history, payments] = await Promise.all([activitiesByDeposit(deps.db, ids), paymentsByDeposit(deps.db, ids)]);
  const page = paginate(
    rows.map((r) => toDepositView(r, history.get(r.id) ?? [], payments.get(r.id) ?? [])),
    total,
    pageQuery.page,
    query.limit,
  );
  if (query.cursor === undefined) return page;
  const last = rows.at(-1);
  const nextCursor =
    page.hasNextPage && last && rows.length === query.limit
      ? encodeCursor({
          sort: query.sort,
          status: query.status,
          depositType: query.depositType,
          page: pageQuery.page,
          value: last[sortColumn(query.sort)],
          id: last.id,
        })
      : null;
  return { ...page, nextCursor };
}
