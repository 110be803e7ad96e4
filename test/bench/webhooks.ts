// Webhook delivery benchmark: deposits completed through the sandbox's API (PATCH /v1/deposit/:id), each completion's
// webhook delivered to a fast local receiver in this process. Two figures, against issue 11's targets:
// - latency: the compiled kasir-sandbox in its own process (as it ships, logging at info), 1,000 completions sent as
//   fast as 16 clients can; the time from each change (the payload's timestamp, taken as the transition starts) to
//   its arrival at the receiver, p50 and p95 (target p95 <= 250 ms);
// - throughput: the compiled sandbox in its own process, started with deliverWebhooks: false, 1,000 completions held
//   in the outbox, then released at once (startDelivery); deliveries per second until the last arrives
//   (target >= 1,000/s).
// SQLite by default; PostgreSQL with BENCH_DATABASE_URL=postgres://... (a database the sandbox may fill: both
// scenarios use it, one after the other).
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { startSandboxCommand } from './support';

const HELD_ENTRY = 'server/provider/dist/provider/main.js';

const COUNT = Number(process.env.BENCH_WEBHOOKS || 1000);
const CLIENTS = Number(process.env.BENCH_CLIENTS || 16);

interface Arrival { webhookId: string; depositId: string; changedAt: number; receivedAt: number }

async function startReceiver() {
  const arrivals: Arrival[] = [];
  let waiting: { count: number; resolve: () => void } | undefined;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const receivedAt = Date.now();
      const payload = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { depositId: string; timestamp: string };
      arrivals.push({ webhookId: String(req.headers['webhook-id']), depositId: payload.depositId, changedAt: Date.parse(payload.timestamp), receivedAt });
      res.writeHead(204).end();
      if (waiting && arrivals.length >= waiting.count) waiting.resolve();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
    arrivals,
    /** Resolves once `count` deliveries arrived in all; rejects after `timeoutMs`. */
    until(count: number, timeoutMs = 60_000) {
      if (arrivals.length >= count) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`only ${arrivals.length} of ${count} webhooks arrived`)), timeoutMs);
        waiting = { count, resolve: () => { clearTimeout(timer); resolve(); } };
      });
    },
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/** Runs `task` over `items` with `clients` at a time. */
async function pool<T>(items: T[], clients: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: clients }, async () => {
    while (next < items.length) await task(items[next++]);
  }));
}

/** Where the service answers and the token to call it with. */
interface Service { base: string; token: string }

