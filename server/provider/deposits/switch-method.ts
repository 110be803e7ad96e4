// Switching a pending checkout deposit to another method (the hosted checkout, docs/design.md, "Checkout" and "Payments
// that do not go as planned"): the same row gets the new method's price and payment details in one transaction with its
// history entry; no webhook, since the status does not change.
import { merchantOwner } from '../accounts/merchants.js';
import { ApiError } from '../../common/errors.js';
import type { ProviderDeps } from '../instance/deps.js';
import { newRecordId } from '../db/ids.js';
import { money, toText, type Money } from './money.js';
import { DepositNotFound, DepositNotPending } from './errors.js';
import { expireFirstIfOverdue, isOverdue } from './expire.js';
import {
  cryptoPlan,
  fiatPlan,
  ledgerColumns,
  withFreshDraws,
  writePaymentExtras,
  type CryptoDepositRequest,
  type FiatDepositRequest,
} from './payment-plan.js';
import { ledgerOf, restOf, uniqueCodeValue } from './ledger.js';
import {
  activitiesOf,
  depositByRowId,
  depositStateOf,
  insertActivity,
  keepEarlierPrice,
  nextActivitySeq,
  paymentsOf,
  switchCountOf,
  updatePendingDeposit,
} from './repository.js';
import { toDepositView, type DepositRow, type DepositView } from './view.js';

/** How many times one deposit's method can change (counted by its history's switch entries, nothing else). */
const MAX_SWITCHES = 20;
/** The history entry a switch writes. */
const SWITCH_ACTIVITY = 'Payment Method Changed';

/** The new method of a switch: a fiat method's request, or a crypto one's. */
export type SwitchRequest =
  { depositType: 'fiat'; request: FiatDepositRequest } | { depositType: 'crypto'; request: CryptoDepositRequest };

/**
 * A switch whose new method is priced inside the switch's locked transaction (docs/money.md), from the deposit as it
 * stands then: `code` is the method, `price` makes its request (given the service bound to the transaction, the locked
 * row, and what the order lacks without the old method's unique code, and whether money arrived) and says, for a
 * price in another currency than the order's, what value of the order it covers (used before any payment).
 */
export interface PricedSwitch {
  code: string;
  price(
    deps: ProviderDeps,
    row: DepositRow,
    rest: { lacking: Money; paid: boolean },
  ): Promise<{ next: SwitchRequest; value?: string }>;
}

const codeOf = (to: SwitchRequest) => (to.depositType === 'fiat' ? to.request.paymentMethod : to.request.inputCurrency);

/**
 * Switches a pending deposit to another method: the same row (same depositId) gets the new method's price and payment
 * details, its old VA number or unique code is released, its version grows, and the history records the switch. One
 * transaction with the row locked, its time taken once the lock is held (so times and versions follow commit order):
 * two concurrent switches run one after the other, and one to the method the deposit has by then changes nothing
 * (`switched` false). The new method is priced inside it, for what the order lacks as the locked row and its payments
 * say; the old method's price is kept, so money still arriving to it is valued as it was shown; no payment changes.
 * Throws DepositNotFound, or DepositNotPending when the deposit is no longer pending (expired first when overdue).
 */
