// Merchant backend benchmark, through the shipped start path: the compiled `kasir-merchant` command
// (server/merchant/dist/merchant/cli.js, run by `npm run build` first) in its own process, serving widget-API status
// reads (GET /api/checkouts/:id/deposit) to 1,000 concurrent clients over real HTTP, next to a bare Hono handler in
// the same run. Measured alone (state in KASIR_DATA_DIR) and, when a Redis is at hand (REDIS_URL or
// KASIR_TEST_REDIS_URL, e.g. under test/support/with-redis.sh), on Redis. The calls that reached the payment service
// meanwhile are counted by a pass-through proxy in front of it. BENCH_CPU_PROF=<dir> runs the merchant process under a
// CPU profiler (cpu-profile.cjs: the profile is written there when it stops; read it with cpu-profile-top.mjs).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import { startSandbox } from '../../server/provider/process/main';
import { forward } from '../support/forward';
import { load, MERCHANT_COMMAND, printRow, runShoppers, startBareHono, startMerchantCommand } from './support';
import { sandboxConnectionEnv } from '../support/sandbox-env';

const CONNECTIONS = 1000;
/** What shoppers meet: this many shoppers, each polling once a second. */
const SHOPPERS = 1000;
const STATUS_REFRESH_MS = 2000;
const BIN = resolve(import.meta.dirname, '../..', MERCHANT_COMMAND);

