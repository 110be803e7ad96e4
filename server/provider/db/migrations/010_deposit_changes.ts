import { sql, type Kysely } from 'kysely';
import { engineOf } from '../engine.js';
import { OUTBOX_CHANNEL } from './004_processes.js';

/** The channel every committed change of a deposit is announced on (PostgreSQL), its depositId as the payload. */
export const DEPOSIT_CHANGES_CHANNEL = 'kasir_deposit_changed';

// The deposit-change feed (deposits/changes.ts): on PostgreSQL every copy hears every change of a deposit when its
// transaction commits, a method switch (an update of the row, no webhook) as well as a payment or an expiry (an update
// and an outbox row). One channel and one payload (the depositId) for both triggers: PostgreSQL sends one notification
// for the two a transaction raises. Replaces migration 004's outbox-only notification.
export async function up(db: Kysely<any>): Promise<void> {
  if (engineOf(db) !== 'postgres') return;
  await sql`drop trigger if exists webhook_deliveries_enqueued on webhook_deliveries`.execute(db);
  await sql`drop function if exists kasir_notify_webhook_enqueued()`.execute(db);
  await sql`create function kasir_notify_deposit_changed() returns trigger language plpgsql as $$
    begin
      perform pg_notify(${sql.lit(DEPOSIT_CHANGES_CHANNEL)}, new.deposit_id);
      return null;
    end $$`.execute(db);
  await sql`create trigger deposits_changed after update on deposits
    for each row execute function kasir_notify_deposit_changed()`.execute(db);
  await sql`create trigger webhook_deliveries_changed after insert on webhook_deliveries
    for each row execute function kasir_notify_deposit_changed()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (engineOf(db) !== 'postgres') return;
  await sql`drop trigger if exists deposits_changed on deposits`.execute(db);
  await sql`drop trigger if exists webhook_deliveries_changed on webhook_deliveries`.execute(db);
  await sql`drop function if exists kasir_notify_deposit_changed()`.execute(db);
  await sql`create function kasir_notify_webhook_enqueued() returns trigger language plpgsql as $$
    begin
      perform pg_notify(${sql.lit(OUTBOX_CHANNEL)}, new.deposit_id);
      return null;
    end $$`.execute(db);
  await sql`create trigger webhook_deliveries_enqueued after insert on webhook_deliveries
    for each row execute function kasir_notify_webhook_enqueued()`.execute(db);
}
