// What metrics and tracing cost (docs/observability.md): the sandbox's signed read (GET /v1/deposit/:id, the compiled
// kasir-sandbox, log silent) and the merchant backend's status read (the compiled kasir-merchant: 1,000 shoppers polling
// once a second, and the read at full speed with 1,000 connections), each with KASIR_METRICS off and on, the two
// loaded at the same time round by round (BENCH_ROUNDS, default 5) with Prometheus scraping the "on" one during each round; the
// figures are the medians of the rounds' on/off ratios, of throughput and of the server's CPU time per request (which
// other work on a shared machine disturbs least). Then the price of a request's span when no SDK is registered,
// timed in process. `npx tsx test/bench/metrics.ts` alone (after `npm run build`), or a part of `npm run bench`.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Hono } from 'hono';
import { signedRequestHeaders } from '../../server/common/request-signing';
import { requestSpans, tracerOf } from '../../server/common/observability';
import { startSandbox } from '../../server/provider/process/main';
import { load, startSandboxCommand, type LoadResult } from './support';

const BIN = resolve(import.meta.dirname, '../../server/merchant/dist/merchant/cli.js');
const SANDBOX_BIN = resolve(import.meta.dirname, '../../server/provider/dist/provider/cli.js');
const ROUNDS = Number(process.env.BENCH_ROUNDS || 5);
const SECONDS = Number(process.env.BENCH_SECONDS || (process.argv.includes('--quick') ? 2 : 5));
const SHOPPERS = 1000;
const SHOPPER_SECONDS = Math.max(SECONDS, 10);

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const percent = (ratio: number) => `${ratio >= 1 ? '+' : ''}${((ratio - 1) * 100).toFixed(1)} %`;

/** CPU seconds a process has used so far (user + system), from /proc (Linux). */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ 100)
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

/** The compiled kasir-merchant on a free port, ready once /readyz answers. */
async function startMerchantProcess(env: NodeJS.ProcessEnv) {
  const port = await freePort();
  const child = spawn(process.execPath, [BIN], { env: { ...env, PORT: String(port) }, stdio: 'ignore' });
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
    pid: child.pid!,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    },
  };
}

