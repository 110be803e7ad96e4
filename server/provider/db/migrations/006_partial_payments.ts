import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // Every payment that arrived for a deposit (docs/design.md, "Payments that do not go as planned"): short, long, late
  // or in parts. Amounts are decimal text in the currency that arrived; `late` is 1 for a payment after the deposit
  // expired or was cancelled.
  await db.schema
    .createTable('deposit_payments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('deposit_row_id', 'text', (c) => c.notNull().references('deposits.id'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('amount', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('late', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('received_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('deposit_payments_seq_unique', ['deposit_row_id', 'seq'])
    .execute();

  // What arrived so far, in the deposit's input currency (after a method switch: what the earlier payments are worth
  // in the new one), kept with the row so that a payment's rules read one locked row.
  await db.schema
    .alterTable('deposits')
    .addColumn('paid_amount', 'text', (c) => c.notNull().defaultTo('0'))
    .execute();
  // 1 once a payment arrived after the deposit expired or was cancelled (the widget's paidLate, read with the row).
  await db.schema
    .alterTable('deposits')
    .addColumn('paid_late', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  // The merchant's underpayment tolerance, a percentage of the amount due (decimal text): a payment that falls short
  // by no more than it completes the deposit.
  await db.schema
    .alterTable('merchants')
    .addColumn('underpayment_tolerance', 'text', (c) => c.notNull().defaultTo('0'))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('merchants').dropColumn('underpayment_tolerance').execute();
  await db.schema.alterTable('deposits').dropColumn('paid_late').execute();
  await db.schema.alterTable('deposits').dropColumn('paid_amount').execute();
  await db.schema.dropTable('deposit_payments').execute();
}
