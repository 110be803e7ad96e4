// Failed attempts to pay a deposit (docs/indonesian-payments.md): declined, insufficient balance, or a wallet's push
// not approved in time. The deposit stays pending (its status enum has no "failed"); each attempt adds a history entry
// "Payment failed" with the reason and the webhook deposit.payment_failed, in one transaction with the row locked, as
// every change of a deposit. The Deposit shows the last failure (`lastFailure`) while it is the deposit's latest news.
import type { Transaction } from 'kysely';
import { ApiError } from '../../common/errors.js';
import type { Database } from '../db/database.js';
import type { ProviderDeps } from '../instance/deps.js';
import { newRecordId } from '../db/ids.js';
import { enqueueDepositWebhook } from '../webhooks/outbox.js';
import { DepositNotFound, DepositNotPending } from './errors.js';
import { changeLockedDeposit, isOverdue } from './expire.js';
import { activitiesOf, depositByDepositId, insertActivities, paymentsOf, seqAfter, versioned } from './repository.js';
import { paymentFiatOf, toDepositView, type ActivityRow, type DepositRow, type DepositView } from './view.js';
import { pushWindowFrom } from './payment-details.js';
import { FAILED_ACTIVITY, failureDescription, type FailureReason } from './failure-reasons.js';

export type { FailureReason } from './failure-reasons.js';

export interface AttemptRequest {
  reason: FailureReason;
  /** Only this merchant's deposit (the signed and token-authenticated routes). */
  merchantId?: string;
  /** A push's timeout: recorded only while the deposit's push awaits approval past its window (else nothing changes). */
  pushOverdue?: boolean;
}

/**
 * Records a failed attempt on a pending deposit and answers the updated Deposit. Throws DepositNotFound, or
 * DepositNotPending (a deposit pending past its expiredAt is expired first).
 */
export async function recordFailedAttempt(
  deps: ProviderDeps,
  depositId: string,
  request: AttemptRequest,
): Promise<DepositView> {
  return changeLockedDeposit(deps, depositId, request.merchantId, (trx, row, now) => {
    if (row.status !== 'pending') throw new DepositNotPending(row.status);
    return applyFailure(trx, row, request, now);
  });
}

