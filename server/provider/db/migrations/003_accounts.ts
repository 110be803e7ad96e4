import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('verification_tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('otp_hash', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('failed_attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('consumed_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('verification_tokens_expiry').on('verification_tokens').column('expires_at').execute();

  await db.schema
    .createTable('sandbox_mailbox')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('to_email', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('code', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sandbox_mailbox_to').on('sandbox_mailbox').columns(['to_email', 'created_at']).execute();

  await db.schema
    .createTable('rate_limits')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addColumn('reset_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('rate_limits_reset').on('rate_limits').column('reset_at').execute();

  await db.schema
    .createTable('recipients')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('recipient_type', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('city', 'text', (c) => c.notNull())
    .addColumn('post_code', 'text', (c) => c.notNull())
    .addColumn('reference', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('recipients_org_created')
    .on('recipients')
    .columns(['organization_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('recipient_banks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('recipient_id', 'text', (c) => c.notNull().references('recipients.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('account_name', 'text', (c) => c.notNull())
    .addColumn('bank_name', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('account_number', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('payment_code', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('country', 'text', (c) => c.notNull())
    .addColumn('ach_number', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('fedwire_number', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('iban_number', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('ifsc', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('account_type', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema.createIndex('recipient_banks_recipient').on('recipient_banks').column('recipient_id').execute();

  await db.schema
    .createTable('webhook_resends')
    .addColumn('delivery_id', 'text', (c) => c.primaryKey().references('webhook_deliveries.id'))
    .addColumn('original_delivery_id', 'text', (c) => c.notNull().references('webhook_deliveries.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of [
    'webhook_resends',
    'recipient_banks',
    'recipients',
    'rate_limits',
    'sandbox_mailbox',
    'verification_tokens',
  ]) {
    await db.schema.dropTable(t).execute();
  }
}
