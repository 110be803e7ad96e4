import { sql, type Kysely } from 'kysely';
import { engineOf } from '../engine.js';

// A merchant's list of deposits costs the same at any table size:
// - one index per filter and sort of GET /v1/deposit, each leading with the merchant and ending with the record id
//   (the tie-break), so a page is a seek into one index, never a sort or a scan of other merchants' rows;
// - deposit_counts holds how many deposits each merchant has per status and type, kept by triggers in the
//   transaction of every insert, status change and method switch, so totalDocs is a sum of at most six rows.
const SORTS = ['created_at', 'updated_at'] as const;
const FILTERS = [[], ['status'], ['deposit_type'], ['status', 'deposit_type']] as const;

function indexName(filter: readonly string[], sort: string): string {
  return ['deposits_list', ...filter, sort].join('_');
}

export async function up(db: Kysely<any>): Promise<void> {
  for (const filter of FILTERS) {
    for (const sort of SORTS) {
      await db.schema
        .createIndex(indexName(filter, sort))
        .on('deposits')
        .columns(['merchant_id', ...filter, sort, 'id'])
        .execute();
    }
  }
  // The lists' first indexes make these two redundant.
  await db.schema.dropIndex('deposits_merchant_created').execute();
  await db.schema.dropIndex('deposits_merchant_updated').execute();

  await db.schema
    .createTable('deposit_counts')
    .addColumn('merchant_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('deposit_type', 'text', (c) => c.notNull())
    .addColumn('count', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('deposit_counts_pk', ['merchant_id', 'status', 'deposit_type'])
    .execute();
  await sql`insert into deposit_counts (merchant_id, status, deposit_type, count)
    select merchant_id, status, deposit_type, count(*) from deposits group by merchant_id, status, deposit_type`.execute(
    db,
  );

  if (engineOf(db) === 'postgres') {
    // Both changes of one update in one statement, in key order: two transactions that move counts in opposite
    // directions (a switch fiat -> crypto and one crypto -> fiat) lock the two rows in the same order, never deadlock.
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
    return;
  }
  // SQLite's write transactions never overlap: the order of the two changes does not matter.
  const add = (row: 'new' | 'old', by: 1 | -1) =>
    sql.raw(`insert into deposit_counts (merchant_id, status, deposit_type, count)
    values (${row}.merchant_id, ${row}.status, ${row}.deposit_type, ${by})
    on conflict (merchant_id, status, deposit_type) do update set count = count + ${by};`);
  await sql`create trigger deposits_counts_insert after insert on deposits begin ${add('new', 1)} end`.execute(db);
  await sql`create trigger deposits_counts_delete after delete on deposits begin ${add('old', -1)} end`.execute(db);
  await sql`create trigger deposits_counts_update after update of status, deposit_type, merchant_id on deposits
    when old.status <> new.status or old.deposit_type <> new.deposit_type or old.merchant_id <> new.merchant_id
    begin ${add('old', -1)} ${add('new', 1)} end`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (engineOf(db) === 'postgres') {
    await sql`drop trigger deposits_counts on deposits`.execute(db);
    await sql`drop function deposit_counts_apply()`.execute(db);
  } else {
    for (const t of ['insert', 'delete', 'update']) await sql.raw(`drop trigger deposits_counts_${t}`).execute(db);
  }
  await db.schema.dropTable('deposit_counts').execute();
  for (const filter of FILTERS) for (const sort of SORTS) await db.schema.dropIndex(indexName(filter, sort)).execute();
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
}
