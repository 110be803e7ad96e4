// What metrics and tracing cost (docs/observability.md): the sandbox's signed read (GET /v1/deposit/:id, the compiled
// kasir-sandbox, log silent) and the merchant backend's status read (the compiled kasir-merchant: 1,000 shoppers polling
// once a second, and the read at full speed with 1,000 connections), each with KASIR_METRICS off and on. Each round
// (BENCH_ROUNDS, default 5) starts both servers afresh and loads them one at a time, off and on in turn (which goes
// first alternating; the signed read in four turns each, off on on off...), with one Prometheus scrape of the "on" one. Where `taskset` exists, the
// server measured keeps one core and the load generators the other, so they never queue on the same one. The headline is
// the median of the rounds' on/off ratios of the server's CPU time per request (what the machine's other work disturbs
// least), throughput beside it. BENCH_CONTROL=1 runs the "on" server with metrics off too: the ratios it prints are
// the bench's own noise. Then the price of a request's span when no SDK is registered, timed in process.
// `npx tsx test/bench/metrics.ts` alone (after `npm run build`), or a part of `npm run bench`.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Hono } from 'hono';
import { requestSpans, tracerOf } from '../../server/common/observability';
import { startSandbox } from '../../server/provider/process/main';
import {
  load,
  MERCHANT_COMMAND,
  runShoppers,
  signedDepositRead,
  startMerchantCommand,
  startSandboxCommand,
  type LoadOptions,
  type LoadResult,
  type ShoppersResult,
} from './support';
import { sandboxConnectionEnv } from '../support/sandbox-env';

/** Where the compiled servers are: this checkout, or BENCH_ROOT (another build of them, e.g. one before a change). */
const ROOT = resolve(process.env.BENCH_ROOT || resolve(import.meta.dirname, '../..'));
const BIN = join(ROOT, MERCHANT_COMMAND);
const SANDBOX_BIN = join(ROOT, 'server/provider/dist/provider/cli.js');
const ROUNDS = Number(process.env.BENCH_ROUNDS || 5);
const SECONDS = Number(process.env.BENCH_SECONDS || (process.argv.includes('--quick') ? 2 : 5));
const SHOPPERS = 1000;
const SHOPPER_SECONDS = Math.max(SECONDS, 10);
/**
 * BENCH_CPU_PROF=<dir>: the servers run under the CPU profiler (cpu-profile.cjs), started afresh after the warm-up, a
 * profile per process written there when it stops (read it with cpu-profile-top.mjs).
 */
const profiled = (): Record<string, string> =>
  process.env.BENCH_CPU_PROF
    ? { NODE_OPTIONS: `--require=${fileURLToPath(new URL('./cpu-profile.cjs', import.meta.url))}` }
    : {};
/** BENCH_METRICS_PART=signed: the sandbox's signed read alone (the status read's rounds take several times as long). */
const SIGNED_ONLY = process.env.BENCH_METRICS_PART === 'signed';
/** A control: the "on" server runs with metrics off as well, so the on/off ratios show what the bench alone moves. */
const CONTROL = process.env.BENCH_CONTROL === '1';
const metricsFlag = (mode: Mode) => String(mode === 'on' && !CONTROL);
const MODES = ['off', 'on'] as const;
type Mode = (typeof MODES)[number];
/** Round `round`'s order: off first in even rounds, on first in odd ones (what drifts over a run falls on both alike). */
const inTurn = (round: number): Mode[] => (round % 2 ? ['on', 'off'] : ['off', 'on']);

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const percent = (ratio: number) => `${ratio >= 1 ? '+' : ''}${((ratio - 1) * 100).toFixed(1)} %`;

/**
 * CPU seconds a process has used so far: the sum of its threads' run time in /proc/<pid>/task/<tid>/schedstat, in
 * nanoseconds (Linux), where /proc/<pid>/stat counts whole clock ticks.
 */
export function cpuSeconds(pid: number): number {
  let ns = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, { encoding: 'utf8', flag: 'r' }).split(' ');
    ns += Number(stat[0]);
  }
  return ns / 1e9;
}

