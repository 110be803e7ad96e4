// The shop's records: the payment service's deposits (signed GET /v1/deposit), newest first, each with the shop's
// orderId where this backend knows it, for `kasir.listDeposits()` and `kasir-merchant deposits` (docs/going-live.md).
import { Decimal } from 'decimal.js';
import { readFileSync } from 'node:fs';
import { ApiError } from '../../common/errors.js';
import type { PaymentServiceClient } from '../client/client.js';
import type { Deposit, DepositStatus } from '../client/types.js';
import type { SavedCheckout } from '../state/shared-state.js';

/** What `listDeposits` takes. */
export interface DepositsQuery {
  /** Only deposits created at or after this instant (an ISO 8601 date or time, or a Date). */
  since?: string | Date;
  /** Only deposits in this status: pending, expired or completed. */
  status?: DepositStatus;
  /** At most this many (default 100; pages of the service are followed up to it). */
  limit?: number;
}

/** One deposit as the shop's records show it: amounts as exact decimal text in the deposit's currency. */
export interface DepositRecord {
  depositId: string;
  /** The shop's order id where this backend knows it (a checkout it created for an order), else null. */
  orderId: string | null;
  status: DepositStatus;
  createdAt: string;
  updatedAt: string;
  depositType: 'fiat' | 'crypto';
  /** The bank code of a fiat deposit's method, the network of a crypto one. */
  method: string;
  currency: string;
  amount: string;
  paidAmount: string;
  remainingAmount: string;
  overpaidAmount: string;
  reference: string;
}

/** The columns of the CSV, in order: every field of a DepositRecord. */
const DEPOSIT_COLUMNS = [
  'depositId',
  'orderId',
  'status',
  'createdAt',
  'updatedAt',
  'depositType',
  'method',
  'currency',
  'amount',
  'paidAmount',
  'remainingAmount',
  'overpaidAmount',
  'reference',
] as const satisfies ReadonlyArray<keyof DepositRecord>;

const STATUSES: readonly string[] = ['pending', 'expired', 'completed'];
const DEFAULT_LIMIT = 100;
/** The largest page the interface lets us ask for (larger pages are refused by some services). */
const PAGE_SIZE = 100;

/** Where an order id is known: the checkout this backend created for it (what the shared state keeps). */
export type SavedCheckoutLookup = (checkoutId: string) => Promise<SavedCheckout | undefined>;

/**
 * The shop's order id of a deposit: a checkout's deposit has the checkout's id, and the backend keeps the order of each
 * checkout it created. The one place an order id is looked up for the records (wire a fuller order store here).
 */
async function orderIdOf(deposit: Pick<Deposit, 'depositId'>, lookup: SavedCheckoutLookup): Promise<string | null> {
  const saved = await lookup(deposit.depositId).catch(() => undefined);
  return saved?.orderId ?? null;
}

/** Checks a query's values (a 400 naming the field, as for the widget API's own input). */
function checkDepositsQuery(query: DepositsQuery = {}): { since?: number; status?: DepositStatus; limit: number } {
  let since: number | undefined;
  if (query.since !== undefined) {
    since =
      query.since instanceof Date
        ? query.since.getTime()
        : /^\d{4}-\d{2}-\d{2}/.test(query.since)
          ? Date.parse(query.since)
          : NaN;
    if (!Number.isFinite(since))
      throw new ApiError(
        400,
        `since: an ISO 8601 date or time, e.g. 2026-11-01 or 2026-11-01T00:00:00Z (got ${JSON.stringify(String(query.since))})`,
      );
  }
  if (query.status !== undefined && !STATUSES.includes(query.status)) {
    throw new ApiError(400, `status: one of ${STATUSES.join(', ')} (got ${JSON.stringify(query.status)})`);
  }
  const limit = query.limit ?? DEFAULT_LIMIT;
  if (!Number.isSafeInteger(limit) || limit < 1)
    throw new ApiError(400, `limit: a whole number of at least 1 (got ${JSON.stringify(query.limit)})`);
  return { since, status: query.status, limit };
}

