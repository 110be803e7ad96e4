// Payments that arrive for a deposit (DESIGN.md 10): short, long, late or in parts. Each is recorded in one
// transaction with the deposit's new state, its history entry and its webhook in the outbox, with the row locked
// (PostgreSQL; SQLite's write transactions never overlap), so two payments racing on one deposit, or a payment racing
// the expiry sweeper, run one after the other and leave one consistent result. Also here: what is still due when the
// shopper pays the rest another way (the checkout's methods priced for it, and the switch that keeps what was paid).
import type { Transaction } from 'kysely';
import { underpaymentTolerance } from '../accounts/merchants.js';
import { findPaymentMethod, placesOf } from '../catalog/index.js';
import type { Database } from '../db/database.js';
import type { CheckoutRow, DepositUpdate } from '../db/deposit-tables.js';
import type { ProviderDeps } from '../deps.js';
import { ApiError } from '../../common/errors.js';
import { newRecordId } from '../ids.js';
import { ceilTo, money, toText, type Money } from '../money.js';
import { enqueueDepositWebhook, type DepositEventType } from '../webhooks/outbox.js';
import { sandboxPayerInfo } from './payment-details.js';
import { activitiesOf, depositByDepositId, insertActivities, insertPayment, paymentsOf, releaseUniqueCode, seqAfter, versioned } from './repository.js';
import { DepositNotFound, DepositNotPending } from './errors.js';
import { expireIfOverdue, holdsUniqueCode, isOverdue } from './expire.js';
import { paidAmountsOf, toDepositView, type ActivityRow, type DepositRow, type DepositView, type PaymentRow } from './view.js';

/** Methods whose payer cannot choose the amount: the bank or wallet collects exactly what is due. */
const FIXED_AMOUNT_KINDS: ReadonlySet<string> = new Set(['va', 'qris', 'ewallet']);

export interface PaymentRequest {
  /** What arrived, in the deposit's input currency; by default what is still due. */
  amount?: number | string;
  /** Only this merchant's deposit (the signed and token-authenticated routes). */
  merchantId?: string;
  /** Only while pending: the sandbox status update and the e-wallet approval, which cannot be late. */
  pendingOnly?: boolean;
  /** The history entry of a payment that completes the deposit (default "Payment received"). */
  completedDescription?: string;
}

interface HistoryEntry { activity: string; status: string; description: string }

/**
 * Records a payment for a deposit (DESIGN.md 10) and answers the updated Deposit. Pending: completed once what
 * arrived reaches the amount due less the merchant's underpayment tolerance (history "Overpaid" beyond it), else a
 * partial payment (webhook deposit.partially_paid). Expired or cancelled: a late payment (webhook deposit.paid_late),
 * the status stays expired; a deposit pending past its expiredAt is expired first. Fixed-amount methods take exactly
 * what is due. Throws DepositNotFound, DepositNotPending (completed, or not pending with `pendingOnly`) or a 400 ApiError.
 */
export async function recordPayment(deps: ProviderDeps, depositId: string, request: PaymentRequest = {}): Promise<DepositView> {
  try {
    for (;;) {
      // The row read once, locked, in the payment's own transaction (no read before it: a completion is one transaction
      // of seven statements, each a round trip on PostgreSQL).
      const outcome = await deps.db.transaction().execute(async (trx) => {
        const row = await depositByDepositId(trx, depositId, request.merchantId, { lock: true });
        if (!row) throw new DepositNotFound();
        const now = deps.now(); // once the lock is held: times follow commit order (a racing expiry's come first)
        // Overdue: the expiry (its own history entry and webhook) comes first, then the payment is a late one.
        if (isOverdue(row, now)) return { overdue: row.id };
        return { view: await applyPayment(trx, row, request, now) };
      });
      if (outcome.view) return outcome.view;
      await expireIfOverdue(deps, outcome.overdue);
    }
  } finally {
    deps.changes.announce(depositId);
  }
}

