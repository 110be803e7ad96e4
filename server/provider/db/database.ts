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
  cachePreparedStatements(sqlite);
  return new SqliteDialect({ database: sqlite });
}

/**
 * Kysely prepares every query anew; the service runs a few dozen distinct statements, so keeping them
 * prepared saves SQLite's parse and plan on every call. Safe because Kysely runs each statement to
 * completion (all/run) before the next; bounded in case of unexpected variety.
 */
function cachePreparedStatements(sqlite: SQLite.Database, max = 500): void {
  const prepare = sqlite.prepare.bind(sqlite);
  const statements = new Map<string, SQLite.Statement>();
  sqlite.prepare = ((source: string) => {
    let statement = statements.get(source);
    if (!statement) {
      if (statements.size >= max) statements.clear();
      statement = prepare(source);
      statements.set(source, statement);
    }
    return statement;
  }) as typeof sqlite.prepare;
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
