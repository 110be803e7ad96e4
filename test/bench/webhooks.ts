// Webhook delivery benchmark (webhooks under a steady stream). The payment service runs as it ships
// (the compiled kasir-sandbox command in its own process, logging at info: one line per delivery), its webhook URL a
// fast local receiver (204) in this process.
// - Stream: deposits completed through PATCH /v1/deposit/:id at a fixed rate (200/s, 400/s; open loop, so a slow
//   answer does not slow the arrivals) and then as fast as the API takes them (16 clients), each for BENCH_STREAM_SECONDS
//   (30 s; 5 s with --quick), while deliveries go out. Printed: the completion rate achieved, the delivery rate, the
//   latency from each completion's 200 to its webhook's arrival (p50, p95, max), the webhooks not yet delivered when
//   the stream ended, and lost (a completion answered 200 whose webhook never came) and doubled (a deposit's webhook
//   arriving twice) webhooks. Targets: deliveries keep up, p95 <= 250 ms at 400/s, 0 lost, 0 doubled.
// - Backlog: BENCH_BACKLOG (100,000; 10,000 with --quick) webhooks put in the outbox while the service is stopped,
//   then the service started: deliveries per second from the first arrival to the last (target >= 1,000/s).
// - Yardstick, in the same run: the least code that does a delivery's work (sign, POST on a kept-alive connection,
//   32 at a time, no database) in a process of its own, to the same receiver: the machine's ceiling at that moment.
// SQLite, then PostgreSQL too when BENCH_DATABASE_URL=postgres://... is set (a database the bench may fill);
// BENCH_ENGINES=sqlite or postgres runs one.
// BENCH_RATES=400,0 picks the stream rates (0: as fast as the API takes them); BENCH_CPU_PROF=<dir> runs the stream's
// service under a CPU profiler (cpu-profile.cjs: the profile is written there when it stops; it covers the last stream
// from its first completion to its last delivery, the deposits' creation left out).
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase } from '../../server/provider/db/database';
import { startSandboxCommand } from './support';

const QUICK = process.argv.includes('--quick');
const STREAM_SECONDS = Number(process.env.BENCH_STREAM_SECONDS || (QUICK ? 5 : 30));
const RATES = (process.env.BENCH_RATES ?? '200,400,0')
  .split(',')
  .filter((r) => r !== '')
  .map(Number);
const BACKLOG = Number(process.env.BENCH_BACKLOG || (QUICK ? 10_000 : 100_000));
/** Clients of the "as fast as the API takes them" stream, and of the deposits' creation. */
const CLIENTS = Number(process.env.BENCH_CLIENTS || 16);
/** Most completions in flight in a fixed-rate stream (beyond it the rate achieved falls short, and says so). */
const OPEN_LOOP_CAP = 256;
/** Deposits made for the "as fast as it takes them" stream: more than it can complete in its time on this machine. */
const FASTEST_DEPOSITS = Number(process.env.BENCH_FASTEST_DEPOSITS || 800 * STREAM_SECONDS);

/** Wall-clock ms with sub-ms precision, one clock for the stream's answers and the receiver's arrivals. */
const now = () => performance.timeOrigin + performance.now();

interface Arrival {
  webhookId: string;
  depositId: string;
  receivedAt: number;
}

