// Test harness for the payment service: a fresh database (a SQLite file in a temp dir, or with
// KASIR_TEST_DATABASE_URL=postgres://... a fresh PostgreSQL database per provider), the seeded sandbox
// merchant, and helpers that sign requests exactly as docs/design.md, "Signed requests" says, through app.request().
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { signedRequestHeaders } from '../../server/common/request-signing';
import { createProviderApp } from '../../server/provider/process/app';
import { resolveProviderConfig, type SandboxOptions } from '../../server/provider/instance/config';
import type { ProviderDeps } from '../../server/provider/instance/deps';
import { openProvider, startSandbox, type RunningSandbox } from '../../server/provider/process/main';
import { seedSandbox, type SandboxCredentials } from '../../server/provider/sandbox/seed';
import { commandArgs } from './commands';
import { ResponseChecker, type OpenApiDocument } from './openapi-responses';

export interface TestProvider {
  app: ReturnType<typeof createProviderApp>;
  deps: ProviderDeps;
  creds: SandboxCredentials;
  /** Moves the service's clock (expiry, timestamp windows). */
  clock: { offsetMs: number };
  /** A request signed with the seeded merchant's client secret. */
  signed(
    method: string,
    target: string,
    body?: unknown,
    init?: { headers?: Record<string, string>; timestamp?: string; secret?: string; clientId?: string },
  ): Promise<Response>;
  /** A request with the seeded merchant's bearer token. */
  bearer(method: string, target: string, body?: unknown, token?: string): Promise<Response>;
  /**
   * Every answer of app.request() (signed and bearer included) to a documented operation that the OpenAPI document does
   * not describe: an undocumented status, or a body its schema refuses. close() fails the suite when there is one.
   */
  undocumented: string[];
  close(): Promise<void>;
}

/** The X-Client-ID, X-Timestamp and X-Signature headers of a signed request (server/common/request-signing.ts). */
export const signHeaders = signedRequestHeaders;

/** The PostgreSQL server tests run against (test/support/with-postgres.sh sets it), or undefined for SQLite. */
export const testDatabaseUrl = process.env.KASIR_TEST_DATABASE_URL || undefined;

async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: testDatabaseUrl });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** A fresh, empty PostgreSQL database on the test server; returns its URL and a function that drops it. */
export async function createTestDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  if (!testDatabaseUrl) throw new Error('KASIR_TEST_DATABASE_URL is not set');
  const name = `kasir_test_${process.pid}_${randomBytes(6).toString('hex')}`;
  await adminQuery(`create database ${name}`);
  const url = new URL(testDatabaseUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => adminQuery(`drop database if exists ${name} with (force)`) };
}

/**
 * The database environment for a service a test starts itself (startSandbox): a fresh PostgreSQL database
 * when the suite runs on PostgreSQL, else nothing (the SQLite file in the service's data dir).
 */
export async function testDatabaseEnv(): Promise<{ env: { DATABASE_URL?: string }; drop(): Promise<void> }> {
  if (!testDatabaseUrl) return { env: {}, drop: async () => {} };
  const database = await createTestDatabase();
  return { env: { DATABASE_URL: database.url }, drop: database.drop };
}

/** A sandbox started as a shop starts it, and what removes it again. */
export interface TestSandbox {
  sandbox: RunningSandbox;
  /** Stops the sandbox and removes its data dir and database. */
  stop(): Promise<void>;
}

/**
 * startSandbox serving over HTTP on a spare port, in a fresh data dir (and a fresh PostgreSQL database when the suite
 * runs on PostgreSQL), with a cheap scrypt.
 */
