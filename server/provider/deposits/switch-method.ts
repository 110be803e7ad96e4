// Switching a pending checkout deposit to another method (the hosted checkout, DESIGN.md 3 and 10): the same row
// gets the new method's price and payment details in one transaction with its history entry; no webhook, since the
// status does not change.
import { Decimal } from 'decimal.js';
import { merchantOwner } from '../accounts/merchants.js';
import { ApiError } from '../../common/errors.js';
import { placesOf } from '../catalog/index.js';
import type { NewDeposit } from '../db/deposit-tables.js';
import type { ProviderDeps } from '../deps.js';
import { newRecordId } from '../ids.js';
import { money, toText } from '../money.js';
import { DepositNotFound, DepositNotPending } from './errors.js';
import { expireFirstIfOverdue, isOverdue } from './expire.js';
import { cryptoPlan, fiatPlan, withFreshDraws, writePaymentExtras, type CryptoDepositRequest, type FiatDepositRequest } from './payment-plan.js';
import { activitiesOf, depositByRowId, depositStateOf, insertActivity, nextActivitySeq, paymentsOf, updatePendingDeposit } from './repository.js';
import { paidAmountsOf, toDepositView, type DepositRow, type DepositView } from './view.js';

/** How many times one deposit's method can change (its history: the creation, then one entry per switch). */
const MAX_SWITCHES = 20;

/** The new method of a switch: a fiat method's request, or a crypto one's. */
export type SwitchRequest = { depositType: 'fiat'; request: FiatDepositRequest } | { depositType: 'crypto'; request: CryptoDepositRequest };

/**
 * Switches a pending deposit to another method: the same row (same depositId) gets the new method's price and payment
 * details, its old VA number or unique code is released, its version grows, and the history records the switch. One
 * transaction with the row locked, its time taken once the lock is held (so times and versions follow commit order):
 * two concurrent switches run one after the other, and one to the method the deposit has by then changes nothing
 * (`switched` false). Throws DepositNotFound, or DepositNotPending when the deposit is no longer pending (expired
 * first when overdue).
 */
export async function switchDepositMethod(deps: ProviderDeps, depositId: string, to: SwitchRequest): Promise<{ view: DepositView; switched: boolean }> {
  const found = await depositStateOf(deps.db, depositId);
  if (!found) throw new DepositNotFound();
  await expireFirstIfOverdue(deps, found);
  const current = await depositByRowId(deps.db, found.id);
  if (!current) throw new DepositNotFound();
  const owner = { merchantId: current.merchant_id, userId: current.user_id, organizationId: (await merchantOwner(deps.db, current.merchant_id)).organizationId };
  const options = { exchangeInfo: current.show_exchange_info === 1 };
  const plan = to.depositType === 'fiat'
    ? await fiatPlan(deps, owner, to.request, depositId, options)
    : await cryptoPlan(deps, owner, to.request, options);
  try {
    return await withFreshDraws(deps, async (trx) => {
      const row = await depositByRowId(trx, found.id, { lock: true });
      if (!row) throw new DepositNotFound();
      const now = deps.now();
      if (row.status !== 'pending' || isOverdue(row, now)) throw new DepositNotPending(row.status === 'pending' ? 'expired' : row.status);
      const from = row.method_code ?? row.input_currency;
      // A concurrent choice of this method committed first: its details stand (new ones would void what it shows).
      if (from === plan.code) return { view: toDepositView(row, await activitiesOf(trx, row.id), await paymentsOf(trx, row.id), { detail: true }), switched: false };
      // The public checkout page can switch; a bound keeps its history (and quotes) from growing without end.
      const seq = await nextActivitySeq(trx, row.id);
      if (seq > MAX_SWITCHES + 1) throw new ApiError(400, `paymentMethod: the payment method was changed ${MAX_SWITCHES} times already; it cannot change again`);
      const { columns, code } = await plan.draw(trx, row.id, now);
      // After a partial payment the new method asks only the rest; what was paid stays (DESIGN.md 10).
      const updated = await updatePendingDeposit(trx, row.id, { ...carryPaid(row, columns), updated_at: now.toISOString() });
      if (!updated) throw new DepositNotPending(row.status);
      await writePaymentExtras(trx, row.merchant_id, row.id, plan, code, now);
      await insertActivity(trx, {
        id: newRecordId(), deposit_row_id: row.id, seq, activity: 'Payment Method Changed', status: 'pending',
        description: `Payment method changed from ${from} to ${plan.code}; the ${from} payment details are no longer valid`, updated_at: now.toISOString(),
      });
      return { view: toDepositView(updated, await activitiesOf(trx, row.id), await paymentsOf(trx, row.id), { detail: true }), switched: true };
    });
  } finally {
    deps.changes.announce(depositId);
  }
}

type SwitchColumns = Pick<NewDeposit, 'input_currency' | 'input_amount' | 'output_amount' | 'paid_amount'>;

/**
 * The columns of a method switch after a partial payment: the new method asks only the rest (its priced amount), and
 * what was paid is carried over in the new currency at the same price (the rest's amount times paid / still due), so
 * the deposit shows paid + remaining = its amount; the order's outputAmount stays. Without a payment: as priced.
 */
function carryPaid<C extends SwitchColumns>(row: Pick<DepositRow, 'input_amount' | 'paid_amount' | 'output_amount' | 'status'>, columns: C): C {
  const { paid, remaining } = paidAmountsOf(row);
  if (paid.isZero() || remaining.isZero()) return columns;
  const rest = money(columns.input_amount);
  const carried = rest.times(paid).dividedBy(remaining).toDecimalPlaces(placesOf(columns.input_currency) ?? 2, Decimal.ROUND_DOWN);
  return { ...columns, input_amount: toText(rest.plus(carried)), paid_amount: toText(carried), output_amount: row.output_amount };
}
