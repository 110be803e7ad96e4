// Payments that arrive for a deposit (docs/design.md, "Payments that do not go as planned"): short, long, late or in
// parts. Each is recorded in one transaction with the deposit's new state, its history entry and its webhook in the
// outbox, with the row locked (PostgreSQL; SQLite's write transactions never overlap), so two payments racing on one
// deposit, or a payment racing the expiry sweeper, run one after the other and leave one consistent result. Also here:
// what is still due when the shopper pays the rest another way (the checkout's methods priced for it, and the switch
// that keeps what was paid).
import type { Transaction } from 'kysely';
import { underpaymentTolerance } from '../accounts/merchants.js';
import { findPaymentMethod, maximumOf, placesOf } from '../catalog/index.js';
import type { Database } from '../db/database.js';
import type { CheckoutRow, DepositUpdate } from '../db/deposit-tables.js';
import type { ProviderDeps } from '../instance/deps.js';
import { ApiError } from '../../common/errors.js';
import { newRecordId } from '../db/ids.js';
import { ceilTo, money, toText, type Money } from './money.js';
import { enqueueDepositWebhook } from '../webhooks/outbox.js';
import type { DepositEventType } from '../webhooks/events.js';
import { sandboxPayerInfo } from './payment-details.js';
import {
  activitiesOf,
  earlierPricesOf,
  insertActivities,
  insertPayment,
  paymentsOf,
  releaseUniqueCode,
  seqAfter,
  versioned,
} from './repository.js';
import { askedFor, currentPrice, ledgerOf, priceOfRow, valueOf, type Price } from './ledger.js';
import { DepositNotPending } from './errors.js';
import { changeLockedDeposit, holdsUniqueCode } from './expire.js';
import { kindOfMethod, METHOD_KINDS } from './method-kinds.js';
import { toDepositView, type ActivityRow, type DepositRow, type DepositView, type PaymentRow } from './view.js';

export interface PaymentRequest {
  /** What arrived, in the payment's currency; by default what its method asks for what the order still lacks. */
  amount?: number | string;
  /** The currency that arrived (default: the method's, else the deposit's current inputCurrency). */
  currency?: string;
  /** The method it was paid to: a bankCode or crypto id the deposit has or had (default: the current one). */
  method?: string;
  /** Only this merchant's deposit (the signed and token-authenticated routes). */
  merchantId?: string;
  /** Only while pending: the sandbox status update and the e-wallet approval, which cannot be late. */
  pendingOnly?: boolean;
  /** The history entry of a payment that completes the deposit (default "Payment received"). */
  completedDescription?: string;
}

interface HistoryEntry {
  activity: string;
  status: string;
  description: string;
}

/**
 * Records a payment for a deposit (docs/design.md, "Payments that do not go as planned") and answers the updated
 * Deposit. Pending: completed once what arrived reaches the amount due less the merchant's underpayment tolerance
 * (history "Overpaid" beyond it), else a partial payment (webhook deposit.partially_paid). Expired or cancelled: a late
 * payment (webhook deposit.paid_late), the status stays expired; a deposit pending past its expiredAt is expired first.
 * Fixed-amount methods take exactly what is due. Throws DepositNotFound, DepositNotPending (completed, or not pending
 * with `pendingOnly`) or a 400 ApiError.
 */
export async function recordPayment(
  deps: ProviderDeps,
  depositId: string,
  request: PaymentRequest = {},
): Promise<DepositView> {
  // The row read once, locked, in the payment's own transaction (no read before it: each statement of a completion is
  // a round trip on PostgreSQL). Overdue: the expiry comes first, then the payment is a late one.
  return changeLockedDeposit(deps, depositId, request.merchantId, (trx, row, now) =>
    applyPayment(trx, row, request, now),
  );
}

