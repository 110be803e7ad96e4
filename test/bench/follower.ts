// The follower's cost (docs/orders.md, "No order left pending"): the compiled `kasir-merchant` (server/merchant/dist,
// built first) with 10,000 open checkouts in its state, half far from expiry (a 24-hour VA) and half near it, against a
// stand-in payment service that answers every deposit as pending and counts the reads (so the figures are the
// backend's, not a sandbox's). Reports the upstream reads per second (bound: 10,000 per interval, fewer for the far
// ones) and the backend's CPU, then 1,000 shoppers polling 50 of those checkouts while the follower runs (goal: p99
// within 10 ms), next to the same with the follower slowed to an hour. With a Redis (REDIS_URL or KASIR_TEST_REDIS_URL),
// the same checkouts on two copies: the reads stay those of one.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import { newWebhookSecret } from '../../server/provider/accounts/merchants';
import { RedisState } from '../../server/merchant/state/redis-state';
import { upstreamDeposit } from '../merchant/support';

const BIN = resolve(import.meta.dirname, '../../server/merchant/dist/merchant/cli.js');
const OPEN_CHECKOUTS = 10_000;
const FOLLOW_MS = 20_000;
const SHOPPERS = 1000;
const CHECKOUT_TTL_MS = 30 * 24 * 3600_000;