/** The service's deposits, newest first, following its pages until `limit` or `since` is reached. */
export async function listDepositRecords(
  client: PaymentServiceClient,
  lookup: SavedCheckoutLookup,
  query: DepositsQuery = {},
): Promise<DepositRecord[]> {
  const { since, status, limit } = checkDepositsQuery(query);
  const records: DepositRecord[] = [];
  // One page size throughout (pages of another size would overlap); a deposit created meanwhile shifts the pages by
  // one, so one seen already is skipped.
  const size = Math.min(PAGE_SIZE, limit);
  const seen = new Set<string>();
  for (let page = 1; records.length < limit; page++) {
    const answer = await client.listDeposits({ limit: size, page, sort: '-createdAt', status });
    let older = false;
    const batch: Deposit[] = [];
    for (const deposit of answer.docs) {
      if (since !== undefined && Date.parse(deposit.createdAt) < since) {
        older = true; // newest first: every later one is older still
        break;
      }
      if (seen.has(deposit.depositId)) continue;
      seen.add(deposit.depositId);
      batch.push(deposit);
      if (records.length + batch.length >= limit) break;
    }
    // A page's order ids looked up together (one Redis round trip each, at once).
    records.push(...(await Promise.all(batch.map((deposit) => recordOf(deposit, lookup)))));
    if (older || !answer.hasNextPage || answer.docs.length === 0) break;
  }
  return records;
}

async function recordOf(deposit: Deposit, lookup: SavedCheckoutLookup): Promise<DepositRecord> {
  return {
    depositId: deposit.depositId,
    orderId: await orderIdOf(deposit, lookup),
    status: deposit.status,
    createdAt: deposit.createdAt,
    updatedAt: deposit.updatedAt,
    depositType: deposit.depositType,
    method: deposit.paymentFiat?.bankCode ?? deposit.paymentCrypto?.network ?? '',
    currency: deposit.inputCurrency,
    amount: exact(deposit, 'inputAmount'),
    paidAmount: exact(deposit, 'paidAmount'),
    remainingAmount: exact(deposit, 'remainingAmount'),
    overpaidAmount: exact(deposit, 'overpaidAmount'),
    reference: deposit.reference ?? '',
  };
}

/**
 * An amount as exact decimal text: the service's exact `<field>Value` text when it sends one, else its JSON number
 * written out in full (no exponent), never arithmetic on a float.
 */
function exact(deposit: Deposit, field: 'inputAmount' | 'paidAmount' | 'remainingAmount' | 'overpaidAmount'): string {
  const text = (deposit as unknown as Record<string, unknown>)[`${field}Value`];
  if (typeof text === 'string' && text) return text;
  const value = deposit[field];
  return typeof value === 'number' && Number.isFinite(value) ? new Decimal(String(value)).toFixed() : '';
}

/**
 * RFC 4180: a header row naming the columns, CRLF line ends, a field quoted when it holds a comma, quote or line break.
 * A field a spreadsheet would run as a formula (it begins with `=`, `+`, `-`, `@`, a tab or a carriage return: a
 * reference or an order id a shopper or the service chose) is written with a leading `'`, so it opens as text.
 */
export function depositsCsv(records: readonly DepositRecord[]): string {
  const field = (value: string | null) => {
    const text = /^[=+\-@\t\r]/.test(value ?? '') ? `'${value}` : (value ?? '');
    return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
  };
  const rows = [
    DEPOSIT_COLUMNS.join(','),
    ...records.map((record) => DEPOSIT_COLUMNS.map((column) => field(record[column])).join(',')),
  ];
  return rows.map((row) => `${row}\r\n`).join('');
}

/** A table for a terminal: the columns an accountant reads first, aligned. */
export function depositsTable(records: readonly DepositRecord[]): string {
  const columns = [
    'createdAt',
    'depositId',
    'orderId',
    'status',
    'amount',
    'currency',
    'paidAmount',
    'method',
  ] as const;
  const rows = [columns.map(String), ...records.map((record) => columns.map((column) => record[column] ?? '-'))];
  const widths = columns.map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  return (
    rows
      .map((row) =>
        row
          .map((cell, i) => cell.padEnd(widths[i]))
          .join('  ')
          .trimEnd(),
      )
      .join('\n') + '\n'
  );
}

/**
 * The created checkouts' orders in a state file of the merchant backend (state/shared-state.ts's LocalState lines
 * `{c, v, x}`), read without opening it for writing: a running backend owns the file.
 */
export function savedCheckoutsInFile(file: string, now = Date.now()): SavedCheckoutLookup {
  const saved = new Map<string, SavedCheckout>();
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    /* no state yet: no orders known */
  }
  for (const raw of text.split('\n')) {
    try {
      const line = JSON.parse(raw) as { c?: unknown; v?: SavedCheckout; x?: number };
      if (typeof line.c === 'string' && line.v && typeof line.x === 'number' && line.x > now) saved.set(line.c, line.v);
    } catch {
      /* a torn or foreign line */
    }
  }
  return async (checkoutId) => saved.get(checkoutId);
}