export async function switchDepositMethod(
  deps: ProviderDeps,
  depositId: string,
  to: SwitchRequest | PricedSwitch,
): Promise<{ view: DepositView; switched: boolean }> {
  const found = await depositStateOf(deps.db, depositId);
  if (!found) throw new DepositNotFound();
  await expireFirstIfOverdue(deps, found);
  const current = await depositByRowId(deps.db, found.id);
  if (!current) throw new DepositNotFound();
  const owner = {
    merchantId: current.merchant_id,
    userId: current.user_id,
    organizationId: (await merchantOwner(deps.db, current.merchant_id)).organizationId,
  };
  const options = { exchangeInfo: current.show_exchange_info === 1 };
  const priced: PricedSwitch = 'price' in to ? to : { code: codeOf(to), price: async () => ({ next: to }) };
  try {
    return await withFreshDraws(deps, async (trx) => {
      const row = await depositByRowId(trx, found.id, { lock: true });
      if (!row) throw new DepositNotFound();
      const now = deps.now();
      if (row.status !== 'pending' || isOverdue(row, now))
        throw new DepositNotPending(row.status === 'pending' ? 'expired' : row.status);
      const from = row.method_code ?? row.input_currency;
      const payments = await paymentsOf(trx, row.id);
      // A concurrent choice of this method committed first: its details stand (new ones would void what it shows).
      if (from === priced.code)
        return {
          view: toDepositView(row, await activitiesOf(trx, row.id), payments, { detail: true }),
          switched: false,
        };
      // The public checkout page can switch; a bound keeps its history (and quotes) from growing without end.
      if ((await switchCountOf(trx, row.id, SWITCH_ACTIVITY)) >= MAX_SWITCHES)
        throw new ApiError(
          400,
          `paymentMethod: the payment method was changed ${MAX_SWITCHES} times already; it cannot change again`,
        );
      // Priced here, from the locked row: a payment that committed a moment ago counts (its row lock came first).
      const bound = { ...deps, db: trx };
      const ledger = ledgerOf(row, payments);
      const lacking = restOf(row, ledger);
      const { next, value } = await priced.price(bound, row, { lacking, paid: payments.length > 0 });
      const plan =
        next.depositType === 'fiat'
          ? await fiatPlan(bound, owner, next.request, depositId, options)
          : await cryptoPlan(bound, owner, next.request, options);
      const { columns, code } = await plan.draw(trx, row.id, now);
      // Before any payment the new method is priced afresh, as at creation. Once money arrived the order stays what it
      // was, but for the unique code of a transfer (owed while it is the method): in the order's currency the new
      // price is worth its amount (rounded up to the unit: a fraction below one unit may arrive beyond the order), in
      // another it covers exactly what the order lacks.
      const rest = toText(lacking.isPositive() ? lacking : money(0));
      let prices = ledgerColumns(columns, {
        currency: ledger.orderCurrency,
        value: payments.length ? rest : (value ?? rest),
      });
      if (payments.length) {
        const orderValue = money(row.order_value)
          .minus(uniqueCodeValue(row))
          .plus(uniqueCodeValue({ ...columns, order_currency: prices.order_currency }));
        prices = { ...prices, order_value: toText(orderValue) };
      }
      // What arrived stays as it arrived; the new method asks for what the order lacks, and the deposit's inputAmount is
      // what it has been paid plus that (in the new currency); the order's outputAmount stays once money arrived.
      const paidNow = ledgerOf(
        { ...row, ...columns, ...prices, method_code: columns.method_code ?? null },
        payments,
      ).paid;
      const carried = payments.length
        ? { input_amount: toText(money(columns.input_amount).plus(paidNow)), output_amount: row.output_amount }
        : {};
      await keepEarlierPrice(trx, {
        deposit_row_id: row.id,
        method: from,
        currency: row.input_currency,
        amount: row.price_amount,
        value: row.price_value,
        priced_at: now.toISOString(),
      });
      const updated = await updatePendingDeposit(trx, row.id, {
        ...columns,
        ...prices,
        ...carried,
        paid_amount: toText(paidNow),
        updated_at: now.toISOString(),
      });
      if (!updated) throw new DepositNotPending(row.status);
      await writePaymentExtras(trx, row.merchant_id, row.id, plan, code, now);
      await insertActivity(trx, {
        id: newRecordId(),
        deposit_row_id: row.id,
        seq: await nextActivitySeq(trx, row.id),
        activity: SWITCH_ACTIVITY,
        status: 'pending',
        description: `Payment method changed from ${from} to ${plan.code}; the ${from} payment details are no longer valid`,
        updated_at: now.toISOString(),
      });
      return {
        view: toDepositView(updated, await activitiesOf(trx, row.id), payments, { detail: true }),
        switched: true,
      };
    });
  } finally {
    deps.changes.announce(depositId);
  }
}
