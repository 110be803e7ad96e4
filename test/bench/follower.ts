// The follower's cost (docs/orders.md, "No order left pending"): the compiled `kasir-merchant` (server/merchant/dist,
// built first) with 10,000 open checkouts in its state, half far from expiry (a 24-hour VA) and half near it, against a
// stand-in payment service that answers every deposit as pending and counts the reads (so the figures are the
// backend's, not a sandbox's). Measured once the pace is steady (the checkouts are listed a quarter interval in and
// their first reads spread over the slower interval), over a whole number of slower intervals: the upstream reads per
// second (bound: 10,000 per interval, half as many for the far ones), the backend's CPU, and per checkout the most
// reads and the closest two (the bound holds for each, not only on average). Then 1,000 shoppers polling 50 of those
// checkouts, with the follower at its pace and slowed to an hour, in alternating rounds of fresh processes (goal: p99
// within 10 ms, and the follower's within about 1 ms of none). Each shopper keeps one keep-alive connection; its first
// poll (the connection's setup: 1,000 shoppers connect within the first second) and a warm-up are not measured, so the
// p99 is the status read's (the setup's p99 is printed beside it). With a Redis (REDIS_URL or KASIR_TEST_REDIS_URL),
// the same checkouts on two copies: the reads stay those of one.
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { randomUUID } from 'node:crypto';
import { newWebhookSecret } from '../../server/provider/accounts/merchants';
import { RedisState } from '../../server/merchant/state/redis-state';
import { upstreamDeposit } from '../merchant/support';
import { MERCHANT_COMMAND, runShoppers, startMerchantCommand, type ShoppersResult } from './support';

const BIN = resolve(import.meta.dirname, '../..', MERCHANT_COMMAND);
const OPEN_CHECKOUTS = 10_000;
const FOLLOW_MS = 20_000;
const SHOPPERS = 1000;
const CHECKOUT_TTL_MS = 30 * 24 * 3600_000;
/** A checkout far from expiry is read every FAR_PACE intervals. */
const FAR_PACE = 2;
/** Until the pace is steady: listed a quarter interval in, the first reads spread over the slower interval. */
const STEADY_AFTER_MS = FOLLOW_MS / 4 + FAR_PACE * FOLLOW_MS + 2000;

/**
 * A payment service that answers every deposit as pending (its expiry by the id's half), counting the reads; while
 * `tracking`, each read's time by checkout.
 */
