import { sql, type Kysely } from 'kysely';
import { engineOf } from '../engine.js';

// An organization's list of recipients costs the same at any table size, as deposits' lists do (009):
// - recipient_counts holds how many recipients each organization has, kept by triggers in the transaction of every
//   insert and delete, so the unfiltered list's totalDocs is one row, never a count;
// - an index per sort, leading with the organization and ending with the record id (the tie-break), so a page's ids
//   are a seek into one index, never a sort or a read of other organizations' rows.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('recipients_list_created_at')
    .on('recipients')
    .columns(['organization_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('recipients_list_updated_at')
    .on('recipients')
    .columns(['organization_id', 'updated_at', 'id'])
    .execute();
  await db.schema.dropIndex('recipients_org_created').execute(); // the first list index makes it redundant

  await db.schema
    .createTable('recipient_counts')
    .addColumn('organization_id', 'text', (c) => c.primaryKey())
    .addColumn('count', 'bigint', (c) => c.notNull())
    .execute();
  await sql`insert into recipient_counts (organization_id, count) select organization_id, count(*) from recipients group by organization_id`.execute(
    db,
  );

  const add = (row: 'new' | 'old', by: 1 | -1) =>
    sql.raw(`insert into recipient_counts (organization_id, count) values (${row}.organization_id, ${by})
    on conflict (organization_id) do update set count = recipient_counts.count + ${by};`);
  if (engineOf(db) === 'postgres') {
    await sql`create function recipient_counts_apply() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' then ${add('new', 1)} else ${add('old', -1)} end if;
        return null;
      end $$`.execute(db);
    await sql`create trigger recipients_counts after insert or delete on recipients for each row execute function recipient_counts_apply()`.execute(
      db,
    );
    return;
  }
  await sql`create trigger recipients_counts_insert after insert on recipients begin ${add('new', 1)} end`.execute(db);
  await sql`create trigger recipients_counts_delete after delete on recipients begin ${add('old', -1)} end`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (engineOf(db) === 'postgres') {
    await sql`drop trigger recipients_counts on recipients`.execute(db);
    await sql`drop function recipient_counts_apply()`.execute(db);
  } else {
    for (const t of ['insert', 'delete']) await sql.raw(`drop trigger recipients_counts_${t}`).execute(db);
  }
  await db.schema.dropTable('recipient_counts').execute();
  await db.schema.dropIndex('recipients_list_created_at').execute();
  await db.schema.dropIndex('recipients_list_updated_at').execute();
  await db.schema
    .createIndex('recipients_org_created')
    .on('recipients')
    .columns(['organization_id', 'created_at'])
    .execute();
}
