// The moves of a pending deposit to expired (docs/design.md, "Deposits"): a sandbox status update, a cancel, an
// e-wallet decline, and expiry once expiredAt has passed (read lazily by every read and write of the deposit, and swept
// in the background by expiry-sweeper.ts). Each runs in one transaction that appends to activityHistory and writes the
// deposit webhook to the outbox, so the event exists if and only if the change was committed.
import type { Transaction } from 'kysely';
import { findPaymentMethod } from '../catalog/index.js';
import type { Database } from '../db/database.js';
import type { ProviderDeps } from '../instance/deps.js';
import { newRecordId } from '../db/ids.js';
import { enqueueDepositWebhooks } from '../webhooks/outbox.js';
import { DepositNotFound, DepositNotPending } from './errors.js';
import {
  activitiesOf,
  depositByDepositId,
  depositByRowId,
  depositStateOf,
  insertActivity,
  paymentsOf,
  releaseUniqueCode,
  seqAfter,
  updatePendingDeposit,
} from './repository.js';
import { toDepositView, type ActivityRow, type DepositRow, type DepositView } from './view.js';

// A payment (completed, partial, late) is recorded by payments.ts, in the same way.
export type TransitionKind = 'sandbox-expired' | 'cancelled' | 'declined' | 'expired';

const TRANSITIONS: Record<TransitionKind, { to: 'expired'; activity: string; description: string }> = {
  'sandbox-expired': {
    to: 'expired',
    activity: 'Deposit Expired',
    description: 'Expired by the sandbox status update',
  },
  cancelled: { to: 'expired', activity: 'Deposit Cancelled', description: 'Cancelled by the client' },
  declined: { to: 'expired', activity: 'Payment Declined', description: 'The payer declined the e-wallet payment' },
  expired: {
    to: 'expired',
    activity: 'Deposit Expired',
    description: 'No payment was received before the deposit expired',
  },
};

/** Pending past its expiredAt at `now`: no read shows it so, and it is expired before anything else touches it. */
export function isOverdue(row: Pick<DepositRow, 'status' | 'expired_at'>, now: Date): boolean {
  return row.status === 'pending' && row.expired_at <= now.toISOString();
}

/** Whether the deposit holds a bank-transfer unique code, freed when it finishes (only a transfer holds one). */
export const holdsUniqueCode = (row: Pick<DepositRow, 'method_code'>): boolean =>
  !!findPaymentMethod(row.method_code ?? '')?.collectionAccount;

/** The history entry a transition adds after `history` (the deposit's entries so far). */
export function transitionEntry(
  row: Pick<DepositRow, 'id'>,
  history: readonly ActivityRow[],
  kind: TransitionKind,
  at: string,
): ActivityRow {
  const t = TRANSITIONS[kind];
  return {
    id: newRecordId(),
    deposit_row_id: row.id,
    seq: seqAfter(history),
    activity: t.activity,
    status: t.to,
    description: t.description,
    updated_at: at,
  };
}

/** The deposit.expired webhooks of deposits moved on, in the caller's transaction (one statement); `view` is each one's Deposit. */
export async function enqueueExpiredWebhooks(
  trx: Transaction<Database>,
  expiries: ReadonlyArray<{ row: DepositRow; view: DepositView }>,
  now: Date,
): Promise<void> {
  await enqueueDepositWebhooks(
    trx,
    expiries.map(({ row, view }) => ({
      type: 'deposit.expired' as const,
      merchantId: row.merchant_id,
      depositId: row.deposit_id,
      reference: row.reference,
      status: 'expired' as const,
      data: view,
    })),
    now,
  );
}

/**
 * Moves a pending deposit (read in this transaction) on: the new status, its history entry and its webhook. An
 * expiry applies only once expiredAt has passed. Throws DepositNotPending when the deposit is not (or no longer) so.
 */
async function applyTransition(
  trx: Transaction<Database>,
  row: DepositRow,
  kind: TransitionKind,
  now: Date,
): Promise<DepositView> {
  const t = TRANSITIONS[kind];
  const at = now.toISOString();
  const updated = await updatePendingDeposit(
    trx,
    row.id,
    { status: t.to, updated_at: at },
    kind === 'expired' ? at : undefined,
  );
  if (!updated) throw new DepositNotPending(row.status);
  // A finished bank transfer's unique code is free for the next transfer to its account.
  if (holdsUniqueCode(row)) await releaseUniqueCode(trx, row.id);
  // The history read once: its next sequence number and the webhook's view.
  const history = await activitiesOf(trx, row.id);
  const entry = transitionEntry(row, history, kind, at);
  await insertActivity(trx, entry);
  const view = toDepositView(updated, [...history, entry], await paymentsOf(trx, row.id), { detail: true });
  await enqueueExpiredWebhooks(trx, [{ row, view }], now);
  return view;
}