/** A payment service that answers every deposit as pending (its expiry by the id's half), counting the reads. */
async function standInService(expiries: Map<string, number>) {
  let reads = 0;
  const server = createServer((req, res) => {
    const match = /^\/v1\/deposit\/([^/?]+)$/.exec(req.url ?? '');
    res.setHeader('content-type', 'application/json');
    if (req.method === 'GET' && match && match[1] !== 'payment-method') {
      reads++;
      const id = decodeURIComponent(match[1]!);
      const deposit = {
        ...upstreamDeposit(id, 'pending'),
        expiredAt: new Date(expiries.get(id) ?? Date.now() + 3600_000).toISOString(),
      };
      res.end(JSON.stringify({ statusCode: 200, message: 'OK', data: deposit }));
      return;
    }
    if (req.method === 'GET' && req.url?.startsWith('/v1/deposit/payment-method')) {
      res.end(JSON.stringify({ statusCode: 200, message: 'OK', data: [] }));
      return;
    }
    res.statusCode = 404;
    res.end(JSON.stringify({ statusCode: 404, error: 'Not Found', message: 'Not found' }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get reads() {
      return reads;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

/** The process's CPU time so far (user + system), in ms, from /proc (Linux). */
function cpuMs(child: ChildProcess): number {
  const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (after pid and comm)
  return (ticks * 1000) / 100; // USER_HZ
}

async function startMerchant(env: NodeJS.ProcessEnv) {
  const port = await freePort();
  const child = spawn(process.execPath, [BIN], {
    env: { ...env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let tries = 0; ; tries++) {
    if (child.exitCode !== null) throw new Error(`kasir-merchant exited with ${child.exitCode}`);
    if (
      await fetch(`${url}/readyz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (tries > 400) throw new Error('kasir-merchant did not become ready');
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    child,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    },
  };
}

/** Runs test/bench/shoppers-worker.mjs in its own process. */
async function shoppers(options: { url: string; paths: string[]; shoppers: number; durationSeconds: number }) {
  const child = spawn(process.execPath, [fileURLToPath(new URL('./shoppers-worker.mjs', import.meta.url))], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  child.stdin.end(JSON.stringify(options));
  let out = '';
  for await (const chunk of child.stdout) out += chunk;
  return JSON.parse(out) as {
    reads: number;
    p50Ms: number;
    p99Ms: number;
    maxMs: number;
    non2xx: number;
    errors: number;
  };
}

/** The open checkouts, as a copy saves them (one line each in its state file). */
function stateFile(dataDir: string, ids: string[]) {
  const now = Date.now();
  const file = join(dataDir, 'merchant', 'merchant-state.jsonl');
  mkdirSync(join(dataDir, 'merchant'), { recursive: true });
  writeFileSync(
    file,
    ids
      .map((id, i) =>
        JSON.stringify({
          c: id,
          v: { feesPaidBy: 'merchant', amount: '150000', currency: 'IDR', orderId: `order-${i}`, createdAt: now },
          x: now + CHECKOUT_TTL_MS,
        }),
      )
      .join('\n') + '\n',
  );
}

export async function run(): Promise<void> {
  if (!existsSync(BIN)) {
    console.log('\nfollower: not built (npm run build); skipped');
    return;
  }
  const quick = process.argv.includes('--quick');
  const measureSeconds = Number(process.env.BENCH_FOLLOW_SECONDS || (quick ? 20 : 40));
  const ids = Array.from({ length: OPEN_CHECKOUTS }, () => randomUUID());
  const now = Date.now();
  // Half far from expiry (read every 2 intervals), half near it (every interval).
  const expiries = new Map(ids.map((id, i) => [id, now + (i % 2 ? 24 * 3600_000 : 30 * 60_000)]));
  const expectedPerSecond = (OPEN_CHECKOUTS / 2) * (1000 / FOLLOW_MS) + (OPEN_CHECKOUTS / 2) * (1000 / (2 * FOLLOW_MS));
  const service = await standInService(expiries);
  const dataDir = mkdtempSync(join(tmpdir(), 'kasir-bench-follower-'));
  const env = {
    ...process.env,
    HOST: '127.0.0.1',
    KASIR_BASE_URL: service.url,
    KASIR_CLIENT_ID: 'bench',
    KASIR_CLIENT_SECRET: 'bench-secret',
    KASIR_ACCESS_TOKEN: 'bench-token',
    KASIR_WEBHOOK_SECRET: newWebhookSecret(),
    KASIR_LOG_LEVEL: 'warn',
    REDIS_URL: '',
  };
  const paths = ids.slice(0, 50).map((id) => `/api/checkouts/${id}/deposit`);
  console.log(
    `\nfollower: the compiled kasir-merchant with ${OPEN_CHECKOUTS} open checkouts (half within an hour of expiry), followMs ${FOLLOW_MS}; ` +
      `bound ${expectedPerSecond.toFixed(0)} upstream reads/s; measured ${measureSeconds} s after one interval of warm-up`,
  );
  try {
    /** Reads per second and the backend's CPU over the window, after the first interval (first sight is spread over it). */
    const window = async (children: ChildProcess[]) => {
      await new Promise((r) => setTimeout(r, FOLLOW_MS + 2000));
      const reads = service.reads;
      const cpu = children.map(cpuMs);
      const started = Date.now();
      await new Promise((r) => setTimeout(r, measureSeconds * 1000));
      const seconds = (Date.now() - started) / 1000;
      const cpuShare = children.map((child, i) => (cpuMs(child) - cpu[i]!) / 10 / seconds); // % of one core
      return { readsPerSecond: (service.reads - reads) / seconds, cpuShare };
    };

    for (const followMs of [FOLLOW_MS, 3600_000]) {
      const dir = join(dataDir, `one-${followMs}`);
      stateFile(dir, ids);
      const merchant = await startMerchant({ ...env, KASIR_DATA_DIR: dir, KASIR_FOLLOW_MS: String(followMs) });
      try {
        if (followMs === FOLLOW_MS) {
          const { readsPerSecond, cpuShare } = await window([merchant.child]);
          console.log(
            `  one process: ${readsPerSecond.toFixed(0)} upstream reads/s (bound ${expectedPerSecond.toFixed(0)}), backend CPU ${cpuShare[0]!.toFixed(1)} % of one core`,
          );
        }
        const result = await shoppers({
          url: merchant.url,
          paths,
          shoppers: SHOPPERS,
          durationSeconds: quick ? 5 : 10,
        });
        console.log(
          `  ${SHOPPERS} shoppers polling once a second, follower ${followMs === FOLLOW_MS ? 'at 20 s' : 'slowed to an hour'}: p99 ${result.p99Ms} ms (goal <= 10), p50 ${result.p50Ms} ms, max ${result.maxMs} ms, non-2xx ${result.non2xx}, errors ${result.errors}`,
        );
      } finally {
        await merchant.stop();
      }
    }

    const redisUrl = process.env.REDIS_URL || process.env.KASIR_TEST_REDIS_URL;
    if (redisUrl) {
      const prefix = `kasir-bench-follow-${randomUUID()}:`;
      const state = new RedisState({ url: redisUrl, prefix, timeoutMs: 5000 });
      try {
        for (let i = 0; i < ids.length; i += 500)
          await Promise.all(
            ids.slice(i, i + 500).map((id, j) =>
              state.saveCheckout(
                id,
                {
                  feesPaidBy: 'merchant',
                  amount: '150000',
                  currency: 'IDR',
                  orderId: `order-${i + j}`,
                  createdAt: now,
                },
                CHECKOUT_TTL_MS,
              ),
            ),
          );
      } finally {
        await state.close();
      }
      const copies = await Promise.all(
        [0, 1].map(() =>
          startMerchant({
            ...env,
            REDIS_URL: redisUrl,
            KASIR_REDIS_PREFIX: prefix,
            KASIR_FOLLOW_MS: String(FOLLOW_MS),
          }),
        ),
      );
      try {
        const { readsPerSecond, cpuShare } = await window(copies.map((copy) => copy.child));
        console.log(
          `  two copies on Redis: ${readsPerSecond.toFixed(0)} upstream reads/s in all (bound ${expectedPerSecond.toFixed(0)}), backend CPU ${cpuShare.map((share) => share.toFixed(1)).join(' % and ')} % of one core`,
        );
      } finally {
        await Promise.all(copies.map((copy) => copy.stop()));
      }
    }
  } finally {
    await service.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
