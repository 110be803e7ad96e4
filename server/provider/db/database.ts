import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect, type Dialect } from 'kysely';
import type { AccountTables } from './account-tables';
import type { DepositTables } from './deposit-tables';
import { migrations } from './migrations/index';
import type { CoreTables } from './schema';

export type Database = CoreTables & DepositTables & AccountTables;
export type Db = Kysely<Database>;

export interface DatabaseOptions {
  dataDir: string;
  /** postgres://... selects PostgreSQL; otherwise the embedded SQLite file in dataDir. */
  databaseUrl?: string;
  /** ':memory:' for throwaway test databases. */
  sqliteFile?: string;
}

/**
 * The one seam between the service and its database engine. Routes only see Kysely, so adding
 * PostgreSQL means adding a dialect here (Kysely's PostgresDialect over `pg`), not touching routes.
 */
function createDialect(options: DatabaseOptions): Dialect {
  if (options.databaseUrl) {
    throw new Error('DATABASE_URL is set, but this build ships only the embedded SQLite dialect; unset DATABASE_URL to use it.');
  }
  const file = options.sqliteFile ?? join(options.dataDir, 'kasir.sqlite');
  if (file !== ':memory:') mkdirSync(options.dataDir, { recursive: true });
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  return new SqliteDialect({ database: sqlite });
}

/** Opens the database and brings its schema up to date. */
export async function openDatabase(options: DatabaseOptions): Promise<Db> {
  const db = new Kysely<Database>({ dialect: createDialect(options) });
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const { error } = await migrator.migrateToLatest();
  if (error) {
    await db.destroy();
    throw error instanceof Error ? error : new Error(String(error));
  }
  return db;
}