async function call(service: Service, method: string, path: string, body?: unknown): Promise<{ depositId: string }> {
  const res = await fetch(service.base + path, {
    method,
    headers: { authorization: `Bearer ${service.token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as { data: { depositId: string } };
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json.data;
}

const createDeposits = async (sandbox: Service, count: number) => {
  const ids: string[] = [];
  await pool(Array.from({ length: count }, (_, i) => i), CLIENTS, async () => {
    const { depositId } = await call(sandbox, 'POST', '/v1/deposit/fiat', {
      inputCurrency: 'IDR', inputAmount: 150000, outputCurrency: 'IDR', balanceType: 'fiat', paymentMethod: 'BCA_VA',
    });
    ids.push(depositId);
  });
  return ids;
};

/** Completes every deposit; answers each PATCH's time, in ms. */
const complete = async (sandbox: Service, ids: string[]) => {
  const times: number[] = [];
  await pool(ids, CLIENTS, async (id) => {
    const t0 = performance.now();
    await call(sandbox, 'PATCH', `/v1/deposit/${id}`, { status: 'completed' });
    times.push(performance.now() - t0);
  });
  return times.sort((a, b) => a - b);
};

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

export async function run(): Promise<void> {
  console.log(`\nwebhooks: ${COUNT} deposits completed through PATCH /v1/deposit/:id (${CLIENTS} clients), a local receiver (204)`);

  // Latency: deliveries while completions stream in.
  {
    const receiver = await startReceiver();
    const dataDir = mkdtempSync(join(tmpdir(), 'kasir-bench-webhooks-'));
    const command = await startSandboxCommand(dataDir, { KASIR_WEBHOOK_URL: receiver.url, KASIR_LOG_LEVEL: 'info' });
    const service = { base: command.base, token: command.credentials.accessToken };
    try {
      const ids = await createDeposits(service, COUNT);
      const t0 = performance.now();
      const patchTimes = await complete(service, ids);
      const completedIn = (performance.now() - t0) / 1000;
      await receiver.until(COUNT);
      const latencies = receiver.arrivals.map((a) => a.receivedAt - a.changedAt).sort((a, b) => a - b);
      const p50 = percentile(latencies, 0.5);
      const p95 = percentile(latencies, 0.95);
      const unique = new Set(receiver.arrivals.map((a) => a.webhookId)).size;
      console.log(`  ${'completions streamed'.padEnd(48)} ${String(Math.round(COUNT / completedIn)).padStart(8)} /s      PATCH answered p50 ${Math.round(percentile(patchTimes, 0.5))} ms, p95 ${Math.round(percentile(patchTimes, 0.95))} ms`);
      console.log(`  ${'delivery after the change'.padEnd(48)} p50 ${p50} ms, p95 ${p95} ms, max ${latencies.at(-1)} ms   (target p95 <= 250 ms: ${p95 <= 250 ? 'met' : 'NOT met'})`);
      console.log(`  ${'deliveries received / distinct webhook-ids'.padEnd(48)} ${receiver.arrivals.length} / ${unique}`);
    } finally {
      await command.stop();
      await receiver.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }

  // Throughput: a backlog released at once.
  {
    const receiver = await startReceiver();
    const dataDir = mkdtempSync(join(tmpdir(), 'kasir-bench-webhooks-'));
    const held = await startHeldSandbox(dataDir, receiver.url);
    const service = { base: held.base, token: held.token };
    try {
      await complete(service, await createDeposits(service, COUNT));
      const t0 = performance.now();
      held.startDelivery();
      await receiver.until(COUNT);
      const seconds = (performance.now() - t0) / 1000;
      const perSecond = Math.round(COUNT / seconds);
      console.log(`  ${'deliveries of a released backlog'.padEnd(48)} ${String(perSecond).padStart(8)} /s      ${COUNT} in ${seconds.toFixed(2)} s   (target >= 1000/s: ${perSecond >= 1000 ? 'met' : 'NOT met'})`);
    } finally {
      await held.stop();
      await receiver.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
}

/**
 * The compiled sandbox in a process of its own, started by startSandbox with deliverWebhooks: false (the command has no
 * such switch); a message tells it to startDelivery(), SIGTERM stops it.
 */
async function startHeldSandbox(dataDir: string, webhookUrl: string) {
  const script = `
    const { startSandbox } = await import(${JSON.stringify(pathToFileURL(HELD_ENTRY).href)});
    const sandbox = await startSandbox({
      env: { KASIR_DATA_DIR: ${JSON.stringify(dataDir)}, PROVIDER_PORT: '0', DATABASE_URL: process.env.BENCH_DATABASE_URL },
      scryptN: 1024, sweepIntervalMs: 60000, webhookUrl: ${JSON.stringify(webhookUrl)}, deliverWebhooks: false,
    });
    process.on('message', () => sandbox.startDelivery());
    process.on('SIGTERM', () => sandbox.stop().then(() => process.exit(0)));
    process.send({ base: sandbox.url.replace('localhost', '127.0.0.1'), token: sandbox.credentials.accessToken });`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ready = await new Promise<{ base: string; token: string }>((resolve, reject) => {
    child.once('message', (m) => resolve(m as { base: string; token: string }));
    child.once('exit', (code) => reject(new Error(`the held sandbox exited with ${code}`)));
  });
  return {
    ...ready,
    startDelivery: () => child.send('deliver'),
    stop: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