export async function startTestSandbox(prefix = 'kasir-sandbox-'): Promise<TestSandbox> {
  const dataDir = mkdtempSync(join(tmpdir(), prefix));
  const database = await testDatabaseEnv();
  const sandbox = await startSandbox({
    env: { KASIR_DATA_DIR: dataDir, PROVIDER_PORT: '0', ...database.env },
    scryptN: 2 ** 10,
  });
  return {
    sandbox,
    async stop() {
      await sandbox.stop();
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

// One checker per test process: the document is the same for every provider (only its `servers` differ).
let checker: Promise<ResponseChecker> | undefined;

/**
 * Runs every answer of app.request() through the OpenAPI document, collecting what it does not describe. app.fetch is
 * left as it is (the benchmarks serve it).
 */
function checkResponses(app: TestProvider['app'], undocumented: string[]) {
  const request = app.request;
  checker ??= (async () =>
    new ResponseChecker((await (await request('http://localhost/v1/openapi.json')).json()) as OpenApiDocument))();
  app.request = async (input, init, env, executionCtx) => {
    const response = await request(input, init, env, executionCtx);
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    const path = new URL(input instanceof Request ? input.url : String(input), 'http://localhost').pathname;
    const check = await checker!;
    if (check.covers(method, path)) {
      const problem = check.check(
        method,
        path,
        response.status,
        response.headers.get('content-type'),
        await response.clone().text(),
      );
      if (problem) undocumented.push(problem);
    }
    return response;
  };
}

export async function createTestProvider(overrides: SandboxOptions = {}): Promise<TestProvider> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kasir-test-'));
  const database = testDatabaseUrl ? await createTestDatabase() : undefined;
  const env = { KASIR_DATA_DIR: dataDir, ...(database ? { DATABASE_URL: database.url } : {}) };
  const config = resolveProviderConfig({ env, scryptN: 2 ** 10, sweepIntervalMs: 60_000, ...overrides });
  const clock = { offsetMs: 0 };
  const deps = await openProvider(config, () => new Date(Date.now() + clock.offsetMs));
  const { db } = deps;
  const creds = await seedSandbox(deps);
  const app = createProviderApp(deps);
  const undocumented: string[] = [];
  checkResponses(app, undocumented);
  const base = 'http://localhost';

  const toRaw = (body: unknown) => (body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body));
  return {
    app,
    deps,
    creds,
    clock,
    undocumented,
    async signed(method, target, body, init = {}) {
      const raw = toRaw(body);
      const headers = {
        ...signHeaders(
          init.clientId ?? creds.clientId,
          init.secret ?? creds.clientSecret,
          method,
          target,
          raw,
          init.timestamp ?? deps.now().toISOString(),
        ),
        ...(raw ? { 'Content-Type': 'application/json' } : {}),
        ...init.headers,
      };
      return app.request(base + target, { method, headers, body: raw || undefined });
    },
    async bearer(method, target, body, token = creds.accessToken) {
      const raw = toRaw(body);
      return app.request(base + target, {
        method,
        headers: { Authorization: `Bearer ${token}`, ...(raw ? { 'Content-Type': 'application/json' } : {}) },
        body: raw || undefined,
      });
    },
    async close() {
      await db.destroy();
      await database?.drop();
      rmSync(dataDir, { recursive: true, force: true });
      if (undocumented.length) {
        // One line per fault, with its first request: a fault is usually met by many requests.
        const faults = new Map<string, string>();
        for (const problem of undocumented)
          if (!faults.has(problem.split(' (e.g. ')[0])) faults.set(problem.split(' (e.g. ')[0], problem);
        throw new Error(
          `${undocumented.length} answer(s) the OpenAPI document does not describe:\n${[...faults.values()].join('\n')}`,
        );
      }
    },
  };
}

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Runs a `kasir-sandbox` command (server/provider/cli.ts) to its end in `env`. Not spawnSync: a sandbox or a receiver
 * in this process must keep answering meanwhile. `status` is the exit code (null when it was killed: the 30 s limit).
 */
export function runSandboxCommand(args: string[], env: NodeJS.ProcessEnv) {
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [...commandArgs('kasir-sandbox'), ...args],
      { cwd: ROOT, encoding: 'utf8', timeout: 30_000, env },
      (err, stdout, stderr) =>
        resolve({ status: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr }),
    );
  });
}
