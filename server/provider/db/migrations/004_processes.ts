import { sql, type Kysely } from 'kysely';
import { engineOf } from '../engine.js';

/** The channel a new outbox row is announced on (PostgreSQL), with its deposit id as the payload. */
export const OUTBOX_CHANNEL = 'kasir_webhook_enqueued';

export async function up(db: Kysely<any>): Promise<void> {
  // Values every copy of the service must share: the access-token signing key, the seeded sandbox password.
  await db.schema
    .createTable('service_keys')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  if (engineOf(db) === 'postgres') {
    // Every insert into the outbox, whoever makes it, wakes the dispatchers of every copy when its transaction
    // commits (a NOTIFY in a transaction is sent at commit, and not at all on rollback).
    await sql`create function kasir_notify_webhook_enqueued() returns trigger language plpgsql as $$
      begin
        perform pg_notify(${sql.lit(OUTBOX_CHANNEL)}, new.deposit_id);
        return null;
      end $$`.execute(db);
    await sql`create trigger webhook_deliveries_enqueued after insert on webhook_deliveries
      for each row execute function kasir_notify_webhook_enqueued()`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (engineOf(db) === 'postgres') {
    await sql`drop trigger if exists webhook_deliveries_enqueued on webhook_deliveries`.execute(db);
    await sql`drop function if exists kasir_notify_webhook_enqueued()`.execute(db);
  }
  await db.schema.dropTable('service_keys').execute();
}