/** 1,000 shoppers polling once a second (test/bench/shoppers-worker.mjs, its own process). */
async function shoppers(url: string, paths: string[]) {
  const child = spawn(process.execPath, [fileURLToPath(new URL('./shoppers-worker.mjs', import.meta.url))], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  child.stdin.end(JSON.stringify({ url, paths, shoppers: SHOPPERS, durationSeconds: SHOPPER_SECONDS }));
  let out = '';
  for await (const chunk of child.stdout) out += chunk;
  return JSON.parse(out) as { reads: number; p50Ms: number; p99Ms: number; non2xx: number; errors: number };
}

/** What a load measured, and the server's CPU time per request meanwhile (what other work on the machine disturbs least). */
type Measured = LoadResult & { cpuUsPerRequest: number };

/**
 * A load on the server `pid`, with one Prometheus scrape of `metricsUrl` in its middle (as a 15 s scrape interval
 * would fall).
 */
async function loadScraped(pid: number, options: Parameters<typeof load>[0], metricsUrl?: string): Promise<Measured> {
  const cpu = cpuSeconds(pid);
  const scraped = metricsUrl
    ? new Promise((r) => setTimeout(r, (SECONDS * 1000) / 2)).then(() => fetch(metricsUrl).then((res) => res.text()))
    : undefined;
  const [result] = await Promise.all([load(options), scraped]);
  const requests = result.requestsPerSecond * (options.durationSeconds ?? SECONDS);
  return { ...result, cpuUsPerRequest: ((cpuSeconds(pid) - cpu) * 1e6) / Math.max(1, requests) };
}

/** The medians of two alternating series of loads, and of their ratios round by round. */
function summary(rows: Array<Record<'off' | 'on', Measured>>): string {
  const rps = (mode: 'off' | 'on') => median(rows.map((r) => r[mode].requestsPerSecond));
  const cpu = (mode: 'off' | 'on') => median(rows.map((r) => r[mode].cpuUsPerRequest)).toFixed(0);
  const rpsRatio = median(rows.map((r) => r.on.requestsPerSecond / r.off.requestsPerSecond));
  const cpuRatio = median(rows.map((r) => r.on.cpuUsPerRequest / r.off.cpuUsPerRequest));
  return (
    `off ${rps('off')} req/s, ${cpu('off')} µs CPU each; on ${rps('on')} req/s, ${cpu('on')} µs CPU each (medians of ${rows.length} rounds); ` +
    `on/off: throughput ${percent(rpsRatio)}, CPU per request ${percent(cpuRatio)} (rounds: ${rows.map((r) => percent(r.on.cpuUsPerRequest / r.off.cpuUsPerRequest)).join(', ')}; goal: at most 3 % lost)`
  );
}

async function signedRead(): Promise<void> {
  const dirs = {
    off: mkdtempSync(join(tmpdir(), 'kasir-bench-m0-')),
    on: mkdtempSync(join(tmpdir(), 'kasir-bench-m1-')),
  };
  const sandboxes = {
    off: await startSandboxCommand(dirs.off, { KASIR_LOG_LEVEL: 'silent', KASIR_METRICS: 'false' }),
    on: await startSandboxCommand(dirs.on, { KASIR_LOG_LEVEL: 'silent', KASIR_METRICS: 'true' }),
  };
  try {
    const reads: Record<'off' | 'on', () => Parameters<typeof load>[0]> = {
      off: () => ({ url: '' }),
      on: () => ({ url: '' }),
    };
    for (const mode of ['off', 'on'] as const) {
      const { base, credentials } = sandboxes[mode];
      const res = await fetch(`${base}/v1/deposit/fiat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${credentials.accessToken}` },
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
      reads[mode] = () => ({
        url: `${base}${target}`,
        headers: signedRequestHeaders(credentials.clientId, credentials.clientSecret, 'GET', target, ''),
      });
      await load({ ...reads[mode](), durationSeconds: 1 }); // warm-up
    }
    const rows: Array<Record<'off' | 'on', Measured>> = [];
    for (let round = 0; round < ROUNDS; round++) {
      // Both at once: whatever else the machine does falls on both alike.
      const [off, on] = await Promise.all([
        loadScraped(sandboxes.off.pid, reads.off()),
        loadScraped(sandboxes.on.pid, reads.on(), `${sandboxes.on.base}/metrics`),
      ]);
      rows.push({ off, on });
    }
    console.log(`  signed read GET /v1/deposit/:id (50 connections, log silent): ${summary(rows)}`);
  } finally {
    await sandboxes.off.stop();
    await sandboxes.on.stop();
    rmSync(dirs.off, { recursive: true, force: true });
    rmSync(dirs.on, { recursive: true, force: true });
  }
}

async function statusRead(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kasir-bench-metrics-'));
  const provider = await startSandbox({
    env: { ...process.env, KASIR_DATA_DIR: dataDir, PROVIDER_PORT: '0', KASIR_METRICS: 'false' },
    port: 0,
    scryptN: 2 ** 12,
    sweepIntervalMs: 60_000,
  });
  const c = provider.credentials;
  const env = (metrics: boolean): NodeJS.ProcessEnv => ({
    ...process.env,
    HOST: '127.0.0.1',
    KASIR_DATA_DIR: join(dataDir, metrics ? 'merchant-on' : 'merchant-off'),
    REDIS_URL: '',
    KASIR_BASE_URL: c.baseUrl.replace('localhost', '127.0.0.1'),
    KASIR_CHECKOUT_URL: c.checkoutUrl,
    KASIR_CLIENT_ID: c.clientId,
    KASIR_CLIENT_SECRET: c.clientSecret,
    KASIR_ACCESS_TOKEN: c.accessToken,
    KASIR_WEBHOOK_SECRET: c.webhookSecret,
    KASIR_SANDBOX: 'true',
    KASIR_CHECKOUT_RATE_LIMIT: '10000',
    KASIR_STATUS_REFRESH_MS: '2000',
    KASIR_METRICS: String(metrics),
  });
  const merchants = { off: await startMerchantProcess(env(false)), on: await startMerchantProcess(env(true)) };
  try {
    const paths: Record<'off' | 'on', string[]> = { off: [], on: [] };
    for (const mode of ['off', 'on'] as const) {
      const { url } = merchants[mode];
      for (let i = 0; i < 50; i++) {
        const created = await fetch(`${url}/api/checkouts`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ amount: String(100000 + i), currency: 'IDR' }),
        });
        const { data } = (await created.json()) as { data: { id: string } };
        await fetch(`${url}/api/checkouts/${data.id}/deposit`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ method: i % 2 ? 'QRIS' : 'BCA_VA' }),
        });
        paths[mode].push(`/api/checkouts/${data.id}/deposit`);
      }
      await load({ url: `${url}${paths[mode][0]}`, connections: 1000, durationSeconds: 2 }); // warm-up
    }
    type Shoppers = Awaited<ReturnType<typeof shoppers>> & { cpuMsPer1000: number };
    const polled: Array<Record<'off' | 'on', Shoppers>> = [];
    const full: Array<Record<'off' | 'on', Measured>> = [];
    for (let round = 0; round < ROUNDS; round++) {
      const shopperRound = {} as Record<'off' | 'on', Shoppers>;
      const fullRound = {} as Record<'off' | 'on', Measured>;
      // Both at once: whatever else the machine does falls on both alike.
      await Promise.all(
        (['off', 'on'] as const).map(async (mode) => {
          const { url, pid } = merchants[mode];
          const cpu = cpuSeconds(pid);
          const scraped = mode === 'on' ? fetch(`${url}/metrics`).then((r) => r.text()) : undefined;
          const result = await shoppers(url, paths[mode]);
          await scraped;
          shopperRound[mode] = { ...result, cpuMsPer1000: ((cpuSeconds(pid) - cpu) * 1e6) / result.reads };
        }),
      );
      await Promise.all(
        (['off', 'on'] as const).map(async (mode) => {
          const { url, pid } = merchants[mode];
          fullRound[mode] = await loadScraped(
            pid,
            { url: `${url}${paths[mode][0]}`, connections: 1000 },
            mode === 'on' ? `${url}/metrics` : undefined,
          );
        }),
      );
      polled.push(shopperRound);
      full.push(fullRound);
    }
    const of = <T>(rows: Array<Record<'off' | 'on', T>>, mode: 'off' | 'on', pick: (row: T) => number) =>
      median(rows.map((row) => pick(row[mode])));
    const cpuRatio = median(polled.map((r) => r.on.cpuMsPer1000 / r.off.cpuMsPer1000));
    console.log(
      `  ${SHOPPERS} shoppers polling once a second (${SHOPPER_SECONDS} s): off p50 ${of(polled, 'off', (r) => r.p50Ms)} ms p99 ${of(polled, 'off', (r) => r.p99Ms)} ms, ` +
        `on p50 ${of(polled, 'on', (r) => r.p50Ms)} ms p99 ${of(polled, 'on', (r) => r.p99Ms)} ms; CPU per 1,000 reads off ${of(polled, 'off', (r) => r.cpuMsPer1000).toFixed(0)} ms, on ${of(polled, 'on', (r) => r.cpuMsPer1000).toFixed(0)} ms ` +
        `(median on/off ${percent(cpuRatio)}); errors ${polled.reduce((n, r) => n + r.off.errors + r.on.errors + r.off.non2xx + r.on.non2xx, 0)}`,
    );
    console.log(`  status read at full speed (1,000 connections): ${summary(full)}`);
  } finally {
    await merchants.off.stop();
    await merchants.on.stop();
    await provider.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** A request's span with no SDK registered, against a middleware that only calls next(): nanoseconds per request. */
async function spanWithoutSdk(): Promise<void> {
  const app = (traced: boolean) => {
    const hono = new Hono();
    hono.use('*', traced ? requestSpans(tracerOf('bench')) : (_c, next) => next());
    hono.get('/checkouts/:id/deposit', (c) => c.text('ok'));
    return hono;
  };
  const request = new Request('http://localhost/checkouts/abc/deposit', {
    headers: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
  });
  const time = async (hono: Hono, n: number) => {
    const started = process.hrtime.bigint();
    for (let i = 0; i < n; i++) await hono.fetch(request);
    return Number(process.hrtime.bigint() - started) / n;
  };
  const plain = app(false);
  const traced = app(true);
  await time(plain, 20_000);
  await time(traced, 20_000);
  const rows = [];
  for (let round = 0; round < 5; round++)
    rows.push({ plain: await time(plain, 100_000), traced: await time(traced, 100_000) });
  const extra = median(rows.map((r) => r.traced - r.plain));
  console.log(
    `  a request's span with no SDK registered: ${extra.toFixed(0)} ns per request (median of 5 rounds of 100,000 app.fetch; a middleware calling next() alone: ${median(rows.map((r) => r.plain)).toFixed(0)} ns)`,
  );
}

export async function run(): Promise<void> {
  if (!existsSync(BIN) || !existsSync(SANDBOX_BIN)) {
    console.log('\nmetrics: the servers are not built (npm run build); skipped');
    return;
  }
  console.log(
    `\nmetrics off and on (KASIR_METRICS), loaded side by side, ${ROUNDS} rounds of ${SECONDS} s, one scrape per round`,
  );
  await spanWithoutSdk();
  await signedRead();
  await statusRead();
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