export async function startReceiver() {
  const arrivals: Arrival[] = [];
  let waiting: { done: () => boolean; resolve: () => void } | undefined;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const receivedAt = now();
      const payload = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { depositId: string };
      arrivals.push({ webhookId: String(req.headers['webhook-id']), depositId: payload.depositId, receivedAt });
      res.writeHead(204).end();
      if (waiting?.done()) waiting.resolve();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
    arrivals,
    /** Resolves once `done()` holds (checked at each arrival), or after `timeoutMs` (the caller counts what is missing). */
    until(done: () => boolean, timeoutMs: number) {
      if (done()) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const timer = setTimeout(finish, timeoutMs);
        function finish() {
          clearTimeout(timer);
          waiting = undefined;
          resolve();
        }
        waiting = { done, resolve: finish };
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Where the service answers and the token to call it with; calls go over kept-alive node:http (cheap for this process). */
export class Service {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: OPEN_LOOP_CAP });
  private readonly host: string;
  private readonly port: number;
  constructor(
    base: string,
    private readonly token: string,
  ) {
    const url = new URL(base);
    this.host = url.hostname;
    this.port = Number(url.port);
  }

  call(method: string, path: string, body?: unknown): Promise<{ status: number; data: { depositId: string } }> {
    const text = body === undefined ? '' : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: this.host,
          port: this.port,
          method,
          path,
          agent: this.agent,
          headers: {
            authorization: `Bearer ${this.token}`,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(text),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const json = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: { depositId: string } };
            resolve({ status: res.statusCode ?? 0, data: json.data });
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(text);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/** Runs `task` over `items` with `clients` at a time, until `until()` says stop. */
async function pool<T>(
  items: T[],
  clients: number,
  task: (item: T) => Promise<void>,
  until = () => true,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < items.length && until()) await task(items[next++]);
    }),
  );
}

async function createDeposits(service: Service, count: number): Promise<string[]> {
  const ids: string[] = [];
  await pool(
    Array.from({ length: count }, (_, i) => i),
    CLIENTS,
    async () => {
      const res = await service.call('POST', '/v1/deposit/fiat', {
        inputCurrency: 'IDR',
        inputAmount: 150000,
        outputCurrency: 'IDR',
        balanceType: 'fiat',
        paymentMethod: 'BCA_VA',
      });
      if (res.status !== 201) throw new Error(`create: ${res.status}`);
      ids.push(res.data.depositId);
    },
  );
  return ids;
}

/** The pid of the kasir-sandbox process started on `dataDir` (Linux: found in /proc; undefined elsewhere). */
function servicePidOf(dataDir: string): number | undefined {
  try {
    for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
      try {
        if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('provider/cli.js')) continue;
        if (readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`KASIR_DATA_DIR=${dataDir}`))
          return Number(pid);
      } catch {
        /* a process that ended meanwhile */
      }
    }
  } catch {
    /* no /proc */
  }
  return undefined;
}

/**
 * The CPU time (user + system, ms, all its threads) the kasir-sandbox process started on `dataDir` has used so far, read
 * from /proc (Linux; undefined elsewhere): what a completion or a delivery costs the service, a figure the machine's other
 * load moves far less than a rate.
 */
function cpuMsOf(dataDir: string): number | undefined {
  const pid = servicePidOf(dataDir);
  if (pid === undefined) return undefined;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, in clock ticks of 1/100 s
  } catch {
    return undefined;
  }
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface StreamResult {
  rate: number;
  completionRate: number;
  patchP95: number;
  failed: number;
  deliveryRate: number;
  p50: number;
  p95: number;
  max: number;
  behind: number;
  lost: number;
  doubled: number;
  /** The service's CPU time per completion, its webhook's delivery included (ms). */
  cpuMsEach: number | undefined;
  /** This process's CPU time per completion (ms): the clients sending the completions and the receiver, on the same cores. */
  benchCpuMsEach: number;
}

/**
 * One stream: completions at `rate` per second (0: as fast as CLIENTS clients get answers) for STREAM_SECONDS, then
 * waits for the last webhook. Counts only this stream's deposits.
 */