async function applyPayment(
  trx: Transaction<Database>,
  row: DepositRow,
  request: PaymentRequest,
  now: Date,
): Promise<DepositView> {
  if (row.status === 'completed' || (request.pendingOnly && row.status !== 'pending'))
    throw new DepositNotPending(row.status);
  // The deposit's payments and history read once, under the lock: the figures, the new rows' sequence numbers and the
  // webhook's view come from them.
  const payments = await paymentsOf(trx, row.id);
  const before = ledgerOf(row, payments);
  const price = await priceOfPayment(trx, row, request);
  const current = price.method === currentPrice(row).method;
  // Whether the payer cannot choose the amount: the bank or wallet collects exactly what is due.
  const fixed = !METHOD_KINDS[kindOfMethod(findPaymentMethod(price.method))].takesAnyAmount;
  // A fixed-amount method asks exactly: the current one what the order still lacks, an old one the price it was shown with.
  const asked = current ? before.remaining : fixed ? price.amount : askedFor(price, before.lacking);
  const amount = request.amount === undefined ? asked : money(request.amount);
  checkAmount(price.currency, amount, asked, fixed);

  const at = now.toISOString();
  const late = row.status === 'expired';
  const history = await activitiesOf(trx, row.id);
  const payment: PaymentRow = {
    id: newRecordId(),
    deposit_row_id: row.id,
    seq: payments.length + 1,
    amount: toText(amount),
    currency: price.currency,
    method: price.method,
    late: late ? 1 : 0,
    received_at: at,
    value: toText(valueOf(before.orderCurrency, price, amount)),
  };
  await insertPayment(trx, payment);
  const after = ledgerOf(row, [...payments, payment]);
  const order = money(row.order_value);

  let changes: DepositUpdate = { paid_amount: toText(after.paid), updated_at: at };
  let entries: HistoryEntry[];
  let type: DepositEventType;
  if (late) {
    changes = { ...changes, paid_late: 1 };
    entries = [
      { activity: 'Payment Received After Expiry', status: 'expired', description: 'Payment received after expiry' },
    ];
    type = 'deposit.paid_late';
  } else if (
    !after.lacking.isPositive() ||
    after.lacking.isZero() ||
    after.lacking.lessThanOrEqualTo(order.times(await underpaymentTolerance(trx, row.merchant_id)).dividedBy(100))
  ) {
    // The tolerance (0 to 100 %) is read only for a shortfall: what covers the order completes whatever it is.
    changes = { ...changes, status: 'completed', is_reconciled: 1, payer_info: JSON.stringify(sandboxPayerInfo(row)) };
    entries = [
      {
        activity: 'Payment Received',
        status: 'completed',
        description: request.completedDescription ?? 'Payment received',
      },
    ];
    if (after.overpaid.isPositive() && !after.overpaid.isZero())
      entries.push({ activity: 'Overpaid', status: 'completed', description: 'Overpaid' });
    type = 'deposit.completed';
    // A finished bank transfer's unique code is free for the next transfer to its account.
    if (holdsUniqueCode(row)) await releaseUniqueCode(trx, row.id);
  } else {
    entries = [{ activity: 'Partial Payment Received', status: 'pending', description: 'Partial payment received' }];
    type = 'deposit.partially_paid';
  }
  const updated = await trx
    .updateTable('deposits')
    .set(versioned(changes))
    .where('id', '=', row.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  let seq = seqAfter(history);
  const added: ActivityRow[] = entries.map((entry) => ({
    id: newRecordId(),
    deposit_row_id: row.id,
    seq: seq++,
    ...entry,
    updated_at: at,
  }));
  await insertActivities(trx, added);
  const view = toDepositView(updated, [...history, ...added], [...payments, payment], { detail: true });
  await enqueueDepositWebhook(
    trx,
    {
      type,
      merchantId: row.merchant_id,
      depositId: row.deposit_id,
      reference: row.reference,
      status: updated.status,
      data: view,
    },
    now,
  );
  return view;
}

const mismatch = () => new ApiError(400, 'Payment does not match the deposit');

/**
 * The price of the method a payment was sent to (docs/money.md): the current one by default; a method (or a
 * currency) the deposit had before a switch is money still arriving to details it was shown, valued at that method's
 * price; one it never had: 400 "Payment does not match the deposit". Earlier prices are read only for such a payment.
 */
async function priceOfPayment(
  trx: Transaction<Database>,
  row: DepositRow,
  request: Pick<PaymentRequest, 'currency' | 'method'>,
): Promise<Price> {
  const current = currentPrice(row);
  const { method, currency } = request;
  if ((method === undefined || method === current.method) && (currency === undefined || currency === current.currency))
    return current;
  if (method === current.method) throw mismatch();
  const earlier = (await earlierPricesOf(trx, row.id)).map(priceOfRow);
  const found =
    method === undefined ? earlier.find((p) => p.currency === currency) : earlier.find((p) => p.method === method);
  if (!found || (currency !== undefined && found.currency !== currency)) throw mismatch();
  return found;
}

/**
 * A payment's amount: positive, in its currency's places, at most its maximum (so no figure ever leaves the numbers a
 * JSON answer can carry), and exactly what is asked for a fixed-amount method.
 */
function checkAmount(currency: string, amount: Money, asked: Money, fixed: boolean): void {
  if (!amount.isFinite() || !amount.isPositive() || amount.isZero()) {
    throw new ApiError(
      400,
      asked.isZero()
        ? 'amount: nothing is due on this deposit; send the amount that arrived'
        : 'amount: must be positive',
    );
  }
  const places = placesOf(currency);
  if (places !== undefined && amount.decimalPlaces() > places) {
    throw new ApiError(400, `amount: ${currency} amounts have at most ${places} decimal places`);
  }
  const maximum = maximumOf(currency);
  if (maximum !== undefined && amount.greaterThan(maximum))
    throw new ApiError(400, `amount: ${currency} amounts are at most ${maximum}`);
  if (fixed && !amount.equals(asked)) throw new ApiError(400, 'Amount must equal the amount due');
}

// ---------------------------------------------------------------------------------------------------------
// Paying the rest another way (docs/design.md, "Payments that do not go as planned")

type CheckoutAmounts = Pick<CheckoutRow, 'input_currency' | 'output_currency' | 'input_amount' | 'output_amount'>;

/**
 * What a checkout still asks for: the checkout itself, or, pending once money arrived, the value the order still
 * lacks in the checkout's currency (docs/money.md), which the method list and the switch price each method for.
 */
export function checkoutStillDue<T extends CheckoutAmounts>(
  checkout: T,
  deposit: { status: string; paid: boolean; lacking: Money } | undefined,
): T {
  if (!deposit || deposit.status !== 'pending' || !deposit.paid) return checkout;
  const rest = ceilTo(
    deposit.lacking.isPositive() ? deposit.lacking : money(0),
    placesOf(checkout.input_currency) ?? 2,
  );
  return { ...checkout, input_amount: toText(rest), output_amount: null };
}