/** Where `taskset` (util-linux) exists and there are two cores or more: the cores of the server measured and of the rest. */
const PINNING = (() => {
  if (availableParallelism() < 2) return undefined;
  try {
    execFileSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' });
    const last = availableParallelism() - 1;
    return { server: '0', rest: last > 1 ? `1-${last}` : '1' };
  } catch {
    return undefined;
  }
})();

/** Sets the CPU affinity of every thread of process `pid` (a list like `0` or `1-3`); returns the one it had. */
function pin(pid: number, cpus: string): string {
  const before = /: (\S+)\s*$/.exec(execFileSync('taskset', ['-pc', String(pid)], { encoding: 'utf8' }))![1]!;
  execFileSync('taskset', ['-a', '-pc', cpus, String(pid)], { stdio: 'ignore' });
  return before;
}

/** What a load measured, and the server's CPU time per request meanwhile (what other work on the machine disturbs least). */
type Measured = LoadResult & { cpuUsPerRequest: number };

/**
 * A load on the server `pid`, with one Prometheus scrape of `metricsUrl` in its middle (as a 15 s scrape interval
 * would fall).
 */
async function loadScraped(pid: number, options: LoadOptions, metricsUrl?: string): Promise<Measured> {
  const cpu = cpuSeconds(pid);
  const seconds = options.durationSeconds ?? SECONDS;
  const scraped = metricsUrl
    ? new Promise((r) => setTimeout(r, (seconds * 1000) / 2)).then(() => fetch(metricsUrl).then((res) => res.text()))
    : undefined;
  const [result] = await Promise.all([load(options), scraped]);
  const requests = result.requestsPerSecond * seconds;
  return { ...result, cpuUsPerRequest: ((cpuSeconds(pid) - cpu) * 1e6) / Math.max(1, requests) };
}

/** Turns per mode in a round of the signed read. */
const SLICES = 4;

/**
 * Each mode's load in SLICES turns of SECONDS / SLICES, alternating as off, on, on, off, off, on...: what the machine's
 * other work does over the round (this machine is shared) falls on both modes alike, where one turn each would leave
 * it to whichever ran second. The scrape falls in the middle of "on"'s turns.
 */
async function inSlices(
  round: number,
  servers: Record<Mode, { pid: number; options: () => LoadOptions; metricsUrl?: string }>,
): Promise<Record<Mode, Measured>> {
  const turns: Record<Mode, Measured[]> = { off: [], on: [] };
  const seconds = SECONDS / SLICES;
  for (let slice = 0; slice < SLICES; slice++)
    for (const mode of inTurn(round + slice)) {
      const { pid, options, metricsUrl } = servers[mode];
      const scrape = slice === SLICES / 2 ? metricsUrl : undefined;
      turns[mode].push(await loadScraped(pid, { ...options(), durationSeconds: seconds }, scrape));
    }
  const combined = (parts: Measured[]): Measured => {
    const requests = parts.map((part) => part.requestsPerSecond * seconds);
    const total = requests.reduce((a, b) => a + b, 0);
    return {
      requestsPerSecond: Math.round(total / (seconds * parts.length)),
      cpuUsPerRequest:
        parts.reduce((sum, part, i) => sum + part.cpuUsPerRequest * requests[i]!, 0) / Math.max(1, total),
      p99Ms: Math.max(...parts.map((part) => part.p99Ms)),
      non2xx: parts.reduce((sum, part) => sum + part.non2xx, 0),
      errors: parts.reduce((sum, part) => sum + part.errors, 0),
    };
  };
  return { off: combined(turns.off), on: combined(turns.on) };
}

/** The rounds' on/off ratios of one figure: their median (the headline) and each round's. */
function ratios<T>(rows: Array<Record<Mode, T>>, pick: (row: T) => number): string {
  const each = rows.map((r) => pick(r.on) / pick(r.off));
  return `${percent(median(each))} (rounds ${each.map(percent).join(', ')})`;
}