export async function stream(
  service: Service,
  receiver: Awaited<ReturnType<typeof startReceiver>>,
  rate: number,
  dataDir: string,
): Promise<StreamResult> {
  const ids = await createDeposits(service, rate > 0 ? rate * STREAM_SECONDS : FASTEST_DEPOSITS);
  const mine = new Set(ids);
  const firstArrival = receiver.arrivals.length;
  const answered = new Map<string, number>();
  const patchTimes: number[] = [];
  let failed = 0;
  const complete = async (id: string) => {
    const t0 = now();
    const res = await service.call('PATCH', `/v1/deposit/${id}`, { status: 'completed' });
    const t1 = now();
    patchTimes.push(t1 - t0);
    if (res.status === 200) answered.set(id, t1);
    else failed++;
  };
  await sleep(500); // the creations' writes settle
  if (process.env.BENCH_CPU_PROF) process.kill(servicePidOf(dataDir)!, 'SIGUSR2'); // the profile covers the stream only
  const cpuBefore = cpuMsOf(dataDir);
  const benchCpuBefore = process.cpuUsage();
  const start = now();
  if (rate > 0) {
    // Open loop: completion i is sent at start + i / rate, whatever the earlier ones' answers (up to OPEN_LOOP_CAP in flight).
    let sent = 0;
    let inFlight = 0;
    const all: Array<Promise<void>> = [];
    while (sent < ids.length) {
      const due = Math.min(ids.length, Math.floor(((now() - start) * rate) / 1000) + 1);
      while (sent < due && inFlight < OPEN_LOOP_CAP) {
        inFlight++;
        all.push(
          complete(ids[sent++]).finally(() => {
            inFlight--;
          }),
        );
      }
      await sleep(1);
    }
    await Promise.all(all);
  } else {
    await pool(ids, CLIENTS, complete, () => now() - start < STREAM_SECONDS * 1000);
  }
  const ended = now();
  const delivered = () => receiver.arrivals.length - firstArrival;
  const behind = answered.size - delivered();
  // Every answered completion's webhook, or a minute more than the backlog needs at 200/s.
  await receiver.until(() => delivered() >= answered.size, 60_000 + (behind / 200) * 1000);
  const cpuAfter = cpuMsOf(dataDir);
  const benchCpu = process.cpuUsage(benchCpuBefore);
  await sleep(1000); // a doubled delivery would come now
  const arrivals = receiver.arrivals.slice(firstArrival).filter((a) => mine.has(a.depositId));
  const firstOf = new Map<string, Arrival>();
  let doubled = 0;
  for (const a of arrivals) {
    if (firstOf.has(a.depositId)) doubled++;
    else firstOf.set(a.depositId, a);
  }
  const latencies: number[] = [];
  let lost = 0;
  for (const [id, at] of answered) {
    const arrival = firstOf.get(id);
    if (!arrival) lost++;
    else latencies.push(Math.max(0, arrival.receivedAt - at)); // a webhook may arrive before the PATCH's answer does
  }
  latencies.sort((a, b) => a - b);
  patchTimes.sort((a, b) => a - b);
  const lastArrival = Math.max(...arrivals.map((a) => a.receivedAt));
  return {
    rate,
    completionRate: answered.size / ((ended - start) / 1000),
    patchP95: percentile(patchTimes, 0.95),
    failed,
    deliveryRate: firstOf.size / ((lastArrival - start) / 1000),
    p50: percentile(latencies, 0.5),
    p95: percentile(latencies, 0.95),
    max: latencies.at(-1) ?? 0,
    behind,
    lost,
    doubled,
    cpuMsEach:
      cpuBefore === undefined || cpuAfter === undefined
        ? undefined
        : (cpuAfter - cpuBefore) / Math.max(1, answered.size),
    benchCpuMsEach: (benchCpu.user + benchCpu.system) / 1000 / Math.max(1, answered.size),
  };
}

/**
 * The backlog: BACKLOG copies of a delivered webhook put back in the outbox (new webhook-ids, due now) while the
 * service is stopped, then the service started; deliveries per second from the first arrival to the last.
 */