async function applyFailure(
  trx: Transaction<Database>,
  row: DepositRow,
  request: AttemptRequest,
  now: Date,
): Promise<DepositView> {
  const history = await activitiesOf(trx, row.id);
  const payments = await paymentsOf(trx, row.id);
  const paymentFiat = paymentFiatOf(row);
  const at = now.toISOString();
  if (request.pushOverdue && !(paymentFiat.pushExpiresAt && paymentFiat.pushExpiresAt <= at))
    return toDepositView(row, history, payments, { detail: true });
  // A failure ends the push awaiting approval, if any: "try again" sends a new one.
  const { pushExpiresAt: _ended, ...rest } = paymentFiat;
  const entry: ActivityRow = {
    id: newRecordId(),
    deposit_row_id: row.id,
    seq: seqAfter(history),
    activity: FAILED_ACTIVITY,
    status: 'pending',
    description: failureDescription(request.reason),
    updated_at: at,
  };
  const updated = await trx
    .updateTable('deposits')
    .set(versioned({ updated_at: at, payment_fiat: JSON.stringify(rest) }))
    .where('id', '=', row.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  await insertActivities(trx, [entry]);
  const view = toDepositView(updated, [...history, entry], payments, { detail: true });
  await enqueueDepositWebhook(
    trx,
    {
      type: 'deposit.payment_failed',
      merchantId: row.merchant_id,
      depositId: row.deposit_id,
      reference: row.reference,
      status: 'pending',
      data: view,
    },
    now,
  );
  return view;
}

/** A push awaiting approval past its window at `now` (docs/indonesian-payments.md): it times out before any read shows it. */
function isPushOverdue(row: Pick<DepositRow, 'status' | 'payment_fiat'>, now: Date): boolean {
  const { pushExpiresAt } = paymentFiatOf(row);
  return row.status === 'pending' && !!pushExpiresAt && pushExpiresAt <= now.toISOString();
}

/** Times out the deposit's push if it is overdue (a failed attempt: timeout). True when it was (by this call or another). */
export async function timeOutPushIfOverdue(
  deps: ProviderDeps,
  row: Pick<DepositRow, 'deposit_id' | 'status' | 'payment_fiat'>,
): Promise<boolean> {
  if (!isPushOverdue(row, deps.now())) return false;
  await recordFailedAttempt(deps, row.deposit_id, { reason: 'timeout', pushOverdue: true }).catch((err) => {
    if (!(err instanceof DepositNotPending)) throw err;
  });
  return true;
}

/**
 * A push wallet's "try again" (the shopper chose the method again): a new request to the phone, `mobileNumber` (E.164)
 * or the one before, with a new window, and a history entry; no webhook. A push still awaiting approval is left as it
 * is. Throws DepositNotFound or DepositNotPending.
 */
export async function sendPushAgain(
  deps: ProviderDeps,
  depositId: string,
  mobileNumber?: string,
): Promise<DepositView> {
  try {
    return await deps.db.transaction().execute(async (trx) => {
      const row = await depositByDepositId(trx, depositId, undefined, { lock: true });
      if (!row) throw new DepositNotFound();
      const now = deps.now();
      if (row.status !== 'pending' || isOverdue(row, now))
        throw new DepositNotPending(row.status === 'pending' ? 'expired' : row.status);
      const history = await activitiesOf(trx, row.id);
      const payments = await paymentsOf(trx, row.id);
      const paymentFiat = paymentFiatOf(row);
      if (paymentFiat.flow !== 'push' || (paymentFiat.pushExpiresAt && paymentFiat.pushExpiresAt > now.toISOString())) {
        return toDepositView(row, history, payments, { detail: true });
      }
      const number = mobileNumber ?? paymentFiat.mobileNumber;
      if (!number)
        throw new ApiError(
          400,
          "phone: the wallet sends the payment request to the shopper's phone: give their mobile number",
        );
      const at = now.toISOString();
      const next = { ...paymentFiat, mobileNumber: number, pushExpiresAt: pushWindowFrom(now) };
      const entry: ActivityRow = {
        id: newRecordId(),
        deposit_row_id: row.id,
        seq: seqAfter(history),
        activity: 'Payment Requested',
        status: 'pending',
        description: 'Payment request sent to the wallet app',
        updated_at: at,
      };
      const updated = await trx
        .updateTable('deposits')
        .set(versioned({ updated_at: at, payment_fiat: JSON.stringify(next) }))
        .where('id', '=', row.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      await insertActivities(trx, [entry]);
      return toDepositView(updated, [...history, entry], payments, { detail: true });
    });
  } finally {
    deps.changes.announce(depositId);
  }
}

/** A redirect wallet's page to come back to, set on the pending deposit (no history entry, no webhook: nothing moved). */
export async function setReturnUrl(deps: ProviderDeps, depositId: string, url: string): Promise<DepositView> {
  try {
    return await deps.db.transaction().execute(async (trx) => {
      const row = await depositByDepositId(trx, depositId, undefined, { lock: true });
      if (!row) throw new DepositNotFound();
      const paymentFiat = paymentFiatOf(row);
      const history = await activitiesOf(trx, row.id);
      const payments = await paymentsOf(trx, row.id);
      if (row.status !== 'pending' || paymentFiat.flow !== 'redirect' || paymentFiat.returnUrl === url)
        return toDepositView(row, history, payments, { detail: true });
      const updated = await trx
        .updateTable('deposits')
        .set(versioned({ payment_fiat: JSON.stringify({ ...paymentFiat, returnUrl: url }) }))
        .where('id', '=', row.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      return toDepositView(updated, history, payments, { detail: true });
    });
  } finally {
    deps.changes.announce(depositId);
  }
}
