// Shared pieces of the benchmarks: autocannon over real HTTP on loopback, and a bare Hono handler
// started in the same process as the servers measured, as the yardstick every figure is compared with.
import { serve } from '@hono/node-server';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { Hono } from 'hono';
import type { AddressInfo } from 'node:net';

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

const loadWorker = fileURLToPath(new URL('./load-worker.mjs', import.meta.url));

export async function load(options: LoadOptions): Promise<LoadResult> {
  const settings = {
    url: options.url,
    connections: options.connections ?? 50,
    duration: options.durationSeconds ?? Number(process.env.BENCH_SECONDS || 5),
    method: options.method ?? 'GET',
    headers: options.headers,
    body: options.body,
    requests: options.requests,
  };
  if (options.setupRequest) {
    const result = await autocannon({ ...settings, requests: [{ setupRequest: options.setupRequest as never }] });
    return { requestsPerSecond: Math.round(result.requests.average), p99Ms: result.latency.p99, non2xx: result.non2xx, errors: result.errors };
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
  console.log(`  ${label.padEnd(48)} ${String(rps).padStart(8)} req/s   ${ratio}x of bare Hono${extra ? `   ${extra}` : ''}`);
}
