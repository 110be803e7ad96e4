import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // Convert-estimation quotes (docs/design.md, "Quotes, banks, bank transfers"): held 60 s, claimed once by the deposit
  // that uses them.
  await db.schema
    .createTable('quotes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('input_currency', 'text', (c) => c.notNull())
    .addColumn('input_amount', 'text', (c) => c.notNull())
    .addColumn('output_currency', 'text', (c) => c.notNull())
    .addColumn('output_amount', 'text', (c) => c.notNull())
    .addColumn('exchange_rate', 'text', (c) => c.notNull())
    .addColumn('fee', 'text', (c) => c.notNull())
    .addColumn('payment_method', 'text')
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_by', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('quotes_expiry').on('quotes').column('expires_at').execute();

  // The unique codes of pending bank transfers: one code per collection account at a time (the constraint makes
  // concurrent creates draw different codes); a row lives while its deposit is pending.
  await db.schema
    .createTable('bank_transfer_codes')
    .addColumn('deposit_row_id', 'text', (c) => c.primaryKey().references('deposits.id'))
    .addColumn('account_number', 'text', (c) => c.notNull())
    .addColumn('unique_code', 'integer', (c) => c.notNull())
    .addUniqueConstraint('bank_transfer_codes_account_code_unique', ['account_number', 'unique_code'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['bank_transfer_codes', 'quotes']) await db.schema.dropTable(t).execute();
}
