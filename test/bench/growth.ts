// Growth benchmark: the same calls of one merchant at 10,000, 100,000 and (without --quick)
// 1,000,000 deposits, each figure also as a ratio to its value at 10,000 (target: within 2x, i.e. flat in the table's
// size): signed read by id and by reference, create, method switch (the hosted checkout's choice), the lists; then the
// same with the rows spread over a hundred merchants (the measured one among them, with its hundredth); then the expiry
// sweeper with 100,000 deposits due at once, with signed reads' p99 while it runs. The service runs as it ships (the compiled kasir-sandbox, its own process); the rows are seeded between the
// sizes with bulk inserts straight into its database while it is stopped (the counts table's triggers keep the
// totals, as they would for rows written by the API). BENCH_DATABASE_URL=postgres://... runs it on PostgreSQL (an
// empty database: the bench fills it). The machine is shared: absolute figures are noisy, the ratios are the point.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signedRequestHeaders } from '../../server/common/request-signing';
import { openDatabase } from '../../server/provider/db/database';
import type { DepositRow } from '../../server/provider/db/deposit-tables';
import { load, startBareHono, startSandboxCommand, type LoadOptions, type LoadResult } from './support';

const QUICK = process.argv.includes('--quick');
/** BENCH_GROWTH=sweep: only the sweeper (on 10,000 deposits plus the 100,000 due); =sizes: all but the sweeper. */
const SWEEP_ONLY = process.env.BENCH_GROWTH === 'sweep';
const NO_SWEEP = process.env.BENCH_GROWTH === 'sizes';
/** The yardstick measured in every round beside the figures: each figure's cost is taken relative to it. */
const BARE = 'bare Hono GET (yardstick)';
const SIZES = SWEEP_ONLY ? [10_000] : QUICK ? [10_000, 100_000] : [10_000, 100_000, 1_000_000];
/** A deep page that exists at 10,000 for every filter (each status and type holds at least 3,000 rows then). */
const DEEP_PAGE = 250;
const STATUSES: DepositRow['status'][] = [
  'pending',
  'expired',
  'completed',
  'pending',
  'completed',
  'expired',
  'pending',
  'completed',
  'expired',
  'pending',
];

/** The list calls measured: page 1 and the deep page of each filter and sort of the interface. */
const LISTS: Array<[string, string]> = [
  ['list page 1', ''],
  ['list page 1, sort=-updatedAt', 'sort=-updatedAt'],
  ['list page 1, status=pending', 'status=pending'],
  ['list page 1, status=completed, -createdAt', 'status=completed&sort=-createdAt'],
  ['list page 1, depositType=crypto', 'depositType=crypto'],
  ['list page 1, pending + crypto', 'status=pending&depositType=crypto'],
  [`list page ${DEEP_PAGE}`, `page=${DEEP_PAGE}`],
  [`list page ${DEEP_PAGE}, sort=-updatedAt`, `page=${DEEP_PAGE}&sort=-updatedAt`],
  [`list page ${DEEP_PAGE}, status=pending`, `page=${DEEP_PAGE}&status=pending`],
  [`list page ${DEEP_PAGE}, depositType=crypto`, `page=${DEEP_PAGE}&depositType=crypto`],
];

/** The reference read by the by-reference figure: a seeded row of the measured merchant that exists at every size. */
const REFERENCE = 'order-5000';
/** How many merchants the rows are spread over in the second part (the measured one is merchant 0 of them). */
const MERCHANTS = 100;

/**
 * Adds deposits until the table has `total`: copies of an API-made fiat and crypto deposit, each with its reference
 * (`order-<n>`), of the templates' merchant or, given `merchants`, of each of them in turn.
 */