async function applyPayment(trx: Transaction<Database>, row: DepositRow, request: PaymentRequest, now: Date): Promise<DepositView> {
  if (row.status === 'completed' || (request.pendingOnly && row.status !== 'pending')) throw new DepositNotPending(row.status);
  const due = money(row.input_amount);
  const before = paidAmountsOf(row);
  const amount = request.amount === undefined ? before.remaining : money(request.amount);
  checkAmount(row, amount, before.remaining);

  const at = now.toISOString();
  const paid = before.paid.plus(amount);
  const late = row.status === 'expired';
  // The deposit's payments and history read once: the new rows' sequence numbers and the webhook's view come from them.
  const payments = await paymentsOf(trx, row.id);
  const history = await activitiesOf(trx, row.id);
  const payment: PaymentRow = {
    id: newRecordId(), deposit_row_id: row.id, seq: payments.length + 1, amount: toText(amount), currency: row.input_currency,
    method: row.method_code ?? row.input_currency, late: late ? 1 : 0, received_at: at,
  };
  await insertPayment(trx, payment);

  let changes: DepositUpdate = { paid_amount: toText(paid), updated_at: at };
  let entries: HistoryEntry[];
  let type: DepositEventType;
  if (late) {
    changes = { ...changes, paid_late: 1 };
    entries = [{ activity: 'Payment Received After Expiry', status: 'expired', description: 'Payment received after expiry' }];
    type = 'deposit.paid_late';
  } else if (paid.greaterThanOrEqualTo(due) || paid.greaterThanOrEqualTo(due.minus(due.times(await underpaymentTolerance(trx, row.merchant_id)).dividedBy(100)))) {
    // The tolerance (0 to 100 %) is read only for a shortfall: what covers the amount due completes whatever it is.
    changes = { ...changes, status: 'completed', is_reconciled: 1, payer_info: JSON.stringify(sandboxPayerInfo(row)) };
    entries = [{ activity: 'Payment Received', status: 'completed', description: request.completedDescription ?? 'Payment received' }];
    if (paid.greaterThan(due)) entries.push({ activity: 'Overpaid', status: 'completed', description: 'Overpaid' });
    type = 'deposit.completed';
    // A finished bank transfer's unique code is free for the next transfer to its account.
    if (holdsUniqueCode(row)) await releaseUniqueCode(trx, row.id);
  } else {
    entries = [{ activity: 'Partial Payment Received', status: 'pending', description: 'Partial payment received' }];
    type = 'deposit.partially_paid';
  }
  const updated = await trx.updateTable('deposits').set(versioned(changes)).where('id', '=', row.id).returningAll().executeTakeFirstOrThrow();
  let seq = seqAfter(history);
  const added: ActivityRow[] = entries.map((entry) => ({ id: newRecordId(), deposit_row_id: row.id, seq: seq++, ...entry, updated_at: at }));
  await insertActivities(trx, added);
  const view = toDepositView(updated, [...history, ...added], [...payments, payment], { detail: true });
  await enqueueDepositWebhook(trx, {
    type, merchantId: row.merchant_id, depositId: row.deposit_id, reference: row.reference, status: updated.status, data: view,
  }, now);
  return view;
}

/** A payment's amount: positive, in the currency's places, and exactly what is due for a fixed-amount method. */
function checkAmount(row: DepositRow, amount: Money, remaining: Money): void {
  if (!amount.isPositive() || amount.isZero()) {
    throw new ApiError(400, remaining.isZero() ? 'amount: nothing is due on this deposit; send the amount that arrived' : 'amount: must be positive');
  }
  const places = placesOf(row.input_currency);
  if (places !== undefined && amount.decimalPlaces() > places) {
    throw new ApiError(400, `amount: ${row.input_currency} amounts have at most ${places} decimal places`);
  }
  const method = findPaymentMethod(row.method_code ?? '');
  if (method && FIXED_AMOUNT_KINDS.has(method.kind) && !amount.equals(remaining)) throw new ApiError(400, 'Amount must equal the amount due');
}

// ---------------------------------------------------------------------------------------------------------
// Paying the rest another way (DESIGN.md 10)

type CheckoutAmounts = Pick<CheckoutRow, 'input_currency' | 'output_currency' | 'input_amount' | 'output_amount'>;

/**
 * What a checkout still asks for: the checkout itself, or, pending after a partial payment, the value still due in
 * the checkout's currency, at the price the deposit's method was quoted at (its share still unpaid), rounded up so
 * that the order stays covered. The method list and the switch price the rest from it.
 */
export function checkoutStillDue<T extends CheckoutAmounts>(checkout: T, deposit: Pick<DepositRow, 'status' | 'input_amount' | 'paid_amount'> | undefined): T {
  if (!deposit || deposit.status !== 'pending' || money(deposit.paid_amount).isZero()) return checkout;
  const due = money(deposit.input_amount);
  const share = paidAmountsOf(deposit).remaining.dividedBy(due);
  const scale = (amount: string | null, currency: string) => (amount === null ? null : toText(ceilTo(money(amount).times(share), placesOf(currency) ?? 2)));
  return {
    ...checkout,
    input_amount: scale(checkout.input_amount, checkout.input_currency),
    output_amount: scale(checkout.output_amount, checkout.output_currency),
  };
}