async function standInService(expiries: Map<string, number>) {
  let reads = 0;
  let tracked: Map<string, number[]> | undefined;
  const server = createServer((req, res) => {
    const match = /^\/v1\/deposit\/([^/?]+)$/.exec(req.url ?? '');
    res.setHeader('content-type', 'application/json');
    if (req.method === 'GET' && match && match[1] !== 'payment-method') {
      reads++;
      const id = decodeURIComponent(match[1]!);
      tracked?.set(id, [...(tracked.get(id) ?? []), Date.now()]);
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
    /** Records each read's time by checkout from now on. */
    track() {
      tracked = new Map();
    },
    /** Per kind of checkout (`isFar`), the most reads of one since track() and the closest two, in s. */
    perCheckout(isFar: (id: string) => boolean) {
      const per = { near: { most: 0, closest: Infinity }, far: { most: 0, closest: Infinity } };
      for (const [id, times] of tracked ?? []) {
        const kind = per[isFar(id) ? 'far' : 'near'];
        kind.most = Math.max(kind.most, times.length);
        for (let i = 1; i < times.length; i++)
          kind.closest = Math.min(kind.closest, (times[i]! - times[i - 1]!) / 1000);
      }
      tracked = undefined;
      return per;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** The process's CPU time so far (user + system), in ms, from /proc (Linux). */
function cpuMs(child: ChildProcess): number {
  const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (after pid and comm)
  return (ticks * 1000) / 100; // USER_HZ
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
  // A whole number of slower intervals: each checkout's reads in it are its bound, whatever its phase.
  const cycleSeconds = (FAR_PACE * FOLLOW_MS) / 1000;
  const measureSeconds =
    Math.max(1, Math.round(Number(process.env.BENCH_FOLLOW_SECONDS || cycleSeconds) / cycleSeconds)) * cycleSeconds;
  const rounds = Number(process.env.BENCH_FOLLOW_ROUNDS || (quick ? 1 : 2));
  const ids = Array.from({ length: OPEN_CHECKOUTS }, (): string => randomUUID());
  const now = Date.now();
  // Half far from expiry (read every 2 intervals), half near it (every interval).
  const expiries = new Map(ids.map((id, i) => [id, now + (i % 2 ? 24 * 3600_000 : 30 * 60_000)]));
  const isFar = (id: string) => expiries.get(id)! - now > 3600_000;
  const expectedPerSecond =
    (OPEN_CHECKOUTS / 2) * (1000 / FOLLOW_MS) + (OPEN_CHECKOUTS / 2) * (1000 / (FAR_PACE * FOLLOW_MS));
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
      `bound ${expectedPerSecond.toFixed(0)} upstream reads/s; measured ${measureSeconds} s once steady (${STEADY_AFTER_MS / 1000} s in)`,
  );
  /** Reads per second, the backend's CPU, and each checkout's reads, over the window once the pace is steady. */
  const window = async (children: ChildProcess[]) => {
    await new Promise((r) => setTimeout(r, STEADY_AFTER_MS));
    const reads = service.reads;
    const cpu = children.map(cpuMs);
    const started = Date.now();
    service.track();
    await new Promise((r) => setTimeout(r, measureSeconds * 1000));
    const seconds = (Date.now() - started) / 1000;
    const cpuShare = children.map((child, i) => (cpuMs(child) - cpu[i]!) / 10 / seconds); // % of one core
    const each = service.perCheckout(isFar);
    // At most one read per interval: no two reads of one checkout closer than its claim's seven eighths of it.
    const perCheckout =
      `per checkout: the closest two reads ${each.near.closest.toFixed(1)} s apart near expiry (interval ${FOLLOW_MS / 1000} s), ` +
      `${each.far.closest.toFixed(1)} s far (${cycleSeconds} s); at most ${each.near.most} and ${each.far.most} reads in the ${measureSeconds} s`;
    return { readsPerSecond: (service.reads - reads) / seconds, cpuShare, perCheckout };
  };
  try {
    // One process: its reads once steady, then the shoppers, beside a process with the follower slowed to an hour, in
    // alternating rounds (each on fresh processes, the follower's after its pace is steady).
    const measured: Record<'on' | 'off', ShoppersResult[]> = { on: [], off: [] };
    for (let round = 0; round < rounds; round++) {
      for (const side of round % 2 ? (['off', 'on'] as const) : (['on', 'off'] as const)) {
        const followMs = side === 'on' ? FOLLOW_MS : 3600_000;
        const dir = join(dataDir, `one-${round}-${side}`);
        stateFile(dir, ids);
        const merchant = await startMerchantCommand({ ...env, KASIR_DATA_DIR: dir, KASIR_FOLLOW_MS: String(followMs) });
        try {
          if (side === 'on' && round === 0) {
            const { readsPerSecond, cpuShare, perCheckout } = await window([merchant.child]);
            console.log(
              `  one process: ${readsPerSecond.toFixed(0)} upstream reads/s (bound ${expectedPerSecond.toFixed(0)}, ${((100 * readsPerSecond) / expectedPerSecond).toFixed(1)} %), backend CPU ${cpuShare[0]!.toFixed(1)} % of one core; ${perCheckout}`,
            );
          } else if (side === 'on') await new Promise((r) => setTimeout(r, STEADY_AFTER_MS));
          measured[side].push(
            await runShoppers({
              url: merchant.url,
              paths,
              shoppers: SHOPPERS,
              warmUpSeconds: 3,
              durationSeconds: quick ? 5 : 10,
            }),
          );
        } finally {
          await merchant.stop();
        }
      }
    }
    for (const side of ['on', 'off'] as const)
      console.log(
        `  ${SHOPPERS} shoppers polling once a second, follower ${side === 'on' ? 'at 20 s' : 'slowed to an hour'}: p99 ` +
          measured[side]
            .map(
              (r) =>
                `${r.p99Ms} ms (p50 ${r.p50Ms}, max ${r.maxMs}, connection setup p99 ${r.connectP99Ms}, non-2xx ${r.non2xx}, errors ${r.errors})`,
            )
            .join('; ') +
          ' (goal <= 10)',
      );
    console.log(
      `  p99 with the follower less without, by round: ${measured.on.map((r, i) => `${(r.p99Ms - measured.off[i]!.p99Ms).toFixed(1)} ms`).join(', ')} (goal: about 1 ms or less)`,
    );

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
          startMerchantCommand({
            ...env,
            REDIS_URL: redisUrl,
            KASIR_REDIS_PREFIX: prefix,
            KASIR_FOLLOW_MS: String(FOLLOW_MS),
          }),
        ),
      );
      try {
        const { readsPerSecond, cpuShare, perCheckout } = await window(copies.map((copy) => copy.child));
        console.log(
          `  two copies on Redis: ${readsPerSecond.toFixed(0)} upstream reads/s in all (bound ${expectedPerSecond.toFixed(0)}), backend CPU ${cpuShare.map((share) => share.toFixed(1)).join(' % and ')} % of one core; ${perCheckout}`,
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
