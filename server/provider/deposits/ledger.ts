// The payment ledger (docs/money.md): what a deposit's figures are, derived from its payments as they arrived. Each
// payment keeps its amount, currency and method, and what it is worth toward the order in the order's currency (its
// `value`). The deposit keeps the order's value and the price of its current method (asked `price_amount` in its
// inputCurrency for `price_value` of the order): paid, still due and overpaid in the current currency are the
// current method's price of values, never a rescaled sum, so a switch changes no payment.
import { Decimal } from 'decimal.js';
import { placesOf } from '../catalog/index.js';
import type { DepositRow, PaymentRow, PriceRow } from '../db/deposit-tables.js';
import { ceilTo, money, type Money } from './money.js';

/** The places a payment's value is kept to: far below any currency's unit, so that sums stay exact to the unit. */
const VALUE_PLACES = 20;

export type LedgerRow = Pick<
  DepositRow,
  'status' | 'input_currency' | 'order_currency' | 'order_value' | 'price_amount' | 'price_value'
>;

/** A method's price: it asked `amount` (in `currency`) for `value` of the order. */
export interface Price {
  method: string;
  currency: string;
  amount: Money;
  value: Money;
}

export interface Ledger {
  /** In the deposit's inputCurrency: what arrived (same-currency payments exactly), what is still due, what arrived beyond the order. */
  paid: Money;
  remaining: Money;
  overpaid: Money;
  /** The same in the order's currency. */
  paidValue: Money;
  remainingValue: Money;
  overpaidValue: Money;
  orderCurrency: string;
  /** What the order still lacks, exact (below 0: more arrived than the order). */
  lacking: Money;
  /** How many payments arrived. */
  count: number;
}

const placesFor = (currency: string) => placesOf(currency) ?? 8;

// Rounding to a currency's places, after dropping what a conversion leaves far below its unit (1e-20 of a value
// carried through a price must neither round a figure up nor down by a whole unit).
const settled = (x: Decimal, places: number) => x.toDecimalPlaces(places + 8, Decimal.ROUND_HALF_UP);
const down = (x: Decimal, places: number): Money =>
  money(settled(x, places).toDecimalPlaces(places, Decimal.ROUND_DOWN));
const up = (x: Decimal, places: number): Money => ceilTo(settled(x, places), places);

/** The current method's price of a deposit. */
export function currentPrice(row: LedgerRow & Pick<DepositRow, 'method_code'>): Price {
  return {
    method: row.method_code ?? row.input_currency,
    currency: row.input_currency,
    amount: money(row.price_amount),
    value: money(row.price_value),
  };
}

export function priceOfRow(row: PriceRow): Price {
  return { method: row.method, currency: row.currency, amount: money(row.amount), value: money(row.value) };
}

/**
 * The unique code a bank transfer's price holds, as a value of the order (0 for other methods): the current transfer's
 * code is owed while it is the method, and drops out when the deposit leaves it, so switching back and forth never
 * piles codes onto the order.
 */
export function uniqueCodeValue(row: Pick<DepositRow, 'payment_fiat' | 'input_currency' | 'order_currency'>): Money {
  const code = (JSON.parse(row.payment_fiat) as { uniqueCode?: string }).uniqueCode;
  if (!code || (row.order_currency || row.input_currency) !== row.input_currency) return money(0);
  return money(code).dividedBy(money(10).pow(placesFor(row.input_currency)));
}

/** What the order lacks before the current method's own extras (its unique code): what a new method is priced for. */
export function restOf(
  row: Pick<DepositRow, 'payment_fiat' | 'input_currency' | 'order_currency'>,
  ledger: Ledger,
): Money {
  return ledger.lacking.minus(uniqueCodeValue(row));
}