/** Forwards every request to `target`, counting them. */
async function countingProxy(target: string) {
  const upstream = new URL(target);
  let calls = 0;
  const server = createServer((req, res) => {
    calls++;
    forward(req, res, upstream);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get calls() {
      return calls;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** With BENCH_CPU_PROF, the merchant process runs under the profiler. */
const profiled = (): Record<string, string> =>
  process.env.BENCH_CPU_PROF
    ? { NODE_OPTIONS: `--require=${fileURLToPath(new URL('./cpu-profile.cjs', import.meta.url))}` }
    : {};

export async function run(): Promise<void> {
  if (!existsSync(BIN)) {
    console.log('\nmerchant backend: not built (npm run build); skipped');
    return;
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'kasir-bench-merchant-'));
  const provider = await startSandbox({
    env: { ...process.env, KASIR_DATA_DIR: dataDir, PROVIDER_PORT: '0' },
    port: 0,
    scryptN: 2 ** 12,
    sweepIntervalMs: 60_000,
  });
  const proxy = await countingProxy(provider.credentials.baseUrl.replace('localhost', '127.0.0.1'));
  const bare = await startBareHono();
  const c = provider.credentials;
  const redisUrl = process.env.REDIS_URL || process.env.KASIR_TEST_REDIS_URL;
  const seconds = Number(process.env.BENCH_SECONDS || (process.argv.includes('--quick') ? 2 : 5));
  try {
    console.log(
      `\nmerchant backend: the compiled kasir-merchant (widget API status reads, ${CONNECTIONS} connections, ${seconds} s each, status refresh ${STATUS_REFRESH_MS} ms; each ratio to the bare Hono run just before it)`,
    );
    for (const shared of redisUrl ? [undefined, redisUrl] : [undefined]) {
      const merchant = await startMerchantCommand({
        ...process.env,
        HOST: '127.0.0.1',
        KASIR_DATA_DIR: join(dataDir, shared ? 'merchant-redis' : 'merchant'),
        REDIS_URL: shared ?? '',
        KASIR_REDIS_PREFIX: `kasir-bench-${Date.now()}:`,
        ...sandboxConnectionEnv(c, proxy.url),
        KASIR_CHECKOUT_RATE_LIMIT: '10000',
        KASIR_STATUS_REFRESH_MS: String(STATUS_REFRESH_MS),
        ...profiled(),
      });
      const mode = shared ? 'Redis' : 'one process';
      try {
        // Pending checkouts with a chosen method: what shoppers poll.
        const ids: string[] = [];
        for (let i = 0; i < 50; i++) {
          const created = await fetch(`${merchant.url}/api/checkouts`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ amount: String(100000 + i), currency: 'IDR' }),
          });
          const { data } = (await created.json()) as { data: { id: string } };
          await fetch(`${merchant.url}/api/checkouts/${data.id}/deposit`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ method: i % 2 ? 'QRIS' : 'BCA_VA' }),
          });
          ids.push(data.id);
        }
        // Warmed up (JIT, connections) before anything is measured.
        await load({
          url: `${merchant.url}/api/checkouts/${ids[0]}/deposit`,
          connections: CONNECTIONS,
          durationSeconds: 2,
        });
        const measure = async (label: string, options: Parameters<typeof load>[0], deposits: number) => {
          // The yardstick right before each figure: the machine's load drifts between runs (other processes).
          const bareGet = await load({ url: bare.url, connections: CONNECTIONS, durationSeconds: seconds });
          printRow(
            'bare Hono GET (yardstick)',
            bareGet.requestsPerSecond,
            bareGet.requestsPerSecond,
            `p99 ${bareGet.p99Ms} ms`,
          );
          const before = proxy.calls;
          const result = await load({ connections: CONNECTIONS, durationSeconds: seconds, ...options });
          const calls = proxy.calls - before;
          const served = result.requestsPerSecond * seconds;
          printRow(
            `${label}, ${mode}`,
            result.requestsPerSecond,
            bareGet.requestsPerSecond,
            `p99 ${result.p99Ms} ms, non-2xx ${result.non2xx}, errors ${result.errors}`,
          );
          console.log(
            `  ${''.padEnd(48)} upstream calls ${calls} for ~${served} reads (${deposits} deposit${deposits > 1 ? 's' : ''}; bound ${Math.ceil((seconds * 1000) / STATUS_REFRESH_MS + 1) * deposits})`,
          );
        };
        const one = `/api/checkouts/${ids[0]}/deposit`;
        // 1,000 shoppers polling once a second over the 50 pending checkouts (each starting at its own moment): the goal
        // is p99 at most 10 ms, no error, and at most one upstream read per deposit per refresh interval.
        {
          const shopperSeconds = Math.max(seconds, 10);
          const before = proxy.calls;
          const result = await runShoppers({
            url: merchant.url,
            paths: ids.map((id) => `/api/checkouts/${id}/deposit`),
            shoppers: SHOPPERS,
            durationSeconds: shopperSeconds,
          });
          const calls = proxy.calls - before;
          const bound = Math.ceil((shopperSeconds * 1000) / STATUS_REFRESH_MS + 1) * ids.length;
          console.log(
            `  ${SHOPPERS} shoppers polling once a second, ${mode}: p99 ${result.p99Ms} ms (goal <= 10), p50 ${result.p50Ms} ms, max ${result.maxMs} ms, ` +
              `${result.reads} reads, non-2xx ${result.non2xx}, errors ${result.errors} (goal 0), upstream calls ${calls} (bound ${bound})`,
          );
        }
        // `--shoppers-only`: the figure above alone (before/after comparisons of the status read).
        if (process.argv.includes('--shoppers-only')) continue;
        await measure('GET .../deposit (one checkout)', { url: merchant.url + one }, 1);
        await measure(
          'GET .../deposit (50 checkouts)',
          {
            url: merchant.url + one,
            requests: ids.map((id) => ({ method: 'GET', path: `/api/checkouts/${id}/deposit` })),
          },
          ids.length,
        );
        const etag = (await fetch(merchant.url + one)).headers.get('etag') ?? '';
        await measure(
          'GET .../deposit, If-None-Match (304)',
          { url: merchant.url + one, headers: { 'if-none-match': etag } },
          1,
        );
      } finally {
        await merchant.stop();
      }
    }
  } finally {
    await bare.stop();
    await proxy.close();
    await provider.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
