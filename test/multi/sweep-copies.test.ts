// Two copies of the payment service (the compiled kasir-sandbox command) sweeping one backlog of overdue deposits on one
// PostgreSQL database at once, each with two batches in flight on a pool of its own: every deposit expires once, with
// one history entry and one deposit.expired webhook in the outbox, and the list counts stay what the rows say.
// Run by `npm run test:multi` (PostgreSQL from with-postgres.sh); build first (`npx tsc -b server/provider`).
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import type { SandboxCredentials } from '../../server/provider/sandbox/seed';
import { SERVICE_CLI, SERVICE_READY, startProc, stopAll, type Proc } from '../support/multi';
import { createTestDatabase, testDatabaseUrl } from '../support/provider';

const DUE = 3000;

/** A compiled service copy on `databaseUrl`, sweeping every 50 ms, with the credentials it wrote. */
async function startCopy(databaseUrl: string): Promise<Proc & { credentials: SandboxCredentials }> {
  const proc = await startProc(
    SERVICE_CLI,
    {
      DATABASE_URL: databaseUrl,
      PROVIDER_PORT: '0',
      KASIR_SCRYPT_N: '1024',
      KASIR_LOG_LEVEL: 'warn',
      KASIR_SWEEP_INTERVAL_MS: '50',
    },
    SERVICE_READY,
  );
  return Object.assign(proc, {
    credentials: JSON.parse(readFileSync(join(proc.dataDir, 'sandbox.json'), 'utf8')) as SandboxCredentials,
  });
}

describe('two copies of the service sweeping one backlog on one PostgreSQL database', { timeout: 180_000 }, () => {
  let database: { url: string; drop(): Promise<void> };
  let copies: Proc[] = [];
  let sql: pg.Client;
  let versions: number[] = [];

  before(async () => {
    assert.ok(
      testDatabaseUrl,
      'KASIR_TEST_DATABASE_URL is not set: run through npm run test:multi (test/support/with-postgres.sh)',
    );
    assert.ok(existsSync(SERVICE_CLI), `${SERVICE_CLI} is missing: build first (npx tsc -b server/provider)`);
    database = await createTestDatabase();
    // One copy makes the schema, the merchant and two deposits through the API (the templates), then stops.
    const first = await startCopy(database.url);
    for (const [path, body] of [
      [
        '/v1/deposit/fiat',
        {
          inputCurrency: 'IDR',
          inputAmount: 150000,
          outputCurrency: 'IDR',
          balanceType: 'fiat',
          paymentMethod: 'QRIS',
        },
      ],
      ['/v1/deposit/crypto', { inputCurrency: 'USDC-POLYGON', inputAmount: 5, outputCurrency: 'USDC-POLYGON' }],
    ] as const) {
      const res = await fetch(first.url + path, {
        method: 'POST',
        headers: { authorization: `Bearer ${first.credentials.accessToken}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      assert.equal(res.status, 201, await res.text());
    }
    await stopAll([first]);
    sql = new pg.Client({ connectionString: database.url });
    await sql.connect();
    // The backlog: copies of the two, each with its history's first entry, all overdue.
    await sql.query(
      `insert into deposits select (jsonb_populate_record(d, jsonb_build_object(
        'id', d.id || '-' || n, 'deposit_id', d.deposit_id || '-' || n, 'reference', null, 'va_number', null, 'expired_at', '2026-01-01T00:00:00.000Z'))).*
      from deposits d, generate_series(1, $1::int / 2) n`,
      [DUE],
    );
    await sql.query(
      `insert into deposit_activities select (jsonb_populate_record(a, jsonb_build_object('id', a.id || '-' || n, 'deposit_row_id', a.deposit_row_id || '-' || n))).*
      from deposit_activities a, generate_series(1, $1::int / 2) n`,
      [DUE],
    );
    await sql.query(`update deposits set expired_at = '2026-01-01T00:00:00.000Z'`); // the two templates too
    versions = (await sql.query(`select distinct version from deposits`)).rows.map((r: { version: number }) =>
      Number(r.version),
    );
    copies = await Promise.all([startCopy(database.url), startCopy(database.url)]);
  });
  after(async () => {
    await sql?.end();
    await stopAll(copies);
    await database?.drop();
  });

  it(`expires each of ${(DUE + 2).toLocaleString('en')} overdue deposits once, with one history entry and one webhook`, async () => {
    const deadline = Date.now() + 60_000;
    let left = DUE + 2;
    while (left > 0 && Date.now() < deadline) {
      left = Number((await sql.query(`select count(*) n from deposits where status = 'pending'`)).rows[0].n);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(left, 0, 'every overdue deposit expired');
    const history =
      await sql.query(`select d.deposit_id, count(*) filter (where a.status = 'expired') expired, count(*) entries
      from deposits d join deposit_activities a on a.deposit_row_id = d.id group by d.deposit_id having count(*) filter (where a.status = 'expired') <> 1 or count(*) <> 2`);
    assert.deepEqual(history.rows, [], 'one expired entry after the pending one, per deposit');
    const webhooks =
      await sql.query(`select d.deposit_id, count(w.id) n from deposits d left join webhook_deliveries w on w.deposit_id = d.deposit_id and w.event_type = 'deposit.expired'
      group by d.deposit_id having count(w.id) <> 1`);
    assert.deepEqual(webhooks.rows, [], 'one deposit.expired webhook per deposit');
    assert.equal(versions.length, 1);
    assert.deepEqual(
      (await sql.query(`select distinct version from deposits`)).rows.map((r: { version: number }) =>
        Number(r.version),
      ),
      [versions[0] + 1],
      'each row moved once',
    );
    const counts =
      await sql.query(`select k.status, k.deposit_type, k.count::int kept, coalesce(r.n, 0)::int rows from deposit_counts k
      left join (select merchant_id, status, deposit_type, count(*) n from deposits group by 1, 2, 3) r using (merchant_id, status, deposit_type)
      where k.count <> coalesce(r.n, 0)`);
    assert.deepEqual(counts.rows, [], 'the counts table is what the rows say');
  });
});
