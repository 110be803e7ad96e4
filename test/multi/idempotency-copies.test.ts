// Idempotency-Key across two copies of the payment service (the compiled kasir-sandbox command) on one PostgreSQL
// database: a create answered by one copy is replayed by the other, another body there is a 422, and
// the same key sent to both copies at once makes one deposit (the other answer is the same one, or a 409 in progress).
// Run by `npm run test:multi` (PostgreSQL from with-postgres.sh); build first (`npx tsc -b server/provider`).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { signedRequestHeaders } from '../../server/common/request-signing';
import type { SandboxCredentials } from '../../server/provider/sandbox/seed';
import { SERVICE_CLI, SERVICE_READY, startProc, stopAll, type Proc } from '../support/multi';
import { createTestDatabase, testDatabaseUrl } from '../support/provider';

const fiat = {
  inputCurrency: 'IDR',
  inputAmount: 150000,
  outputCurrency: 'IDR',
  balanceType: 'fiat',
  paymentMethod: 'BCA_VA',
};

describe('Idempotency-Key across two copies of the service on one PostgreSQL database', { timeout: 120_000 }, () => {
  let database: { url: string; drop(): Promise<void> };
  let copies: Proc[] = [];
  let credentials: SandboxCredentials;
  let sql: pg.Client;

  before(async () => {
    assert.ok(
      testDatabaseUrl,
      'KASIR_TEST_DATABASE_URL is not set: run through npm run test:multi (test/support/with-postgres.sh)',
    );
    assert.ok(existsSync(SERVICE_CLI), `${SERVICE_CLI} is missing: build first (npx tsc -b server/provider)`);
    database = await createTestDatabase();
    const env = { DATABASE_URL: database.url, PROVIDER_PORT: '0', KASIR_SCRYPT_N: '1024', KASIR_LOG_LEVEL: 'warn' };
    // One after the other: the first makes the schema and the merchant, the second finds them.
    copies.push(await startProc(SERVICE_CLI, env, SERVICE_READY));
    copies.push(await startProc(SERVICE_CLI, env, SERVICE_READY));
    credentials = JSON.parse(readFileSync(join(copies[0]!.dataDir, 'sandbox.json'), 'utf8')) as SandboxCredentials;
    sql = new pg.Client({ connectionString: database.url });
    await sql.connect();
  });
  after(async () => {
    await sql?.end();
    await stopAll(copies);
    await database?.drop();
  });

  const create = (copy: Proc, key: string, body: unknown = fiat) =>
    fetch(`${copy.url}/v1/deposit/fiat`, {
      method: 'POST',
      body: JSON.stringify(body),
      headers: {
        authorization: `Bearer ${credentials.accessToken}`,
        'content-type': 'application/json',
        'idempotency-key': key,
      },
    });
  const deposits = async () => Number((await sql.query('select count(*) as n from deposits')).rows[0].n);

  it('a create on one copy is replayed by the other; another body there is a 422', async () => {
    const before = await deposits();
    const key = randomUUID();
    const first = await create(copies[0]!, key);
    const firstText = await first.text();
    assert.equal(first.status, 201, firstText);
    const again = await create(copies[1]!, key);
    assert.deepEqual(
      [again.status, again.headers.get('idempotent-replayed'), await again.text()],
      [201, 'true', firstText],
    );
    const other = await create(copies[1]!, key, { ...fiat, inputAmount: 160000 });
    assert.equal(other.status, 422);
    assert.equal(await deposits(), before + 1);
  });

  it('a signed checkout on one copy is replayed by the other', async () => {
    const key = randomUUID();
    const body = JSON.stringify({ inputCurrency: 'IDR', inputAmount: 150000 });
    let ms = Date.now();
    const send = (copy: Proc) =>
      fetch(`${copy.url}/v1/checkout`, {
        method: 'POST',
        body,
        headers: {
          ...signedRequestHeaders(
            credentials.clientId,
            credentials.clientSecret,
            'POST',
            '/v1/checkout',
            body,
            new Date((ms += 1)).toISOString(),
          ),
          'content-type': 'application/json',
          'idempotency-key': key,
        },
      });
    const first = await send(copies[0]!);
    const firstText = await first.text();
    assert.equal(first.status, 200, firstText);
    const again = await send(copies[1]!);
    assert.deepEqual(
      [again.status, again.headers.get('idempotent-replayed'), await again.text()],
      [200, 'true', firstText],
    );
  });

  it('the same key sent to both copies at once makes one deposit', async () => {
    const before = await deposits();
    const keys = Array.from({ length: 20 }, () => randomUUID());
    const answers = await Promise.all(
      keys.map(async (key) => {
        const pair = await Promise.all(
          copies.map(async (copy) => {
            const res = await create(copy, key);
            return { status: res.status, text: await res.text() };
          }),
        );
        return pair;
      }),
    );
    for (const pair of answers) {
      const made = pair.filter((a) => a.status === 201);
      assert.ok(made.length >= 1, JSON.stringify(pair));
      assert.ok(
        pair.every((a) => a.status === 201 || a.status === 409),
        JSON.stringify(pair),
      );
      assert.ok(
        made.every((a) => a.text === made[0]!.text),
        'both answers are the one deposit',
      );
    }
    assert.equal(await deposits(), before + keys.length);
  });
});
