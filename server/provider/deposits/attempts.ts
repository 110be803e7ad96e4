// Failed attempts to pay a deposit (docs/indonesian-payments.md): declined, insufficient balance, or a wallet's push
// not approved in time. The deposit stays pending (its status enum has no "failed"); each attempt adds a history entry
// "Payment failed" with the reason and the webhook deposit.payment_failed, in one transaction with the row locked, as
// every change of a deposit. The Deposit shows the last failure (`lastFailure`) while it is the deposit's latest news.
import type { Transaction } from 'kysely';
import type { Database } from '../db/database.js';
import type { ProviderDeps } from '../deps.js';
import { newRecordId } from '../ids.js';
import { enqueueDepositWebhook } from '../webhooks/outbox.js';
import { DepositNotFound, DepositNotPending } from './errors.js';
import { expireIfOverdue, isOverdue } from './expire.js';
import { activitiesOf, depositByDepositId, insertActivities, paymentsOf, seqAfter, versioned } from './repository.js';
import { toDepositView, type ActivityRow, type DepositRow, type DepositView } from './view.js';
import { FAILED_ACTIVITY, failureDescription, type FailureReason } from './failure-reasons.js';

export { FAILURE_REASONS, type FailureReason } from './failure-reasons.js';

export interface AttemptRequest {
  reason: FailureReason;
  /** Only this merchant's deposit (the signed and token-authenticated routes). */
  merchantId?: string;
  /** The attempt this failure ends must still be the deposit's latest (a push's timeout): else nothing is recorded. */
  unlessChangedSince?: string;
}

/**
 * Records a failed attempt on a pending deposit and answers the updated Deposit. Throws DepositNotFound, or
 * DepositNotPending (a deposit pending past its expiredAt is expired first).
 */
export async function recordFailedAttempt(deps: ProviderDeps, depositId: string, request: AttemptRequest): Promise<DepositView> {
  try {
    for (;;) {
      const outcome = await deps.db.transaction().execute(async (trx) => {
        const row = await depositByDepositId(trx, depositId, request.merchantId, { lock: true });
        if (!row) throw new DepositNotFound();
        const now = deps.now();
        if (isOverdue(row, now)) return { overdue: row.id };
        if (row.status !== 'pending') throw new DepositNotPending(row.status);
        return { view: await applyFailure(trx, row, request, now) };
      });
      if (outcome.view) return outcome.view;
      await expireIfOverdue(deps, outcome.overdue);
    }
  } finally {
    deps.changes.announce(depositId);
  }
}

async function applyFailure(trx: Transaction<Database>, row: DepositRow, request: AttemptRequest, now: Date): Promise<DepositView> {
  const history = await activitiesOf(trx, row.id);
  const payments = await paymentsOf(trx, row.id);
  if (request.unlessChangedSince !== undefined && row.updated_at !== request.unlessChangedSince) {
    return toDepositView(row, history, payments, { detail: true });
  }
  const at = now.toISOString();
  const entry: ActivityRow = {
    id: newRecordId(), deposit_row_id: row.id, seq: seqAfter(history), activity: FAILED_ACTIVITY, status: 'pending',
    description: failureDescription(request.reason), updated_at: at,
  };
  const updated = await trx.updateTable('deposits').set(versioned({ updated_at: at })).where('id', '=', row.id).returningAll().executeTakeFirstOrThrow();
  await insertActivities(trx, [entry]);
  const view = toDepositView(updated, [...history, entry], payments, { detail: true });
  await enqueueDepositWebhook(trx, {
    type: 'deposit.payment_failed', merchantId: row.merchant_id, depositId: row.deposit_id, reference: row.reference, status: 'pending', data: view,
  }, now);
  return view;
}
