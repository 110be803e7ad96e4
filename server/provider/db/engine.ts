import { PostgresAdapter, type Kysely, type SelectQueryBuilder } from 'kysely';

export type Engine = 'sqlite' | 'postgres';

/**
 * Which engine a Kysely instance (or a transaction of one) talks to. Queries stay portable; the few places
 * that must differ (row locks, identity columns) ask this.
 */
export function engineOf(db: Kysely<any>): Engine {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

/**
 * `SELECT ... FOR UPDATE` on PostgreSQL, where transactions run in parallel and a read that a write depends
 * on must lock its rows. SQLite has no row locks (and no such syntax): its write transactions never overlap.
 */
export function forUpdate<DB, TB extends keyof DB, O>(
  db: Kysely<any>,
  query: SelectQueryBuilder<DB, TB, O>,
): SelectQueryBuilder<DB, TB, O> {
  return engineOf(db) === 'postgres' ? query.forUpdate() : query;
}