/** CPU per request first (the headline), throughput beside it: the medians of each mode, and of the on/off ratios. */
function summary(rows: Array<Record<Mode, Measured>>): string {
  const of = (mode: Mode, pick: (row: Measured) => number) => median(rows.map((r) => pick(r[mode])));
  const cpu = (r: Measured) => r.cpuUsPerRequest;
  const rps = (r: Measured) => r.requestsPerSecond;
  return (
    `CPU per request off ${of('off', cpu).toFixed(1)} µs, on ${of('on', cpu).toFixed(1)} µs: on/off ${ratios(rows, cpu)}; ` +
    `throughput off ${of('off', rps)} req/s, on ${of('on', rps)} req/s: on/off ${ratios(rows, rps)} ` +
    `(medians of ${rows.length} rounds; goal: at most 3 % lost)`
  );
}

/**
 * Starts the server of each mode one after the other (their start-up loads the machine), in round `round`'s order (the
 * younger process is not always the same mode), both stopped when `use` ends.
 */
async function both<T extends { stop(): Promise<void> }, R>(
  round: number,
  start: (mode: Mode) => Promise<T>,
  use: (servers: Record<Mode, T>) => Promise<R>,
): Promise<R> {
  const servers = {} as Record<Mode, T>;
  try {
    for (const mode of inTurn(round)) servers[mode] = await start(mode);
    return await use(servers);
  } finally {
    for (const server of Object.values(servers)) await server.stop();
  }
}

/** Requests a fresh server answers before it is measured: a count, not a time, so a busy machine warms it as much. */
const WARM_UP_REQUESTS = 20_000;

/**
 * After a server started: pinned to its core, warmed up by `options`' load until it answered WARM_UP_REQUESTS (and,
 * with metrics, a first scrape: prom-client's first collect compiles what later ones reuse), its profile
 * (BENCH_CPU_PROF) begun afresh from there.
 */
async function ready(mode: Mode, pid: number, metricsUrl: string, options: LoadOptions): Promise<void> {
  if (PINNING) pin(pid, PINNING.server);
  if (mode === 'on' && !CONTROL) await fetch(metricsUrl).then((r) => r.text());
  for (let answered = 0; answered < WARM_UP_REQUESTS;)
    answered += (await load({ ...options, durationSeconds: 1 })).requestsPerSecond;
  if (process.env.BENCH_CPU_PROF) process.kill(pid, 'SIGUSR2');
}

