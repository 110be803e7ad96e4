import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, type Dialect } from 'kysely';
import pg from 'pg';
import type { AccountTables } from './account-tables.js';
import type { DepositTables } from './deposit-tables.js';
import type { PaymentTables } from './payment-tables.js';
import type { ProcessTables } from './process-tables.js';
import { migrations } from './migrations/index.js';
import type { CoreTables } from './schema.js';

export type Database = CoreTables & DepositTables & AccountTables & ProcessTables & PaymentTables;
export type Db = Kysely<Database>;

export interface DatabaseOptions {
  dataDir: string;
  /** postgres://... selects PostgreSQL; otherwise the embedded SQLite file in dataDir. */
  databaseUrl?: string;
  /** ':memory:' for throwaway test databases. */
  sqliteFile?: string;
  /** Most PostgreSQL connections this process holds (default 10). */
  poolSize?: number;
}

const INT8_OID = 20;

/**
 * pg hands int8 (bigint, and count(*)) back as strings, since not every int8 fits a JS number. Every int8
 * here (epoch-ms deadlines, counts) does, so they come back as numbers, as on SQLite; a value beyond 2^53
 * stays a string rather than silently losing digits.
 */
function parseInt8(value: string): number | string {
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : value;
}

const pgTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID && format !== 'binary'
      ? parseInt8
      : pg.types.getTypeParser(oid, format as 'text')) as pg.CustomTypesConfig['getTypeParser'],
};

function isPostgresUrl(url: string | undefined): url is string {
  return !!url && /^postgres(ql)?:\/\//i.test(url);
}

function createPostgresDialect(connectionString: string, poolSize: number): Dialect {
  const pool = new pg.Pool({ connectionString, max: poolSize, types: pgTypes });
  // An idle client whose connection drops (server restart, failover) must not crash the process; the pool
  // discards it and the next query opens a new one.
  pool.on('error', (err) => console.error('[db] idle PostgreSQL connection failed:', err.message));
  return new PostgresDialect({ pool });
}

/**
 * The one seam between the service and its database engine. Routes only see Kysely: the embedded SQLite
 * file by default, PostgreSQL (Kysely's PostgresDialect over a `pg` pool) when databaseUrl is postgres://.
 */
function createDialect(options: DatabaseOptions): Dialect {
  if (options.databaseUrl) {
    if (!isPostgresUrl(options.databaseUrl)) {
      throw new Error(
        'DATABASE_URL must be a postgres:// or postgresql:// URL; unset it to use the embedded SQLite file.',
      );
    }
    return createPostgresDialect(options.databaseUrl, options.poolSize ?? 10);
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