/** A value of the order in a price's currency (unrounded): value x amount / value priced. */
function amountFor(price: Pick<Price, 'amount' | 'value'>, value: Decimal): Money {
  // Most deposits are priced in the order's own currency (1:1): no division (a 60-digit one costs a completion's time).
  if (value.isZero() || price.value.isZero() || price.amount.equals(price.value)) return money(value);
  return money(value).times(price.amount).dividedBy(price.value);
}

/**
 * What a payment is worth toward the order: in the order's currency its amount (a bank transfer's unique code does not
 * shrink it); in another, its amount at the price its method had.
 */
export function valueOf(
  orderCurrency: string,
  price: Pick<Price, 'currency' | 'amount' | 'value'>,
  amount: Money,
): Money {
  if (price.currency === orderCurrency || price.amount.isZero()) return money(amount);
  return amount.times(price.value).dividedBy(price.amount).toDecimalPlaces(VALUE_PLACES, Decimal.ROUND_HALF_UP);
}

/** What a method asks for what the order still lacks: its price of it, rounded up to its currency's precision. */
export function askedFor(price: Price, lacking: Money): Money {
  return lacking.isPositive() && !lacking.isZero()
    ? up(amountFor(price, lacking), placesFor(price.currency))
    : money(0);
}

/**
 * The figures of a deposit from its payments (the ledger) and its current price. Completed: nothing is due (a tolerated
 * shortfall included). Paid in the current currency is the exact sum of the payments in it, plus the current price of
 * what the others are worth; what is still due is rounded up, what was paid and overpaid down.
 */
export function ledgerOf(
  row: LedgerRow & Pick<DepositRow, 'method_code'>,
  payments: readonly Pick<PaymentRow, 'amount' | 'currency' | 'value'>[],
): Ledger {
  const price = currentPrice(row);
  const places = placesFor(row.input_currency);
  const orderCurrency = row.order_currency || row.input_currency;
  const orderPlaces = placesFor(orderCurrency);
  let arrived = money(0);
  let same = money(0);
  let otherValue = money(0);
  for (const p of payments) {
    arrived = arrived.plus(p.value);
    if (p.currency === row.input_currency) same = same.plus(p.amount);
    else otherValue = otherValue.plus(p.value);
  }
  // Cut (towards 0) to far below the order currency's unit: a hair a conversion leaves is no debt, and what is asked
  // for it, rounded up, covers it without counting that hair as paid beyond the order.
  const lacking = money(
    money(row.order_value)
      .minus(arrived)
      .toDecimalPlaces(orderPlaces + 8, Decimal.ROUND_DOWN),
  );
  const done = row.status === 'completed';
  // What arrived beyond the order, from the uncut difference: the cut above is for a hair of a debt, and cutting an
  // excess too would shave its last unit (1 USDC over showed as 0.999999).
  const beyond = lacking.isNegative() ? arrived.minus(money(row.order_value)) : money(0);
  return {
    paid: same.plus(down(amountFor(price, otherValue), places)),
    remaining: done ? money(0) : askedFor(price, lacking),
    overpaid: down(amountFor(price, beyond), places),
    paidValue: down(arrived, orderPlaces),
    remainingValue: done || !lacking.isPositive() || lacking.isZero() ? money(0) : up(lacking, orderPlaces),
    overpaidValue: down(beyond, orderPlaces),
    orderCurrency,
    lacking,
    count: payments.length,
  };
}

/**
 * What each payment is shown worth, in the order's currency, so that they add up to `paidValue` exactly: the running
 * total of the exact values is cut down to the currency's unit once, and each payment shows what it adds to that cut
 * total (in the order they arrived: a payment's figure never changes when another arrives).
 */
export function shownValues(orderCurrency: string, payments: readonly Pick<PaymentRow, 'value'>[]): Money[] {
  const places = placesFor(orderCurrency);
  let total = money(0);
  let shown = money(0);
  return payments.map((p) => {
    total = total.plus(p.value);
    const before = shown;
    shown = down(total, places);
    return money(shown.minus(before));
  });
}
