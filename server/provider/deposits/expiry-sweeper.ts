// The background job that expires overdue deposits (reads also expire them lazily, one at a time, through
// expire.ts; this catches the unread ones, a batch at a time). Safe on every copy of the service: a batch locks its
// rows first (PostgreSQL, skipping rows another transaction holds) and moves each only while it is pending and due, so
// two copies sweeping at once, or a sweep racing a payment, expire each deposit once, with one history entry and one
// webhook.
import type { Transaction } from 'kysely';
import { openDatabase, type Database } from '../db/database.js';
import { engineOf } from '../db/engine.js';
import type { ProviderDeps } from '../instance/deps.js';
import { enqueueExpiredWebhooks, holdsUniqueCode, isOverdue, transitionEntry } from './expire.js';
import {
  activitiesByDeposit,
  insertActivities,
  overduePendingIds,
  paymentsByDeposit,
  versioned,
} from './repository.js';
import { toDepositView, type DepositRow } from './view.js';

/**
 * How many expiries share one transaction. Each statement of a batch covers all its rows (one lock, one update, one
 * read of histories and of payments, one history insert, one webhook insert), so the cost per expiry is the rows' own
 * work (index upkeep, the webhook's view). SQLite's calls are synchronous: a batch holds the process from its first
 * statement to its commit, so it is kept to what runs in a few milliseconds and a read waits for one such batch at
 * most: 10 (25 a batch expires more a second, but signed reads' p99 is several times higher). PostgreSQL's statements
 * leave the event loop free while they run, so its batches are larger: 100, two in flight (50 a batch is slower; 200
 * no faster, with reads' p99 higher). The growth bench measures both (`npm run bench`, BENCH_GROWTH=sweep; the
 * figures: docs/benchmarks.md, "Where the targets stand").
 */
const batchSize = (deps: ProviderDeps) => (engineOf(deps.db) === 'sqlite' ? 10 : 100);

/**
 * How many batches are in flight at once on PostgreSQL (sweepOverdue), each on a connection of the sweeper's pool: while
 * one waits on the server (its statements, or the counts row the other batch holds until it commits) the other runs
 * (two in flight expire markedly more a second than one).
 */
const LANES = 2;

/**
 * Expires up to `size` deposits that are pending and due, in one transaction, each with its history entry and its
 * webhook; returns how many moved. On PostgreSQL one statement picks and locks them, skipping rows another transaction
 * holds (a payment, a lazy expiry, another batch or copy's sweep: each such row is left to its holder or the next
 * batch), so concurrent batches take disjoint rows and never wait on a row lock while they hold counts (migration 009):
 * no deadlock with a payment. Their status then moves in one update, whose counts change in key order (migration 012).
 * On SQLite (one write at a time) the due ids are read first and looked up by id.
 */
async function expireBatch(deps: ProviderDeps, size: number): Promise<{ picked: number; moved: number }> {
  const { db } = deps;
  const pickedAt = deps.now().toISOString();
  const ids = engineOf(db) === 'sqlite' ? await overduePendingIds(db, pickedAt, size) : undefined;
  if (ids?.length === 0) return { picked: 0, moved: 0 };
  let picked = 0;
  const moved = await db.transaction().execute(async (trx) => {
    const columns = ['id', 'status', 'expired_at'] as const;
    const held = ids
      ? // By record id alone: a status or expiry condition here makes SQLite's planner scan the status index (every
        // pending due row) instead of looking the ids up, a batch costing as much as the whole backlog.
        await trx.selectFrom('deposits').select(columns).where('id', 'in', ids).execute()
      : await trx
          .selectFrom('deposits')
          .select(columns)
          .where('status', '=', 'pending')
          .where('expired_at', '<=', pickedAt)
          .orderBy('expired_at')
          .limit(size)
          .forUpdate()
          .skipLocked()
          .execute();
    picked = held.length;
    const now = deps.now(); // once the locks are held: times follow commit order
    // Still pending and due, and staying so: the rows are locked (PostgreSQL) or no other write runs meanwhile (SQLite).
    const due = held.filter((row) => isOverdue(row, now)).map((row) => row.id);
    if (!due.length) return [];
    const rows = await trx
      .updateTable('deposits')
      .set(versioned({ status: 'expired', updated_at: now.toISOString() }))
      .where('id', 'in', due)
      .returningAll()
      .execute();
    await writeExpiries(trx, rows, now);
    return rows;
  });
  for (const row of moved) deps.changes.announce(row.deposit_id);
  return { picked, moved: moved.length };
}

