// Persistence of deposits, their activity history and checkouts: every query of the deposit core, over Kysely, the
// same on SQLite and PostgreSQL. Each function takes the database or a transaction of it, so a caller composes
// them inside one transaction (create.ts, switch-method.ts, expire.ts, payments.ts). No rules here: what to write is decided by the callers.
import type { ExpressionBuilder, Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import { forUpdate } from '../db/engine.js';
import { randomInt } from 'node:crypto';
import type {
  ActivityRow,
  CheckoutRow,
  DepositRow,
  DepositUpdate,
  NewActivity,
  NewCheckout,
  NewDeposit,
  PaymentRow,
  PriceRow,
} from '../db/deposit-tables.js';
import { ApiError } from '../../common/errors.js';

/** The database or a transaction of it (a Transaction is a Kysely). */
type Queryable = Kysely<Database>;

// ---------------------------------------------------------------------------------------------------------
// Deposits

/** Inserts a deposit; the database fills the columns left out with their defaults. Returns the stored row. */
export function insertDeposit(db: Queryable, deposit: NewDeposit): Promise<DepositRow> {
  return db.insertInto('deposits').values(deposit).returningAll().executeTakeFirstOrThrow();
}

/** Which unique constraint of a deposit's write (its row, its unique code) an error broke, on SQLite or PostgreSQL. */
export function uniqueViolation(err: unknown): 'reference' | 'va_number' | 'deposit_id' | 'unique_code' | undefined {
  const e = err as { code?: string; message?: string; constraint?: string } | undefined;
  if (e?.code !== 'SQLITE_CONSTRAINT_UNIQUE' && e?.code !== '23505') return undefined;
  const text = `${e.constraint ?? ''} ${e.message ?? ''}`;
  if (/reference/.test(text)) return 'reference';
  if (/va_number/.test(text)) return 'va_number';
  if (/account_code|unique_code/.test(text)) return 'unique_code';
  if (/deposit_id/.test(text)) return 'deposit_id';
  return undefined;
}

/**
 * A deposit by its record id. With `lock` the row is locked for the rest of the transaction on PostgreSQL
 * (`FOR UPDATE`: a concurrent transition waits, then reads the state the first one left); SQLite's write
 * transactions never overlap and need no lock.
 */
export function depositByRowId(
  db: Queryable,
  id: string,
  options: { lock?: boolean } = {},
): Promise<DepositRow | undefined> {
  const query = db.selectFrom('deposits').selectAll().where('id', '=', id);
  return (options.lock ? forUpdate(db, query) : query).executeTakeFirst();
}

/** A deposit by its depositId, of one merchant when merchantId is given; `lock` as for depositByRowId. */
export function depositByDepositId(
  db: Queryable,
  depositId: string,
  merchantId?: string,
  options: { lock?: boolean } = {},
): Promise<DepositRow | undefined> {
  let query = db.selectFrom('deposits').selectAll().where('deposit_id', '=', depositId);
  if (merchantId) query = query.where('merchant_id', '=', merchantId);
  return (options.lock ? forUpdate(db, query) : query).executeTakeFirst();
}

/** A merchant's deposit by its depositId, else by its reference. */
export async function depositByIdOrReference(
  db: Queryable,
  merchantId: string,
  idOrReference: string,
): Promise<DepositRow | undefined> {
  return (
    (await depositByDepositId(db, idOrReference, merchantId)) ??
    (await db
      .selectFrom('deposits')
      .selectAll()
      .where('merchant_id', '=', merchantId)
      .where('reference', '=', idOrReference)
      .executeTakeFirst())
  );
}

/** Just what a transition checks first: the record id, status and expiry of a deposit by depositId. */
export function depositStateOf(
  db: Queryable,
  depositId: string,
  merchantId?: string,
): Promise<Pick<DepositRow, 'id' | 'status' | 'expired_at'> | undefined> {
  let query = db.selectFrom('deposits').select(['id', 'status', 'expired_at']).where('deposit_id', '=', depositId);
  if (merchantId) query = query.where('merchant_id', '=', merchantId);
  return query.executeTakeFirst();
}

/**
 * Applies `changes` to a deposit only while it is pending (and, with `dueBy`, only once its expiredAt is at or
 * before that time). Returns the updated row, or undefined when the deposit was not in that state.
 */
export function updatePendingDeposit(
  db: Queryable,
  id: string,
  changes: DepositUpdate,
  dueBy?: string,
): Promise<DepositRow | undefined> {
  let query = db.updateTable('deposits').set(versioned(changes)).where('id', '=', id).where('status', '=', 'pending');
  if (dueBy !== undefined) query = query.where('expired_at', '<=', dueBy);
  return query.returningAll().executeTakeFirst();
}

/**
 * A deposit's changes with its version raised by one: every update of a deposit row goes through this, so the version
 * grows with each committed change (in the change's transaction, under its row lock) and readers order by it.
 */
export function versioned(changes: DepositUpdate) {
  return (eb: ExpressionBuilder<Database, 'deposits'>) => ({ ...changes, version: eb('version', '+', 1) });
}

/** Record ids of pending deposits whose expiredAt is at or before `now` (of one merchant, or all), at most `max`. */
export async function overduePendingIds(
  db: Queryable,
  now: string,
  max: number,
  merchantId?: string,
): Promise<string[]> {
  let query = db.selectFrom('deposits').select('id').where('status', '=', 'pending').where('expired_at', '<=', now);
  if (merchantId) query = query.where('merchant_id', '=', merchantId);
  return (await query.limit(max).execute()).map((r) => r.id);
}

export type DepositSort = 'createdAt' | '-createdAt' | 'updatedAt' | '-updatedAt';

export interface DepositPageQuery {
  status?: DepositRow['status'];
  depositType?: DepositRow['deposit_type'];
  limit: number;
  page: number;
  sort: DepositSort;
  /** Seek: the rows after this one (its sort column's value and record id), instead of skipping to `page`. */
  after?: { value: string; id: string };
}

/** The column a sort orders by. */
export function sortColumn(sort: DepositSort): 'created_at' | 'updated_at' {
  return sort.replace('-', '') === 'updatedAt' ? 'updated_at' : 'created_at';
}

/** How many of a merchant's deposits match a filter: a sum over the counts table (migration 009), never a count of rows. */
export async function countDeposits(
  db: Queryable,
  merchantId: string,
  filter: Pick<DepositPageQuery, 'status' | 'depositType'>,
): Promise<number> {
  let query = db
    .selectFrom('deposit_counts')
    .select((eb) => eb.fn.sum<number>('count').as('total'))
    .where('merchant_id', '=', merchantId);
  if (filter.status) query = query.where('status', '=', filter.status);
  if (filter.depositType) query = query.where('deposit_type', '=', filter.depositType);
  return Number((await query.executeTakeFirst())?.total ?? 0);
}

/**
 * The record ids of one page of a merchant's deposits (filtered and sorted, ties broken by record id). Each filter and
 * sort has its index (migration 009) that holds the record id, so this reads only index entries: a seek after `after`,
 * else the entries before `page` skipped in the index, never in the table.
 */
export async function pageIdsOfDeposits(db: Queryable, merchantId: string, query: DepositPageQuery): Promise<string[]> {
  const direction = query.sort.startsWith('-') ? 'desc' : 'asc';
  const column = sortColumn(query.sort);
  let ids = db.selectFrom('deposits').select('id').where('merchant_id', '=', merchantId);
  if (query.status) ids = ids.where('status', '=', query.status);
  if (query.depositType) ids = ids.where('deposit_type', '=', query.depositType);
  const { after } = query;
  if (after)
    ids = ids.where((eb) =>
      eb(eb.refTuple(column, 'id'), direction === 'asc' ? '>' : '<', eb.tuple(after.value, after.id)),
    );
  ids = ids.orderBy(column, direction).orderBy('id', direction).limit(query.limit);
  if (!after) ids = ids.offset((query.page - 1) * query.limit);
  return (await ids.execute()).map((r) => r.id);
}

/** Deposits by record id, in the order of `ids`. */
export async function depositsByRowIds(db: Queryable, ids: string[]): Promise<DepositRow[]> {
  if (!ids.length) return [];
  const byId = new Map(
    (await db.selectFrom('deposits').selectAll().where('id', 'in', ids).execute()).map((r) => [r.id, r]),
  );
  return ids.flatMap((id) => byId.get(id) ?? []);
}

// ---------------------------------------------------------------------------------------------------------
// Bank transfers' unique codes

const MAX_UNIQUE_CODE = 999;

/** Answered when a merchant's pool of unique codes for one account is full: the shopper can still pay another way. */
class UniqueCodesExhausted extends ApiError {
  constructor(methodCode: string) {
    super(
      409,
      `paymentMethod: every unique code of ${methodCode} is held by a pending transfer; choose another method`,
    );
  }
}

/**
 * A unique code (1 to 999) none of the merchant's pending transfers to the account holds, drawn at random among the
 * free ones. Each merchant has its own pool, so one shop's pending transfers never exhaust another's. A concurrent
 * transfer may draw the same: the table's unique constraint refuses the second insert, which draws again.
 */
export async function freeUniqueCode(
  db: Queryable,
  merchantId: string,
  accountNumber: string,
  methodCode: string,
): Promise<number> {
  const taken = new Set(
    (
      await db
        .selectFrom('bank_transfer_codes')
        .select('unique_code')
        .where('merchant_id', '=', merchantId)
        .where('account_number', '=', accountNumber)
        .execute()
    ).map((r) => Number(r.unique_code)),
  );
  const free = MAX_UNIQUE_CODE - taken.size;
  if (free <= 0) throw new UniqueCodesExhausted(methodCode);
  let skip = randomInt(free);
  for (let code = 1; ; code++) {
    if (taken.has(code)) continue;
    if (skip-- === 0) return code;
  }
}

export async function insertUniqueCode(
  db: Queryable,
  row: { deposit_row_id: string; merchant_id: string; account_number: string; unique_code: number },
): Promise<void> {
  await db.insertInto('bank_transfer_codes').values(row).execute();
}

/** Frees a deposit's unique code, if it holds one (it completed, expired or switched method). */
export async function releaseUniqueCode(db: Queryable, depositRowId: string): Promise<void> {
  await db.deleteFrom('bank_transfer_codes').where('deposit_row_id', '=', depositRowId).execute();
}

// ---------------------------------------------------------------------------------------------------------
// Activity history

export function insertActivity(db: Queryable, activity: NewActivity): Promise<void> {
  return insertActivities(db, [activity]);
}

/** Several history entries in one statement. */
export async function insertActivities(db: Queryable, activities: NewActivity[]): Promise<void> {
  if (activities.length) await db.insertInto('deposit_activities').values(activities).execute();
}

/** The sequence number of the entry that follows `history` (a deposit's entries already read; 1 for the first). */
export function seqAfter(history: readonly Pick<ActivityRow, 'seq'>[]): number {
  return Math.max(0, ...history.map((a) => a.seq)) + 1;
}

/** The sequence number the next history entry of a deposit takes (1 for the first). */
export async function nextActivitySeq(db: Queryable, depositRowId: string): Promise<number> {
  const last = await db
    .selectFrom('deposit_activities')
    .select((eb) => eb.fn.max('seq').as('seq'))
    .where('deposit_row_id', '=', depositRowId)
    .executeTakeFirst();
  return Number(last?.seq ?? 0) + 1;
}

/** How many times a deposit's method was switched (its history's switch entries; attempts and payments are not switches). */
export async function switchCountOf(db: Queryable, depositRowId: string, activity: string): Promise<number> {
  const row = await db
    .selectFrom('deposit_activities')
    .select((eb) => eb.fn.countAll().as('count'))
    .where('deposit_row_id', '=', depositRowId)
    .where('activity', '=', activity)
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}

export function activitiesOf(db: Queryable, depositRowId: string): Promise<ActivityRow[]> {
  return db.selectFrom('deposit_activities').selectAll().where('deposit_row_id', '=', depositRowId).execute();
}

/** The history entries of several deposits, by deposit record id (one query). */
export async function activitiesByDeposit(db: Queryable, depositRowIds: string[]): Promise<Map<string, ActivityRow[]>> {
  const byRow = new Map<string, ActivityRow[]>();
  if (!depositRowIds.length) return byRow;
  const activities = await db
    .selectFrom('deposit_activities')
    .selectAll()
    .where('deposit_row_id', 'in', depositRowIds)
    .execute();
  for (const a of activities) {
    const list = byRow.get(a.deposit_row_id);
    if (list) list.push(a);
    else byRow.set(a.deposit_row_id, [a]);
  }
  return byRow;
}

// ---------------------------------------------------------------------------------------------------------
// Payments (docs/design.md, "Payments that do not go as planned")

export async function insertPayment(db: Queryable, payment: PaymentRow): Promise<void> {
  await db.insertInto('deposit_payments').values(payment).execute();
}

export function paymentsOf(db: Queryable, depositRowId: string): Promise<PaymentRow[]> {
  return db
    .selectFrom('deposit_payments')
    .selectAll()
    .where('deposit_row_id', '=', depositRowId)
    .orderBy('seq')
    .execute();
}

/** The payments of several deposits, by deposit record id (one query). */
export async function paymentsByDeposit(db: Queryable, depositRowIds: string[]): Promise<Map<string, PaymentRow[]>> {
  const byRow = new Map<string, PaymentRow[]>();
  if (!depositRowIds.length) return byRow;
  for (const p of await db
    .selectFrom('deposit_payments')
    .selectAll()
    .where('deposit_row_id', 'in', depositRowIds)
    .execute()) {
    const list = byRow.get(p.deposit_row_id);
    if (list) list.push(p);
    else byRow.set(p.deposit_row_id, [p]);
  }
  return byRow;
}

/** The prices a deposit's methods had before its switches (migration 013), latest first. */
export function earlierPricesOf(db: Queryable, depositRowId: string): Promise<PriceRow[]> {
  return db
    .selectFrom('deposit_prices')
    .selectAll()
    .where('deposit_row_id', '=', depositRowId)
    .orderBy('priced_at', 'desc')
    .execute();
}

/** Keeps the price a method had as the deposit leaves it (a switch): the latest price of each method. */
export async function keepEarlierPrice(db: Queryable, price: PriceRow): Promise<void> {
  await db
    .insertInto('deposit_prices')
    .values(price)
    .onConflict((oc) =>
      oc.columns(['deposit_row_id', 'method']).doUpdateSet({
        currency: price.currency,
        amount: price.amount,
        value: price.value,
        priced_at: price.priced_at,
      }),
    )
    .execute();
}

// ---------------------------------------------------------------------------------------------------------
// Owners and checkouts

/** The name of an organization (a merchant's accountName), if it exists. */
export async function organizationName(db: Queryable, organizationId: string): Promise<string | undefined> {
  return (await db.selectFrom('organizations').select('name').where('id', '=', organizationId).executeTakeFirst())
    ?.name;
}

export async function insertCheckout(db: Queryable, checkout: NewCheckout): Promise<void> {
  await db.insertInto('checkouts').values(checkout).execute();
}

export function checkoutById(db: Queryable, id: string): Promise<CheckoutRow | undefined> {
  return db.selectFrom('checkouts').selectAll().where('id', '=', id).executeTakeFirst();
}
