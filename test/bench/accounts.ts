// Benchmarks of part 2: logins per second at the production scrypt cost, and webhook deliveries per
// second from the outbox to a local receiver. Run by `npm run bench` (test/bench/run.ts).
import { serve } from '@hono/node-server';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startWebhookDispatcher } from '../../server/provider/webhooks/dispatcher';
import { enqueueDepositWebhook } from '../../server/provider/webhooks/outbox';
import { createTestProvider } from '../support/provider';
import { load, printRow, startBareHono } from './support';

const PRODUCTION_SCRYPT_N = 2 ** 17;

async function withAuthLimitsOff<T>(fn: () => Promise<T>): Promise<T> {
  const keys = ['KASIR_AUTH_RATE_PER_EMAIL', 'KASIR_AUTH_RATE_PER_ADDRESS'] as const;
  const saved = keys.map((k) => process.env[k]);
  for (const k of keys) process.env[k] = String(1e9);
  try {
    return await fn();
  } finally {
    keys.forEach((k, i) => (saved[i] === undefined ? delete process.env[k] : (process.env[k] = saved[i])));
  }
}

/** Closed loop over real HTTP: `concurrency` clients, each sending its next request when the last is answered. */
async function closedLoop(send: () => Promise<Response>, concurrency: number, seconds: number) {
  const deadline = performance.now() + seconds * 1000;
  const latencies: number[] = [];
  let failures = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const started = performance.now();
        const res = await send();
        await res.arrayBuffer();
        if (!res.ok) failures++;
        latencies.push(performance.now() - started);
      }
    }),
  );
  const elapsed = (performance.now() - t0) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    perSecond: Math.round((latencies.length / elapsed) * 10) / 10,
    p50: Math.round(latencies[Math.floor(latencies.length * 0.5)] ?? 0),
    p99: Math.round(latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))] ?? 0),
    count: latencies.length,
    failures,
  };
}

async function benchLogins() {
  const p = await withAuthLimitsOff(() => createTestProvider({ scryptN: PRODUCTION_SCRYPT_N }));
  const server = serve({ fetch: p.app.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/auth/login`;
  const seconds = process.argv.includes('--quick') ? 4 : Math.max(10, Number(process.env.BENCH_SECONDS || 5));
  const login = (email: string, password: string) => () =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
  const log = console.log;
  console.log = () => {}; // the sandbox mailbox announces every OTP
  try {
    // Warm up (the dummy hash for unknown emails is computed on first use).
    await login('nobody@example.com', 'wrong-password')();
    const ok = await closedLoop(login(p.creds.email, p.creds.password), 4, seconds);
    const unknown = await closedLoop(login('nobody@example.com', 'wrong-password'), 4, seconds);
    console.log = log;
    const row = (label: string, r: typeof ok, note: string) =>
      console.log(
        `  ${label.padEnd(48)} ${String(r.perSecond).padStart(8)} /s      p50 ${r.p50} ms, p99 ${r.p99} ms, ${r.count} requests${note}`,
      );
    row('POST /v1/auth/login, scrypt N=2^17 (success)', ok, `, ${ok.failures} failed`);
    row('POST /v1/auth/login, unknown email (dummy hash)', unknown, ' (same cost by design)');
  } finally {
    console.log = log;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await p.close();
  }
}

async function benchWebhooks() {
  const count = Number(process.env.BENCH_WEBHOOKS || (process.argv.includes('--quick') ? 1000 : 3000));
  /** Past this the bench says the deliveries did not finish, and prints how many went out. */
  const limitMs = 120_000;
  const p = await createTestProvider();
  let received = 0;
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  try {
    const merchant = await p.deps.db.selectFrom('merchants').select('id').executeTakeFirstOrThrow();
    await p.deps.db
      .updateTable('merchants')
      .set({ webhook_url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook` })
      .execute();
    const data = {
      depositId: '',
      status: 'completed',
      inputCurrency: 'IDR',
      inputAmount: 150000,
      activityHistory: [{ activity: 'Payment', status: 'completed' }],
    };
    await p.deps.db.transaction().execute(async (trx) => {
      for (let i = 0; i < count; i++) {
        const depositId = crypto.randomUUID();
        await enqueueDepositWebhook(
          trx,
          {
            type: 'deposit.completed',
            merchantId: merchant.id,
            depositId,
            reference: `order-${i}`,
            status: 'completed',
            data: { ...data, depositId },
          },
          p.deps.now(),
        );
      }
    });
    const t0 = performance.now();
    const stop = startWebhookDispatcher(p.deps, { pollIntervalMs: 5, batchSize: 50 });
    let done = 0;
    while (done < count && performance.now() - t0 < limitMs) {
      const { n } = await p.deps.db
        .selectFrom('webhook_deliveries')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('status', '=', 'succeeded')
        .executeTakeFirstOrThrow();
      done = Number(n);
      if (done < count) await new Promise((r) => setTimeout(r, 20));
    }
    const seconds = (performance.now() - t0) / 1000;
    await stop();
    const cut = done < count ? ` (NOT finished in ${limitMs / 1000} s: ${done} of ${count} recorded)` : '';
    console.log(
      `  ${'webhook deliveries (signed, recorded, 1 dispatcher)'.padEnd(48)} ${String(Math.round(done / seconds)).padStart(8)} /s      ${done} in ${seconds.toFixed(2)} s, ${received} received${cut}`,
    );
  } finally {
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
    await p.close();
  }
}

export async function run(): Promise<void> {
  console.log('\naccounts and webhooks');
  const bare = await startBareHono();
  const baseline = await load({ url: bare.url, method: 'POST', connections: 8 });
  await bare.stop();
  printRow('bare Hono POST (yardstick, 8 connections)', baseline.requestsPerSecond, baseline.requestsPerSecond);
  await benchLogins();
  await benchWebhooks();
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
