import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // A deposit's version grows by one with each committed change (switch, payment, expiry, cancel, completion), inside
  // the change's locked transaction: readers order what they hold by it, never by a timestamp taken before the lock.
  await db.schema
    .alterTable('deposits')
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();

  // Unique codes of pending bank transfers: one pool per merchant (and collection account), so one shop's pending
  // transfers never exhaust another's. The table is rebuilt (SQLite cannot change a constraint) with its rows.
  await db.schema
    .createTable('bank_transfer_codes_new')
    .addColumn('deposit_row_id', 'text', (c) => c.primaryKey().references('deposits.id'))
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('account_number', 'text', (c) => c.notNull())
    .addColumn('unique_code', 'integer', (c) => c.notNull())
    .addUniqueConstraint('bank_transfer_codes_merchant_account_code_unique', [
      'merchant_id',
      'account_number',
      'unique_code',
    ])
    .execute();
  await sql`insert into bank_transfer_codes_new (deposit_row_id, merchant_id, account_number, unique_code)
    select c.deposit_row_id, d.merchant_id, c.account_number, c.unique_code from bank_transfer_codes c join deposits d on d.id = c.deposit_row_id`.execute(
    db,
  );
  await db.schema.dropTable('bank_transfer_codes').execute();
  await db.schema.alterTable('bank_transfer_codes_new').renameTo('bank_transfer_codes').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('deposits').dropColumn('version').execute();
}
