// Shared pieces of the benchmarks: autocannon over real HTTP on loopback, and a bare Hono handler
// started in the same process as the servers measured, as the yardstick every figure is compared with.
import { serve } from '@hono/node-server';
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { Hono } from 'hono';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { signedRequestHeaders } from '../../server/common/request-signing';
import type { SandboxCredentials } from '../../server/provider/sandbox/seed';

export interface LoadResult {
  requestsPerSecond: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
}

/** One request shape; autocannon cycles through a list of them on each connection. */
interface LoadRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface LoadOptions {
  url: string;
  connections?: number;
  durationSeconds?: number;
  method?: 'GET' | 'POST' | 'PATCH';
  headers?: Record<string, string>;
  body?: string;
  /** Requests to cycle through (e.g. many ids), still run in the separate load process. */
  requests?: LoadRequest[];
  /**
   * Builds each request afresh (for bodies that must differ per request). A function cannot cross into
   * another process, so such a load runs in this process and competes with the servers for its core.
   */
  setupRequest?: (req: LoadRequest) => LoadRequest;
}

/** How long a load runs unless told: BENCH_SECONDS, else 2 s with --quick, else 5 s. */
const DEFAULT_SECONDS = Number(process.env.BENCH_SECONDS || (process.argv.includes('--quick') ? 2 : 5));

const loadWorker = fileURLToPath(new URL('./load-worker.mjs', import.meta.url));

export async function load(options: LoadOptions): Promise<LoadResult> {
  const settings = {
    url: options.url,
    connections: options.connections ?? 50,
    duration: options.durationSeconds ?? DEFAULT_SECONDS,
    method: options.method ?? 'GET',
    headers: options.headers,
    body: options.body,
    requests: options.requests,
  };
  if (options.setupRequest) {
    const result = await autocannon({ ...settings, requests: [{ setupRequest: options.setupRequest as never }] });
    return {
      requestsPerSecond: Math.round(result.requests.average),
      p99Ms: result.latency.p99,
      non2xx: result.non2xx,
      errors: result.errors,
    };
  }
  // The load generator runs in its own process (its own core): the figures measure the server, not both.
  const child = spawn(process.execPath, [loadWorker], { stdio: ['pipe', 'pipe', 'inherit'] });
  child.stdin.end(JSON.stringify(settings));
  let out = '';
  for await (const chunk of child.stdout) out += chunk;
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  if (code !== 0) throw new Error(`load generator exited with ${code}`);
  return JSON.parse(out) as LoadResult;
}

