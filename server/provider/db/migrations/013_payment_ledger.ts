import { Decimal } from 'decimal.js';
import { sql, type Kysely } from 'kysely';

// The payment ledger (docs/money.md): each payment as it arrived and what it is worth toward the order, in the order's
// currency (a checkout deposit: its checkout's inputCurrency; any other deposit: its own). A deposit keeps the price
// of its current method (what it asked, `price_amount`, for what value, `price_value`) and the order's value
// (`order_value`); `deposit_prices` keeps the price of every method it had before a switch, so money that still
// arrives to an old VA, transfer account or address is valued at the price that method was shown with.
//
// Backfill: a deposit's order is its own input currency and amount, priced 1:1; a checkout deposit paid in another
// currency than its checkout's (a crypto) gets the checkout's currency and value when the checkout says it (its
// inputAmount, or its outputAmount when that is in the same currency). A payment is worth its amount in the order's
// currency, at the current price in the current currency, and the rest of what the old rows counted as paid
// (`paid_amount`, carried over at each switch) is shared among the payments in other currencies by their amounts.
const PRECISION = Decimal.clone({ precision: 60 });

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('deposits')
    .addColumn('order_currency', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema
    .alterTable('deposits')
    .addColumn('order_value', 'text', (c) => c.notNull().defaultTo('0'))
    .execute();
  await db.schema
    .alterTable('deposits')
    .addColumn('price_amount', 'text', (c) => c.notNull().defaultTo('0'))
    .execute();
  await db.schema
    .alterTable('deposits')
    .addColumn('price_value', 'text', (c) => c.notNull().defaultTo('0'))
    .execute();
  await db.schema
    .alterTable('deposit_payments')
    .addColumn('value', 'text', (c) => c.notNull().defaultTo('0'))
    .execute();
  await db.schema
    .createTable('deposit_prices')
    .addColumn('deposit_row_id', 'text', (c) => c.notNull().references('deposits.id'))
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('amount', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('priced_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('deposit_prices_pkey', ['deposit_row_id', 'method'])
    .execute();

  await sql`update deposits set order_currency = input_currency, order_value = input_amount, price_amount = input_amount, price_value = input_amount`.execute(
    db,
  );
  await sql`update deposit_payments set value = amount`.execute(db);

  const crossed = await db
    .selectFrom('deposits')
    .innerJoin('checkouts', 'checkouts.id', 'deposits.checkout_id')
    .select([
      'deposits.id',
      'deposits.input_amount',
      'deposits.output_amount',
      'checkouts.input_currency as checkout_currency',
      'checkouts.input_amount as checkout_input',
      'checkouts.output_currency as checkout_output_currency',
    ])
    .whereRef('deposits.input_currency', '<>', 'checkouts.input_currency')
    .execute();
  for (const d of crossed) {
    const value = d.checkout_input ?? (d.checkout_output_currency === d.checkout_currency ? d.output_amount : null);
    if (value === null) continue;
    await db
      .updateTable('deposits')
      .set({ order_currency: d.checkout_currency, order_value: value, price_value: value })
      .where('id', '=', d.id)
      .execute();
  }

  const paid = await db
    .selectFrom('deposits')
    .innerJoin('deposit_payments', 'deposit_payments.deposit_row_id', 'deposits.id')
    .select([
      'deposits.id',
      'deposits.input_currency',
      'deposits.order_currency',
      'deposits.paid_amount',
      'deposits.price_amount',
      'deposits.price_value',
      'deposit_payments.id as payment_id',
      'deposit_payments.amount',
      'deposit_payments.currency',
    ])
    .whereRef('deposit_payments.currency', '<>', 'deposits.order_currency')
    .execute();
  const byDeposit = new Map<string, typeof paid>();
  for (const p of paid) byDeposit.set(p.id, [...(byDeposit.get(p.id) ?? []), p]);
  for (const payments of byDeposit.values()) {
    const { input_currency: current, paid_amount: paidAmount, price_amount: amount, price_value: value } = payments[0];
    const ratio = new PRECISION(amount).isZero() ? new PRECISION(1) : new PRECISION(value).dividedBy(amount);
    const inCurrent = payments.filter((p) => p.currency === current);
    const older = payments.filter((p) => p.currency !== current);
    for (const p of inCurrent)
      await db
        .updateTable('deposit_payments')
        .set({ value: new PRECISION(p.amount).times(ratio).toDecimalPlaces(20).toFixed() })
        .where('id', '=', p.payment_id)
        .execute();
    const carried = Decimal.max(
      0,
      new PRECISION(paidAmount).minus(inCurrent.reduce((s, p) => s.plus(p.amount), new PRECISION(0))),
    );
    const total = older.reduce((s, p) => s.plus(p.amount), new PRECISION(0));
    for (const p of older) {
      const share = total.isZero() ? new PRECISION(0) : carried.times(p.amount).dividedBy(total).times(ratio);
      await db
        .updateTable('deposit_payments')
        .set({ value: share.toDecimalPlaces(20).toFixed() })
        .where('id', '=', p.payment_id)
        .execute();
    }
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('deposit_prices').execute();
  await db.schema.alterTable('deposit_payments').dropColumn('value').execute();
  for (const column of ['price_value', 'price_amount', 'order_value', 'order_currency'])
    await db.schema.alterTable('deposits').dropColumn(column).execute();
}
