import { sql, type Kysely } from 'kysely';
import { engineOf } from '../engine.js';

// PostgreSQL keeps deposit_counts (migration 009) once per statement instead of once per row: a statement that moves
// many deposits (the expiry sweep's batch) changed the same counts row once per deposit, each change a new version of
// that row for the next change to walk past (each change slower than the one before as such versions piled up). Now
// each statement adds its net change per (merchant, status, type) in one upsert, in key order (no deadlock between two
// such statements), read from the statement's transition tables. PostgreSQL allows transition tables only on a trigger
// of one event and no column list: three triggers, the update one firing on every update and writing nothing when no
// count moved. SQLite has no statement triggers and runs one write at a time: its row triggers stay.
const EVENTS = {
  insert: 'new table as new_rows',
  delete: 'old table as old_rows',
  update: 'old table as old_rows new table as new_rows',
} as const;

export async function up(db: Kysely<any>): Promise<void> {
  if (engineOf(db) !== 'postgres') return;
  await sql`drop trigger deposits_counts on deposits`.execute(db);
  await sql`drop function deposit_counts_apply()`.execute(db);
  for (const [event, referencing] of Object.entries(EVENTS)) {
    const changes = [
      event !== 'delete' ? 'select merchant_id, status, deposit_type, 1 as c from new_rows' : undefined,
      event !== 'insert' ? 'select merchant_id, status, deposit_type, -1 as c from old_rows' : undefined,
    ]
      .filter(Boolean)
      .join(' union all ');
    await sql
      .raw(
        `create function deposit_counts_${event}() returns trigger language plpgsql as $$
      begin
        insert into deposit_counts (merchant_id, status, deposit_type, count)
          select merchant_id, status, deposit_type, sum(c) from (${changes}) changes
          group by merchant_id, status, deposit_type having sum(c) <> 0 order by merchant_id, status, deposit_type
          on conflict (merchant_id, status, deposit_type) do update set count = deposit_counts.count + excluded.count;
        return null;
      end $$`,
      )
      .execute(db);
    await sql
      .raw(
        `create trigger deposits_counts_${event} after ${event} on deposits referencing ${referencing}
      for each statement execute function deposit_counts_${event}()`,
      )
      .execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (engineOf(db) !== 'postgres') return;
  for (const event of Object.keys(EVENTS)) {
    await sql.raw(`drop trigger deposits_counts_${event} on deposits`).execute(db);
    await sql.raw(`drop function deposit_counts_${event}()`).execute(db);
  }
  await sql`create function deposit_counts_apply() returns trigger language plpgsql as $$
    begin
      if tg_op = 'UPDATE' and old.status = new.status and old.deposit_type = new.deposit_type and old.merchant_id = new.merchant_id then
        return null;
      end if;
      insert into deposit_counts (merchant_id, status, deposit_type, count)
        select m, s, t, sum(c) from (
          select new.merchant_id as m, new.status as s, new.deposit_type as t, 1 as c where tg_op <> 'DELETE'
          union all
          select old.merchant_id, old.status, old.deposit_type, -1 where tg_op <> 'INSERT'
        ) changes group by m, s, t order by m, s, t
        on conflict (merchant_id, status, deposit_type) do update set count = deposit_counts.count + excluded.count;
      return null;
    end $$`.execute(db);
  await sql`create trigger deposits_counts after insert or delete or update of status, deposit_type, merchant_id on deposits
    for each row execute function deposit_counts_apply()`.execute(db);
}
