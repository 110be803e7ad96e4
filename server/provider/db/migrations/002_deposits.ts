import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('deposits')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('deposit_id', 'text', (c) => c.notNull())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('deposit_type', 'text', (c) => c.notNull())
    .addColumn('method_code', 'text')
    .addColumn('input_currency', 'text', (c) => c.notNull())
    .addColumn('input_amount', 'text', (c) => c.notNull())
    .addColumn('output_currency', 'text', (c) => c.notNull())
    .addColumn('output_amount', 'text', (c) => c.notNull())
    .addColumn('exchange_rate', 'text', (c) => c.notNull())
    .addColumn('fee_amount', 'text', (c) => c.notNull())
    .addColumn('fee_percentage', 'text', (c) => c.notNull())
    .addColumn('fee_currency', 'text', (c) => c.notNull())
    .addColumn('payment_fiat', 'text', (c) => c.notNull())
    .addColumn('payment_crypto', 'text', (c) => c.notNull())
    .addColumn('va_number', 'text')
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('pending', 'expired', 'completed')`))
    .addColumn('reference', 'text')
    .addColumn('note', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('bank_note', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('balance_type', 'text', (c) => c.notNull())
    .addColumn('quote_id', 'text')
    .addColumn('is_reconciled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('payer_info', 'text')
    .addColumn('show_exchange_info', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('checkout_id', 'text')
    .addColumn('expired_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('deposits_deposit_id_unique', ['deposit_id'])
    // Unique per merchant when present (NULLs never collide), so two concurrent creates cannot both win.
    .addUniqueConstraint('deposits_merchant_reference_unique', ['merchant_id', 'reference'])
    .addUniqueConstraint('deposits_va_number_unique', ['va_number'])
    .execute();
  await db.schema
    .createIndex('deposits_merchant_created')
    .on('deposits')
    .columns(['merchant_id', 'created_at'])
    .execute();
  await db.schema
    .createIndex('deposits_merchant_updated')
    .on('deposits')
    .columns(['merchant_id', 'updated_at'])
    .execute();
  await db.schema.createIndex('deposits_status_expiry').on('deposits').columns(['status', 'expired_at']).execute();

  await db.schema
    .createTable('deposit_activities')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('deposit_row_id', 'text', (c) => c.notNull().references('deposits.id'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('activity', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('deposit_activities_seq_unique', ['deposit_row_id', 'seq'])
    .execute();

  await db.schema
    .createTable('checkouts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'text', (c) => c.notNull().references('merchants.id'))
    .addColumn('input_currency', 'text', (c) => c.notNull())
    .addColumn('output_currency', 'text', (c) => c.notNull())
    .addColumn('input_amount', 'text')
    .addColumn('output_amount', 'text')
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addCheckConstraint('checkouts_one_amount', sql`(input_amount is null) <> (output_amount is null)`)
    .execute();
  await db.schema
    .createIndex('checkouts_merchant_created')
    .on('checkouts')
    .columns(['merchant_id', 'created_at'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['checkouts', 'deposit_activities', 'deposits']) await db.schema.dropTable(t).execute();
}