/** The compiled kasir-sandbox with one pending deposit, and its signed read of it. */
async function startSignedRead(mode: Mode) {
  const dir = mkdtempSync(join(tmpdir(), `kasir-bench-metrics-${mode}-`));
  const sandbox = await startSandboxCommand(
    dir,
    {
      KASIR_LOG_LEVEL: 'silent',
      KASIR_METRICS: metricsFlag(mode),
      ...profiled(),
    },
    ROOT,
  );
  const { base, pid } = sandbox;
  const { read } = await signedDepositRead(sandbox);
  await ready(mode, pid, `${base}/metrics`, read());
  return {
    pid,
    read,
    metricsUrl: mode === 'on' && !CONTROL ? `${base}/metrics` : undefined,
    async stop() {
      await sandbox.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Each round starts both servers afresh: what one process's start draws (its code's optimisation, its heap's layout)
 * moves its figures by more than the 3 % measured, and a draw kept for the whole run would be read as the metrics' cost.
 */
async function signedRead(): Promise<void> {
  const rows: Array<Record<Mode, Measured>> = [];
  for (let round = 0; round < ROUNDS; round++)
    rows.push(
      await both(round, startSignedRead, (sandboxes) =>
        inSlices(round, {
          off: { pid: sandboxes.off.pid, options: sandboxes.off.read, metricsUrl: sandboxes.off.metricsUrl },
          on: { pid: sandboxes.on.pid, options: sandboxes.on.read, metricsUrl: sandboxes.on.metricsUrl },
        }),
      ),
    );
  console.log(
    `  signed read GET /v1/deposit/:id (50 connections, log silent, ${SLICES} turns of each mode a round): ${summary(rows)}`,
  );
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
  let started = 0;
  /** The compiled kasir-merchant (a data directory of its own) with 50 pending checkouts, and their status paths. */
  const startStatusRead = async (mode: Mode) => {
    const merchant = await startMerchantCommand(
      {
        ...process.env,
        HOST: '127.0.0.1',
        KASIR_DATA_DIR: join(dataDir, `merchant-${started++}`),
        REDIS_URL: '',
        ...sandboxConnectionEnv(c, c.baseUrl.replace('localhost', '127.0.0.1')),
        KASIR_CHECKOUT_RATE_LIMIT: '10000',
        KASIR_STATUS_REFRESH_MS: '2000',
        KASIR_METRICS: metricsFlag(mode),
        ...profiled(),
      },
      ROOT,
    );
    const { url, pid } = merchant;
    const paths: string[] = [];
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
      paths.push(`/api/checkouts/${data.id}/deposit`);
    }
    await ready(mode, pid, `${url}/metrics`, { url: `${url}${paths[0]}`, connections: 1000 });
    return { ...merchant, paths, metricsUrl: mode === 'on' && !CONTROL ? `${url}/metrics` : undefined };
  };
  type Shoppers = ShoppersResult & { cpuUsPerRead: number };
  const polled: Array<Record<Mode, Shoppers>> = [];
  const full: Array<Record<Mode, Measured>> = [];
  try {
    for (let round = 0; round < ROUNDS; round++)
      await both(round, startStatusRead, async (merchants) => {
        const shopperRound = {} as Record<Mode, Shoppers>;
        const fullRound = {} as Record<Mode, Measured>;
        for (const mode of inTurn(round)) {
          const { url, pid, paths, metricsUrl } = merchants[mode];
          const cpu = cpuSeconds(pid);
          const scraped = metricsUrl && fetch(metricsUrl).then((r) => r.text());
          const result = await runShoppers({ url, paths, shoppers: SHOPPERS, durationSeconds: SHOPPER_SECONDS });
          await scraped;
          shopperRound[mode] = { ...result, cpuUsPerRead: ((cpuSeconds(pid) - cpu) * 1e6) / result.reads };
          fullRound[mode] = await loadScraped(pid, { url: `${url}${paths[0]}`, connections: 1000 }, metricsUrl);
        }
        polled.push(shopperRound);
        full.push(fullRound);
      });
  } finally {
    await provider.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const of = <T>(rows: Array<Record<Mode, T>>, mode: Mode, pick: (row: T) => number) =>
    median(rows.map((row) => pick(row[mode])));
  const cpu = (r: Shoppers) => r.cpuUsPerRead;
  console.log(
    `  ${SHOPPERS} shoppers polling once a second (${SHOPPER_SECONDS} s): CPU per read off ${of(polled, 'off', cpu).toFixed(1)} µs, on ${of(polled, 'on', cpu).toFixed(1)} µs: on/off ${ratios(polled, cpu)}; ` +
      `off p50 ${of(polled, 'off', (r) => r.p50Ms).toFixed(1)} ms p99 ${of(polled, 'off', (r) => r.p99Ms).toFixed(1)} ms, ` +
      `on p50 ${of(polled, 'on', (r) => r.p50Ms).toFixed(1)} ms p99 ${of(polled, 'on', (r) => r.p99Ms).toFixed(1)} ms; errors ${polled.reduce((n, r) => n + r.off.errors + r.on.errors + r.off.non2xx + r.on.non2xx, 0)}`,
  );
  console.log(`  status read at full speed (1,000 connections): ${summary(full)}`);
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
    `\nmetrics off and on (KASIR_METRICS${CONTROL ? ': a control, off on both' : ''}), loaded in turn, ${ROUNDS} rounds of ${SECONDS} s, one scrape per round; ` +
      (PINNING
        ? `the server measured on core ${PINNING.server}, the load generators on ${PINNING.rest} (taskset)`
        : 'not pinned to cores (no taskset, or one core)'),
  );
  await spanWithoutSdk();
  // This process and the load generators it starts keep off the server's core; as it was afterwards.
  const affinity = PINNING && pin(process.pid, PINNING.rest);
  try {
    await signedRead();
    if (!SIGNED_ONLY) await statusRead();
  } finally {
    if (affinity) pin(process.pid, affinity);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