async function backlog(
  dataDir: string,
  receiver: Awaited<ReturnType<typeof startReceiver>>,
  databaseUrl: string | undefined,
) {
  const db = await openDatabase({ dataDir, databaseUrl });
  const template = await db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('status', '=', 'succeeded')
    .limit(1)
    .executeTakeFirstOrThrow();
  const ids = new Set<string>();
  const at = new Date();
  const run = at.getTime().toString(36); // a database the bench filled before keeps its rows
  try {
    for (let i = 0; i < BACKLOG; i += 1000) {
      const rows = [];
      for (let n = i; n < Math.min(BACKLOG, i + 1000); n++) {
        const id = `msg_backlog${run}_${n}`;
        ids.add(id);
        rows.push({
          ...template,
          id,
          status: 'pending' as const,
          attempt_count: 0,
          next_attempt_at: at.getTime(),
          created_at: at.toISOString(),
          succeeded_at: null,
        });
      }
      await db.insertInto('webhook_deliveries').values(rows).execute();
    }
  } finally {
    await db.destroy();
  }
  const firstArrival = receiver.arrivals.length;
  const mine = () => receiver.arrivals.slice(firstArrival).filter((a) => ids.has(a.webhookId));
  const started = now();
  const service = await startSandboxCommand(dataDir, {
    KASIR_LOG_LEVEL: 'info',
    KASIR_WEBHOOK_URL: receiver.url,
    DATABASE_URL: databaseUrl ?? '',
    ...profiled(),
  });
  let cpuMs: number | undefined;
  try {
    await receiver.until(() => receiver.arrivals.length > firstArrival, 120_000);
    const cpuAtFirst = cpuMsOf(dataDir); // the start's own cost (migrations, seeding, JIT) left out
    await receiver.until(() => receiver.arrivals.length - firstArrival >= BACKLOG, Math.max(120_000, BACKLOG * 5));
    const cpuAtLast = cpuMsOf(dataDir);
    if (cpuAtFirst !== undefined && cpuAtLast !== undefined) cpuMs = cpuAtLast - cpuAtFirst;
  } finally {
    await service.stop();
  }
  const arrivals = mine();
  const distinct = new Set(arrivals.map((a) => a.webhookId)).size;
  const first = Math.min(...arrivals.map((a) => a.receivedAt));
  const last = Math.max(...arrivals.map((a) => a.receivedAt));
  return {
    perSecond: (distinct - 1) / ((last - first) / 1000),
    fromStart: distinct / ((last - started) / 1000),
    lost: BACKLOG - distinct,
    doubled: arrivals.length - distinct,
    cpuMsEach: cpuMs === undefined ? undefined : cpuMs / Math.max(1, distinct - 1),
  };
}

/**
 * The yardstick: `count` webhooks signed (HMAC-SHA256 of id.timestamp.body) and POSTed on kept-alive connections, 32
 * at a time, from a process of its own, as a dispatcher with nothing to read or record would. Deliveries per second.
 */
async function yardstick(url: string, count: number): Promise<number> {
  const script = `
    const { createHmac } = require('node:crypto');
    const http = require('node:http');
    const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
    const key = Buffer.alloc(24, 7);
    const body = JSON.stringify({ type: 'deposit.completed', depositId: 'yardstick', data: { status: 'completed', padding: 'x'.repeat(900) } });
    const post = (i) => new Promise((resolve, reject) => {
      const id = 'msg_yardstick' + i, ts = String(Math.floor(Date.now() / 1000));
      const sig = 'v1,' + createHmac('sha256', key).update(id + '.' + ts + '.' + body).digest('base64');
      const req = http.request(${JSON.stringify(url)}, { method: 'POST', agent, headers: { 'content-type': 'application/json',
        'webhook-id': id, 'webhook-timestamp': ts, 'webhook-signature': sig, 'content-length': Buffer.byteLength(body) } },
        (res) => { res.resume(); res.on('end', resolve); });
      req.on('error', reject);
      req.end(body);
    });
    (async () => {
      let next = 0;
      const t0 = performance.now();
      await Promise.all(Array.from({ length: 32 }, async () => { while (next < ${count}) await post(next++); }));
      console.log(String(${count} / ((performance.now() - t0) / 1000)));
      agent.destroy();
    })();`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  for await (const chunk of child.stdout) out += chunk;
  return Number(out.trim());
}

/** With BENCH_CPU_PROF, the service runs under the profiler (and BENCH_EXTRA_REQUIRE, another preload, if set). */
const profiled = (): Record<string, string> =>
  process.env.BENCH_CPU_PROF
    ? {
        NODE_OPTIONS: [fileURLToPath(new URL('./cpu-profile.cjs', import.meta.url)), process.env.BENCH_EXTRA_REQUIRE]
          .filter(Boolean)
          .map((f) => `--require=${f}`)
          .join(' '),
      }
    : {};