/** What follows the status change of each expired row, in its transaction: the unique code freed, the history entry, the webhook. */
async function writeExpiries(trx: Transaction<Database>, rows: DepositRow[], now: Date): Promise<void> {
  const at = now.toISOString();
  const rowIds = rows.map((r) => r.id);
  const transfers = rows.filter(holdsUniqueCode).map((r) => r.id);
  if (transfers.length) await trx.deleteFrom('bank_transfer_codes').where('deposit_row_id', 'in', transfers).execute();
  const [histories, payments] = [await activitiesByDeposit(trx, rowIds), await paymentsByDeposit(trx, rowIds)];
  const entries = new Map(
    rows.map((row) => [row.id, transitionEntry(row, histories.get(row.id) ?? [], 'expired', at)]),
  );
  await insertActivities(trx, [...entries.values()]);
  await enqueueExpiredWebhooks(
    trx,
    rows.map((row) => ({
      row,
      view: toDepositView(row, [...(histories.get(row.id) ?? []), entries.get(row.id)!], payments.get(row.id) ?? [], {
        detail: true,
      }),
    })),
    now,
  );
}

/** PostgreSQL's answer when it broke a deadlock by ending this transaction: the batch is left for the next sweep. */
const isDeadlock = (err: unknown) => (err as { code?: string } | undefined)?.code === '40P01';

/**
 * Expires every overdue pending deposit, a batch per transaction with a turn of the event loop after each, until none
 * is due or `stop()` says so; returns how many it moved. On PostgreSQL two batches are in flight (each on its own
 * connection, each picking rows the other has not locked): one runs its statements while the other's wait on the
 * server or on the counts row. A batch with fewer rows than its size, or whose rows all moved on meanwhile (paid,
 * expired by a read or another copy), ends the sweep until the next tick.
 */
export async function sweepOverdue(deps: ProviderDeps, stop: () => boolean = () => false): Promise<number> {
  let total = 0;
  const size = batchSize(deps);
  const lane = async () => {
    while (!stop()) {
      let batch = { picked: 0, moved: 0 };
      try {
        batch = await expireBatch(deps, size);
      } catch (err) {
        if (!isDeadlock(err)) throw err;
      }
      total += batch.moved;
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (batch.picked < size || batch.moved === 0) break;
    }
  };
  await Promise.all(Array.from({ length: engineOf(deps.db) === 'postgres' ? LANES : 1 }, lane));
  return total;
}

/**
 * Every config.sweepIntervalMs, sweeps (sweepOverdue): on until none is due, not a fixed number per tick, so a backlog
 * drains at the rate the database takes while requests are still served. On PostgreSQL the sweep has a pool of its own,
 * a connection per batch in flight (as the webhook dispatcher has): its transactions, which may wait on a counts row,
 * never hold the connections requests wait for. Returns a stop function.
 */
export function startExpirySweeper(deps: ProviderDeps): () => Promise<void> {
  const log = deps.logger.child({ component: 'expiry' });
  const { databaseUrl } = deps.config;
  const ownDb =
    databaseUrl && engineOf(deps.db) === 'postgres'
      ? openDatabase({ dataDir: deps.config.dataDir, databaseUrl, poolSize: LANES }).catch((err: unknown) => {
          // Without a pool of its own (PostgreSQL refused a connection at start), it shares the service's.
          log.warn(
            { err: err instanceof Error ? err.message : String(err) },
            'expiry sweeper: no pool of its own; sharing the service pool',
          );
          return undefined;
        })
      : undefined;
  let running: Promise<unknown> | undefined;
  let stopped = false;
  const tick = () => {
    if (running || stopped) return;
    running = (async () => {
      const db = await ownDb;
      return sweepOverdue(db ? { ...deps, db } : deps, () => stopped);
    })()
      .catch((err) => log.error({ err }, 'expiry sweep failed'))
      .finally(() => {
        running = undefined;
      });
  };
  const timer = setInterval(tick, deps.config.sweepIntervalMs);
  timer.unref();
  tick();
  return async () => {
    stopped = true;
    clearInterval(timer);
    await running;
    await (await ownDb)?.destroy();
  };
}