/** Expires one deposit if it is pending past its expiredAt (atomically, its row locked; a no-op otherwise). */
export async function expireIfOverdue(deps: ProviderDeps, rowId: string): Promise<boolean> {
  return (await expireRowsIfOverdue(deps, [rowId])) === 1;
}

/**
 * Runs `apply` on a deposit's row, read once and locked in a transaction of its own, with the time taken once the lock
 * is held (times follow commit order: a racing expiry's come first). A deposit pending past its expiredAt is expired
 * first (its own history entry and webhook), then `apply` runs on it as it then stands. The deposit's change is
 * announced whatever happened. Throws DepositNotFound for a deposit that is not (the merchant's).
 */
export async function changeLockedDeposit<T>(
  deps: ProviderDeps,
  depositId: string,
  merchantId: string | undefined,
  apply: (trx: Transaction<Database>, row: DepositRow, now: Date) => Promise<T>,
): Promise<T> {
  try {
    for (;;) {
      const outcome = await deps.db.transaction().execute(async (trx): Promise<{ done: T } | { overdue: string }> => {
        const row = await depositByDepositId(trx, depositId, merchantId, { lock: true });
        if (!row) throw new DepositNotFound();
        const now = deps.now();
        if (isOverdue(row, now)) return { overdue: row.id };
        return { done: await apply(trx, row, now) };
      });
      if ('done' in outcome) return outcome.done;
      await expireIfOverdue(deps, outcome.overdue);
    }
  } finally {
    deps.changes.announce(depositId);
  }
}

/**
 * Expires a deposit read pending past its expiredAt before what follows (a read, a switch, a move), so that it can no
 * longer be paid or switched and is shown as it now stands. True when it was overdue (expired by this call, or by a
 * concurrent one): the caller reads it again.
 */
export async function expireFirstIfOverdue(
  deps: ProviderDeps,
  row: Pick<DepositRow, 'id' | 'status' | 'expired_at'>,
): Promise<boolean> {
  if (!isOverdue(row, deps.now())) return false;
  await expireIfOverdue(deps, row.id);
  return true;
}

/**
 * Expires those of a few deposits that are pending past their expiredAt, in one transaction (each with its history
 * entry and webhook): one commit for several expiries is what lets a backlog drain fast on SQLite. Returns how many it moved.
 */
async function expireRowsIfOverdue(deps: ProviderDeps, rowIds: string[]): Promise<number> {
  try {
    const views = await deps.db.transaction().execute(async (trx) => {
      const moved: DepositView[] = [];
      for (const rowId of [...rowIds].sort()) {
        const row = await depositByRowId(trx, rowId, { lock: true });
        const now = deps.now(); // once the lock is held: times follow commit order
        if (!row || !isOverdue(row, now)) continue;
        moved.push(await applyTransition(trx, row, 'expired', now));
      }
      return moved;
    });
    for (const view of views) deps.changes.announce(view.depositId);
    return views.length;
  } catch (err) {
    // One of several changed under us (cannot happen with the row locked, but never lose the others): one at a time.
    if (err instanceof DepositNotPending && rowIds.length > 1) {
      let moved = 0;
      for (const id of rowIds) moved += await expireRowsIfOverdue(deps, [id]);
      return moved;
    }
    if (err instanceof DepositNotPending) return 0;
    throw err;
  }
}

/**
 * Moves a pending deposit to expired in one transaction with its history entry and webhook.
 * A deposit past its expiredAt is expired first, so it can no longer be paid. Throws DepositNotFound or
 * DepositNotPending.
 */
export async function transitionDeposit(
  deps: ProviderDeps,
  depositId: string,
  kind: Exclude<TransitionKind, 'expired'>,
  merchantId?: string,
): Promise<DepositView> {
  const found = await depositStateOf(deps.db, depositId, merchantId);
  if (!found) throw new DepositNotFound();
  await expireFirstIfOverdue(deps, found);
  try {
    return await deps.db.transaction().execute(async (trx) => {
      // Locked on PostgreSQL: a concurrent transition waits, then reads (and reports) the status it left.
      const row = await depositByRowId(trx, found.id, { lock: true });
      if (!row) throw new DepositNotFound();
      const now = deps.now(); // once the lock is held: times follow commit order
      if (row.status !== 'pending') throw new DepositNotPending(row.status);
      return applyTransition(trx, row, kind, now);
    });
  } finally {
    deps.changes.announce(depositId);
  }
}