const fmt = (n: number) => Math.round(n).toLocaleString('en');

async function runEngine(databaseUrl: string | undefined): Promise<void> {
  const engine = databaseUrl ? 'PostgreSQL' : 'SQLite';
  const receiver = await startReceiver();
  const dataDir = mkdtempSync(join(tmpdir(), 'kasir-bench-webhooks-'));
  try {
    const ceiling = await yardstick(receiver.url, QUICK ? 5_000 : 20_000);
    console.log(
      `\nwebhooks under a steady stream, ${engine}, compiled kasir-sandbox logging at info, a local receiver (204); ` +
        `${STREAM_SECONDS} s per stream; the machine is shared`,
    );
    console.log(
      `  yardstick: sign + POST on kept-alive connections, 32 at a time, no database: ${fmt(ceiling)} deliveries/s`,
    );
    const command = await startSandboxCommand(dataDir, {
      KASIR_WEBHOOK_URL: receiver.url,
      KASIR_LOG_LEVEL: 'info',
      DATABASE_URL: databaseUrl ?? '',
      ...profiled(),
    });
    const service = new Service(command.base, command.credentials.accessToken);
    try {
      for (const rate of RATES) {
        const r = await stream(service, receiver, rate, dataDir);
        const label = rate > 0 ? `${rate}/s` : 'as fast as it takes them';
        const keptUp = r.deliveryRate >= 0.95 * r.completionRate;
        const p95Target = rate === 400 ? `   (target p95 <= 250 ms: ${r.p95 <= 250 ? 'met' : 'NOT met'})` : '';
        console.log(
          `  ${label.padEnd(26)} completions ${fmt(r.completionRate)}/s (PATCH p95 ${fmt(r.patchP95)} ms${r.failed ? `, ${r.failed} failed` : ''}), ` +
            `deliveries ${fmt(r.deliveryRate)}/s (${keptUp ? 'kept up' : 'did NOT keep up'}; ${fmt(r.behind)} behind at the end)` +
            `${r.cpuMsEach === undefined ? '' : `; service CPU ${r.cpuMsEach.toFixed(2)} ms per completion and its delivery`}` +
            ` (the bench's clients and receiver: ${r.benchCpuMsEach.toFixed(2)} ms)`,
        );
        console.log(
          `  ${''.padEnd(26)} completion's 200 -> receiver: p50 ${fmt(r.p50)} ms, p95 ${fmt(r.p95)} ms, max ${fmt(r.max)} ms; ` +
            `lost ${r.lost}, doubled ${r.doubled}${r.lost || r.doubled ? ' (must be 0)' : ''}${p95Target}`,
        );
      }
    } finally {
      service.close();
      await command.stop();
    }
    const b = await backlog(dataDir, receiver, databaseUrl);
    console.log(
      `  backlog of ${fmt(BACKLOG)} released at start   ${fmt(b.perSecond)} deliveries/s from the first to the last ` +
        `(${fmt(b.fromStart)}/s counted from the process's start${b.cpuMsEach === undefined ? '' : `; service CPU ${b.cpuMsEach.toFixed(2)} ms per delivery`}); ` +
        `${b.lost ? `${fmt(b.lost)} still not delivered when the bench stopped waiting` : 'lost 0'}, doubled ${b.doubled}   (target >= 1,000/s: ${b.perSecond >= 1000 ? 'met' : 'NOT met'})`,
    );
  } finally {
    await receiver.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function run(): Promise<void> {
  // BENCH_ENGINES=postgres (or sqlite) runs one of the two.
  const engines = (process.env.BENCH_ENGINES ?? 'sqlite,postgres').split(',');
  if (engines.includes('sqlite')) await runEngine(undefined);
  if (engines.includes('postgres') && process.env.BENCH_DATABASE_URL) await runEngine(process.env.BENCH_DATABASE_URL);
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