/** A Hono app that answers a small JSON body and does nothing else: the ceiling for this machine. */
export async function startBareHono(): Promise<{ url: string; stop(): Promise<void> }> {
  const app = new Hono();
  app.get('/', (c) => c.json({ statusCode: 200, message: 'ok', data: { status: 'pending' } }));
  app.post('/', (c) => c.json({ statusCode: 201, message: 'ok', data: { status: 'pending' } }, 201));
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/`, stop: () => new Promise((resolve) => server.close(() => resolve())) };
}

export function printRow(label: string, rps: number, baseline: number, extra = '') {
  const ratio = baseline ? (rps / baseline).toFixed(2) : 'n/a';
  console.log(
    `  ${label.padEnd(48)} ${String(rps).padStart(8)} req/s   ${ratio}x of bare Hono${extra ? `   ${extra}` : ''}`,
  );
}

const SANDBOX_COMMAND = 'server/provider/dist/provider/cli.js';

/** A port free on 127.0.0.1 now (taken from the system, then released for the server started next). */
async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

/** The compiled merchant command, in this checkout or under `root` (another build of it). */
export const MERCHANT_COMMAND = 'server/merchant/dist/merchant/cli.js';

/**
 * The merchant backend as it ships: the compiled kasir-merchant command (`npm run bench` builds first) in its own
 * process on a free port, with `env` as its whole environment, ready once /readyz answers 200 (whatever
 * KASIR_LOG_LEVEL prints; its stderr is the bench's). `pid` for its CPU time, `stop()` as an operator stops it.
 */
export async function startMerchantCommand(env: NodeJS.ProcessEnv, root = '.') {
  const port = await freePort();
  const child = spawn(process.execPath, [join(root, MERCHANT_COMMAND)], {
    env: { ...env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let tries = 0; ; tries++) {
    if (child.exitCode !== null) throw new Error(`kasir-merchant exited with ${child.exitCode}`);
    const ready = await fetch(`${url}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    if (tries > 400) throw new Error('kasir-merchant did not become ready');
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    pid: child.pid!,
    child,
    async stop(): Promise<void> {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** What test/bench/shoppers-worker.mjs measured: reads answered, their latency, and what went wrong. */
export interface ShoppersResult {
  reads: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** The first poll of each shopper: its connection's setup, not measured in the rest. */
  connectP99Ms: number;
  non2xx: number;
  errors: number;
}

/** Shoppers each polling one of `paths` of `url` once a second (test/bench/shoppers-worker.mjs, in its own process). */
export async function runShoppers(options: {
  url: string;
  paths: string[];
  shoppers: number;
  /** Seconds of polling before the measure begins (the server's first requests). */
  warmUpSeconds?: number;
  durationSeconds: number;
}): Promise<ShoppersResult> {
  const child = spawn(process.execPath, [fileURLToPath(new URL('./shoppers-worker.mjs', import.meta.url))], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  child.stdin.end(JSON.stringify(options));
  let out = '';
  for await (const chunk of child.stdout) out += chunk;
  return JSON.parse(out) as ShoppersResult;
}

/**
 * The payment service as it ships: the compiled kasir-sandbox command (`npm run bench` builds first) in its own
 * process, on a spare port in `dataDir`, its stdout (the JSON log) going to a file there, as to a log file or a
 * collector's pipe (read by no process of the bench, which would compete for the cores). `env` adds to the bench's
 * environment (KASIR_LOG_LEVEL, ...); BENCH_DATABASE_URL=postgres://... runs it on PostgreSQL.
 */
export async function startSandboxCommand(dataDir: string, env: Record<string, string> = {}, root = '.') {
  const logFile = join(dataDir, `stdout-${Date.now()}.log`);
  const fd = openSync(logFile, 'w');
  // BENCH_SANDBOX_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' profiles the service (written when it stops).
  const nodeArgs = process.env.BENCH_SANDBOX_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...nodeArgs, join(root, SANDBOX_COMMAND)], {
    env: {
      ...process.env,
      KASIR_DATA_DIR: dataDir,
      PROVIDER_PORT: '0',
      PROVIDER_HOST: '127.0.0.1',
      KASIR_SCRYPT_N: '4096',
      KASIR_SWEEP_INTERVAL_MS: '60000',
      DATABASE_URL: process.env.BENCH_DATABASE_URL,
      ...env,
    },
    stdio: ['ignore', fd, 'inherit'],
  });
  closeSync(fd);
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  let base: string | undefined;
  for (let waited = 0; !base; waited += 50) {
    if (exited || waited > 30_000)
      throw new Error(`kasir-sandbox did not start: ${readFileSync(logFile, 'utf8').slice(0, 2000)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    base = /sandbox on (http:\/\/\S+)/.exec(readFileSync(logFile, 'utf8'))?.[1].replace('localhost', '127.0.0.1');
  }
  return {
    base,
    /** The process's id (CPU time per request: test/bench/metrics.ts). */
    pid: child.pid!,
    credentials: JSON.parse(readFileSync(join(dataDir, 'sandbox.json'), 'utf8')) as SandboxCredentials,
    /** SIGTERM, as an operator stops it; resolves once it exited. */
    async stop(): Promise<void> {
      if (exited) return;
      const done = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await done;
    },
  };
}

/**
 * One QRIS deposit made on a started sandbox, and its signed read (GET /v1/deposit/:id) as the load's url and headers:
 * a GET signature is not replay-checked and stays valid for the 300 s window, so one signature serves a load (sign
 * afresh each round by calling `read()` again); `target` is its path, and `read(base)` the same read from another server (a restarted sandbox, a yardstick).
 */
export async function signedDepositRead(sandbox: {
  base: string;
  credentials: SandboxCredentials;
}): Promise<{ target: string; read: (base?: string) => { url: string; headers: Record<string, string> } }> {
  const { clientId, clientSecret, accessToken } = sandbox.credentials;
  const res = await fetch(`${sandbox.base}/v1/deposit/fiat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${accessToken}` },
    body: JSON.stringify({
      inputCurrency: 'IDR',
      inputAmount: 250000,
      outputCurrency: 'IDR',
      balanceType: 'fiat',
      paymentMethod: 'QRIS',
    }),
  });
  const { data } = (await res.json()) as { data: { depositId: string } };
  const target = `/v1/deposit/${data.depositId}`;
  const read = (base = sandbox.base) => ({
    url: `${base}${target}`,
    headers: signedRequestHeaders(clientId, clientSecret, 'GET', target, ''),
  });
  return { target, read };
}