async function seed(
  dataDir: string,
  templates: DepositRow[],
  from: number,
  total: number,
  due = false,
  merchants?: string[],
): Promise<void> {
  const db = await openDatabase({ dataDir, databaseUrl: process.env.BENCH_DATABASE_URL });
  const start = Date.parse('2026-01-01T00:00:00Z');
  try {
    for (let i = from; i < total; i += 500) {
      const rows = [];
      for (let n = i; n < Math.min(i + 500, total); n++) {
        const template = templates[n % 3 === 0 ? 1 : 0]; // a third crypto
        const status = due ? 'pending' : STATUSES[n % STATUSES.length];
        const created = new Date(start + n * 1000).toISOString();
        rows.push({
          ...template,
          id: `grow${String(n).padStart(8, '0')}`,
          deposit_id: `grow-${n}`,
          reference: `order-${n}`,
          va_number: null,
          checkout_id: null,
          status,
          merchant_id: merchants ? merchants[n % merchants.length] : template.merchant_id,
          created_at: created,
          updated_at: new Date(start + n * 1000 + (n % 7) * 60_000).toISOString(),
          expired_at: status === 'pending' && !due ? '2099-01-01T00:00:00.000Z' : created,
        });
      }
      await db.insertInto('deposits').values(rows).execute();
    }
  } finally {
    await db.destroy();
  }
  // The planner's statistics as autovacuum would have them after such growth (a bulk load leaves them stale).
  await onPostgres('analyze');
}

/** Adds merchants beside the sandbox's own (copies of it, each with its organization), up to `count`; returns all their ids. */
async function addMerchants(dataDir: string, merchantId: string, count: number): Promise<string[]> {
  const db = await openDatabase({ dataDir, databaseUrl: process.env.BENCH_DATABASE_URL });
  try {
    const merchant = await db
      .selectFrom('merchants')
      .selectAll()
      .where('id', '=', merchantId)
      .executeTakeFirstOrThrow();
    const organization = await db
      .selectFrom('organizations')
      .selectAll()
      .where('id', '=', merchant.organization_id)
      .executeTakeFirstOrThrow();
    const ids = [merchantId];
    for (let m = 1; m < count; m++) {
      const id = `${merchantId}-${m}`;
      await db
        .insertInto('organizations')
        .values({ ...organization, id: `${organization.id}-${m}` })
        .execute();
      await db
        .insertInto('merchants')
        .values({
          ...merchant,
          id,
          organization_id: `${organization.id}-${m}`,
          client_id: `${merchant.client_id}-${m}`,
          webhook_url: null,
        })
        .execute();
      ids.push(id);
    }
    return ids;
  } finally {
    await db.destroy();
  }
}

async function templatesOf(dataDir: string, ids: string[]): Promise<DepositRow[]> {
  const db = await openDatabase({ dataDir, databaseUrl: process.env.BENCH_DATABASE_URL });
  try {
    return await Promise.all(
      ids.map((id) => db.selectFrom('deposits').selectAll().where('deposit_id', '=', id).executeTakeFirstOrThrow()),
    );
  } finally {
    await db.destroy();
  }
}

const SWITCH = 'method switch (hosted checkout, 10 at once)';

/**
 * Method switches: a deposit may change method 20 times (then 400), so each of 10 fresh hosted checkouts is switched
 * 18 times between BCA_VA and QRIS by its own client, the 10 at once (a closed loop from this process): switches per
 * second and p99. Every answer must be a switch (200, choice "switched").
 */
async function switches(base: string, clientId: string, clientSecret: string): Promise<LoadResult> {
  const choose = (id: string, paymentMethod: string) =>
    fetch(`${base}/checkout/${id}/deposit`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ paymentMethod }),
    });
  const ids: string[] = [];
  for (let i = 0; i < 10; i++) {
    // One at a time, each its own body: a repeated signature is refused as a replay.
    const body = JSON.stringify({ inputCurrency: 'IDR', inputAmount: 150000 + i + Math.floor(Math.random() * 1e6) });
    const made = await fetch(`${base}/v1/checkout`, {
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/json',
        ...signedRequestHeaders(clientId, clientSecret, 'POST', '/v1/checkout', body),
      },
    });
    const { id } = ((await made.json()) as { data: { id: string } }).data;
    await (await choose(id, 'QRIS')).arrayBuffer(); // the deposit, created
    ids.push(id);
  }
  const latencies: number[] = [];
  let failed = 0;
  const began = performance.now();
  await Promise.all(
    ids.map(async (id) => {
      for (let i = 0; i < 18; i++) {
        const t0 = performance.now();
        const res = await choose(id, i % 2 ? 'QRIS' : 'BCA_VA');
        const { choice } = (await res.json()) as { choice?: string };
        latencies.push(performance.now() - t0);
        if (res.status !== 200 || choice !== 'switched') failed++;
      }
    }),
  );
  const elapsed = (performance.now() - began) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    requestsPerSecond: Math.round(latencies.length / elapsed),
    p99Ms: Math.round(latencies[Math.floor(latencies.length * 0.99)]),
    non2xx: failed,
    errors: 0,
  };
}

/** On PostgreSQL, each part starts from an empty database (on SQLite, from its own data dir). */
async function emptyDatabase(): Promise<void> {
  await onPostgres('drop schema public cascade; create schema public');
}

/** Runs a statement on BENCH_DATABASE_URL's database, when there is one. */
async function onPostgres(statement: string): Promise<void> {
  if (!process.env.BENCH_DATABASE_URL) return;
  const client = new pg.Client({ connectionString: process.env.BENCH_DATABASE_URL });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** A signed GET, signed afresh for each load (a signature's window is 300 s). */
type Scenario = () => LoadOptions;

interface Part {
  title: string;
  results: Array<Record<string, LoadResult>>;
}

/** A webhook receiver that answers 204 (the sandbox delivers the sweep's webhooks to it, as to a shop). */
async function startReceiver(): Promise<{ url: string; received: () => number; close(): Promise<void> }> {
  let received = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received: () => received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export async function run(): Promise<void> {
  const seconds = Number(process.env.BENCH_SECONDS || (QUICK ? 2 : 5));
  const rounds = Number(process.env.BENCH_ROUNDS || 2);
  const receiver = await startReceiver();
  const bare = await startBareHono();
  const env = { KASIR_LOG_LEVEL: 'silent', KASIR_WEBHOOK_URL: receiver.url };
  try {
    for (const spread of SWEEP_ONLY ? [1] : [1, MERCHANTS]) {
      await emptyDatabase();
      const dataDir = mkdtempSync(join(tmpdir(), 'kasir-growth-'));
      let provider = await startSandboxCommand(dataDir, env);
      try {
        const { clientId, clientSecret, accessToken } = provider.credentials;
        const create = async (path: string, body: object) => {
          const res = await fetch(`${provider.base}${path}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${accessToken}` },
            body: JSON.stringify(body),
          });
          return ((await res.json()) as { data: { depositId: string } }).data.depositId;
        };
        const fiat = await create('/v1/deposit/fiat', {
          inputCurrency: 'IDR',
          inputAmount: 250000,
          outputCurrency: 'IDR',
          balanceType: 'fiat',
          paymentMethod: 'QRIS',
        });
        const crypto = await create('/v1/deposit/crypto', {
          inputCurrency: 'USDC-POLYGON',
          inputAmount: 25,
          outputCurrency: 'USDC-POLYGON',
        });
        await provider.stop();
        const templates = await templatesOf(dataDir, [fiat, crypto]);
        const merchants = spread > 1 ? await addMerchants(dataDir, templates[0].merchant_id, spread) : undefined;
        const results: Array<Record<string, LoadResult>> = [];
        let seeded = 0;
        for (const size of SIZES) {
          const began = Date.now();
          await seed(dataDir, templates, seeded, size, false, merchants);
          seeded = size;
          console.log(
            `  (seeded ${size.toLocaleString('en')} deposits over ${spread} merchant${spread > 1 ? 's' : ''} in ${((Date.now() - began) / 1000).toFixed(1)} s)`,
          );
          provider = await startSandboxCommand(dataDir, env);
          const base = provider.base;
          const get =
            (target: string): Scenario =>
            () => ({
              url: `${base}${target}`,
              headers: signedRequestHeaders(clientId, clientSecret, 'GET', target, ''),
            });
          const scenarios: Array<[string, Scenario]> = [
            [BARE, () => ({ url: bare.url })],
            ['signed read by id', get(`/v1/deposit/${fiat}`)],
            ['signed read by reference', get(`/v1/deposit/${REFERENCE}`)],
            [
              'create (bearer, QRIS)',
              () => ({
                url: `${base}/v1/deposit/fiat`,
                method: 'POST',
                headers: { 'content-type': 'application/json', authorization: `Bearer ${accessToken}` },
                body: JSON.stringify({
                  inputCurrency: 'IDR',
                  inputAmount: 150000,
                  outputCurrency: 'IDR',
                  balanceType: 'fiat',
                  paymentMethod: 'QRIS',
                }),
              }),
            ],
            // A hundredth of the rows is the measured merchant's: its deep pages do not exist at 10,000, so only page 1 is compared.
            ...LISTS.filter(([name]) => spread === 1 || !name.includes(`page ${DEEP_PAGE}`)).map(
              ([name, query]): [string, Scenario] => [name, get(query ? `/v1/deposit?${query}` : '/v1/deposit')],
            ),
          ];
          if (SWEEP_ONLY) scenarios.length = 0;
          for (const [, options] of scenarios) await load({ ...options(), connections: 10, durationSeconds: 0.5 }); // warm-up: caches, JIT
          // Each scenario's best of the rounds, in alternation, so a burst of other work on the machine does not decide a figure.
          const best: Record<string, LoadResult> = {};
          for (let r = 0; r < rounds; r++) {
            for (const [name, options] of scenarios) {
              const result = await load({ ...options(), connections: 10, durationSeconds: seconds });
              if (!best[name] || result.requestsPerSecond > best[name].requestsPerSecond) best[name] = result;
            }
            if (SWEEP_ONLY) continue;
            const switched = await switches(base, clientId, clientSecret);
            if (!best[SWITCH] || switched.requestsPerSecond > best[SWITCH].requestsPerSecond) best[SWITCH] = switched;
          }
          results.push(best);
          await provider.stop();
        }
        if (!SWEEP_ONLY)
          printPart(
            {
              title:
                spread > 1
                  ? `the rows spread over ${spread} merchants (the measured one holds a hundredth)`
                  : "one merchant's deposits",
              results,
            },
            rounds,
            seconds,
          );
        if (spread === 1 && !NO_SWEEP)
          printSweep(
            await measureSweep(dataDir, templates, seeded, clientId, clientSecret, fiat, env, receiver.received),
          );
      } finally {
        await provider.stop();
        rmSync(dataDir, { recursive: true, force: true });
      }
    }
  } finally {
    await receiver.close();
    await bare.stop();
  }
}

const engine = () => (process.env.BENCH_DATABASE_URL ? 'PostgreSQL' : 'SQLite');

/** One part's table, printed as soon as it is measured (so a run stopped later still shows it). */
function printPart({ title, results }: Part, rounds: number, seconds: number): void {
  console.log(
    `\ngrowth: ${title}, ${engine()}, compiled kasir-sandbox, 10 connections, best of ${rounds} x ${seconds} s; req/s, p99, and ` +
      'the cost at this size / its cost at 10,000, as measured and (in brackets) relative to the bare Hono GET of the same rounds. ' +
      "The table size is all merchants' rows. On a shared machine both move with its load: the read by id (a primary-key lookup, " +
      'flat by construction) shows how much.',
  );
  console.log(
    `  ${''.padEnd(44)}${SIZES.slice(0, results.length)
      .map((s) => s.toLocaleString('en').padStart(36))
      .join('')}`,
  );
  const raw = (r: Record<string, LoadResult>, name: string) =>
    results[0][name].requestsPerSecond / Math.max(1, r[name].requestsPerSecond);
  const relative = (r: Record<string, LoadResult>, name: string) =>
    raw(r, name) * (r[BARE].requestsPerSecond / results[0][BARE].requestsPerSecond);
  for (const name of Object.keys(results[0])) {
    const cells = results.map((r) => {
      const x = r[name];
      const bad = x.non2xx || x.errors ? ` (${x.non2xx + x.errors} failed)` : '';
      return `${x.requestsPerSecond}/s p99 ${x.p99Ms} ms ${name === BARE ? '' : `${raw(r, name).toFixed(2)}x [${relative(r, name).toFixed(2)}x]`}${bad}`.padStart(
        36,
      );
    });
    const worst = Math.max(...results.map((r) => raw(r, name)));
    console.log(
      `  ${name.padEnd(44)}${cells.join('')}   ${name === BARE ? '' : worst <= 2 ? 'flat (<= 2x)' : 'NOT flat'}`,
    );
  }
}

function printSweep({ due, expired, seconds: took, finished, reads, delivered }: SweepResult): void {
  const rate = Math.round(expired / took);
  const worstP99 = Math.max(...reads.map((r) => r.p99Ms));
  const medianRps = reads.map((r) => r.requestsPerSecond).sort((a, b) => a - b)[Math.floor(reads.length / 2)];
  console.log(
    `  expiry sweeper, ${engine()}: ${due.toLocaleString('en')} deposits due at once (on ${SIZES.at(-1)!.toLocaleString('en')}): ` +
      (finished
        ? `all expired in ${took.toFixed(1)} s`
        : `NOT finished in ${took.toFixed(0)} s: ${expired.toLocaleString('en')} expired`) +
      ` (${rate}/s counted from the process's start; target >= 1,000/s: ${rate >= 1000 ? 'met' : 'NOT met'}); signed reads by id meanwhile ` +
      `${medianRps}/s (median of ${reads.length} 2 s windows), worst window's p99 ${worstP99} ms (target <= 50 ms: ${worstP99 <= 50 ? 'met' : 'NOT met'}); ` +
      `${delivered.toLocaleString('en')} webhooks delivered to a local receiver meanwhile; each window's p99 (ms): ${reads.map((r) => r.p99Ms).join(' ')}`,
  );
}

interface SweepResult {
  due: number;
  expired: number;
  seconds: number;
  finished: boolean;
  reads: LoadResult[];
  delivered: number;
}

/** How long the sweep may take before the bench says it did not finish (and prints what it measured). */
const SWEEP_LIMIT_MS = QUICK ? 300_000 : 600_000;

/**
 * The sweeper under a backlog: 100,000 overdue pending deposits added while the service is stopped, then the service
 * started (its sweeper starts with it) and timed until the merchant has no pending deposit left beyond those it had,
 * with signed reads by id running meanwhile in 2 s windows (each window's p99) and the webhooks going out.
 */
async function measureSweep(
  dataDir: string,
  templates: DepositRow[],
  seeded: number,
  clientId: string,
  clientSecret: string,
  depositId: string,
  env: Record<string, string>,
  received: () => number,
): Promise<SweepResult> {
  const due = 100_000;
  const db = await openDatabase({ dataDir, databaseUrl: process.env.BENCH_DATABASE_URL });
  const pendingBefore = Number(
    (
      await db
        .selectFrom('deposit_counts')
        .select((eb) => eb.fn.sum<number>('count').as('n'))
        .where('status', '=', 'pending')
        .executeTakeFirst()
    )?.n ?? 0,
  );
  await db.destroy();
  await seed(dataDir, templates, seeded, seeded + due, true);
  const receivedBefore = received();
  const began = Date.now();
  const provider = await startSandboxCommand(dataDir, { ...env, KASIR_SWEEP_INTERVAL_MS: '1000' });
  try {
    const list = '/v1/deposit?status=pending&limit=1&sort=-createdAt';
    let left = due;
    let finished = false;
    let seconds = Number.NaN;
    const polling = (async () => {
      for (;;) {
        const res = await fetch(`${provider.base}${list}`, {
          headers: signedRequestHeaders(clientId, clientSecret, 'GET', list, ''),
        });
        left = ((await res.json()) as { data: { totalDocs: number } }).data.totalDocs - pendingBefore;
        seconds = (Date.now() - began) / 1000;
        if (left <= 0) {
          finished = true;
          return;
        }
        if (Date.now() - began > SWEEP_LIMIT_MS) return; // said NOT finished below, with what it measured
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    })();
    const target = `/v1/deposit/${depositId}`;
    const reads: LoadResult[] = [];
    let polled = false;
    void polling.then(() => {
      polled = true;
    });
    while (!polled) {
      reads.push(
        await load({
          url: `${provider.base}${target}`,
          headers: signedRequestHeaders(clientId, clientSecret, 'GET', target, ''),
          connections: 10,
          durationSeconds: 2,
        }),
      );
    }
    await polling;
    return { due, expired: due - Math.max(0, left), seconds, finished, reads, delivered: received() - receivedBefore };
  } finally {
    await provider.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
