// Read after write across copies of the payment service on one PostgreSQL (docs/money.md): once copy A has answered
// a payment or a switch, copy B never answers the deposit as it was before, even while A's NOTIFY has not reached B's
// cache (its listening connection is cut here for the change, as a slow network would hold the notification back).
// Run by `npm run test:multi` (KASIR_TEST_DATABASE_URL); build first (`npm run build`).
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { signedRequestHeaders } from '../../server/common/request-signing';
import type { SandboxCredentials } from '../../server/provider/sandbox/seed';
import { SERVICE_CLI, SERVICE_READY, startProc, stopAll, type Proc } from '../support/multi';
import { createTestDatabase, testDatabaseUrl } from '../support/provider';

const ROUNDS = 6;

interface Read {
  version: number;
  paidAmount: number;
  paymentFiat: { bankCode?: string };
}

describe('read after write across two copies of the service', { timeout: 120_000 }, () => {
  let database: { url: string; drop(): Promise<void> };
  let admin: pg.Client;
  const copies: Proc[] = [];
  let credentials: SandboxCredentials;

  before(async () => {
    assert.ok(testDatabaseUrl, 'KASIR_TEST_DATABASE_URL: run through npm run test:multi');
    assert.ok(existsSync(SERVICE_CLI), `${SERVICE_CLI} is missing: build first (npm run build)`);
    database = await createTestDatabase();
    const env = {
      DATABASE_URL: database.url,
      PROVIDER_PORT: '0',
      KASIR_SCRYPT_N: '1024',
      KASIR_LOG_LEVEL: 'error',
      KASIR_WEBHOOK_URL: 'http://127.0.0.1:9/hooks',
    };
    copies.push(await startProc(SERVICE_CLI, env, SERVICE_READY));
    copies.push(await startProc(SERVICE_CLI, env, SERVICE_READY));
    credentials = JSON.parse(readFileSync(join(copies[0]!.dataDir, 'sandbox.json'), 'utf8')) as SandboxCredentials;
    admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
  });

  after(async () => {
    await admin?.end();
    await stopAll(copies);
    await database?.drop();
  });

  const signed = async <T>(copy: Proc, method: string, target: string, body?: unknown) => {
    const text = body === undefined ? '' : JSON.stringify(body);
    const res = await fetch(copy.url + target, {
      method,
      headers: {
        ...signedRequestHeaders(credentials.clientId, credentials.clientSecret, method, target, text),
        ...(text ? { 'content-type': 'application/json' } : {}),
      },
      body: text || undefined,
    });
    const json = (await res.json()) as { message: string; data: T };
    assert.equal(res.status, res.status < 300 ? res.status : 200, json.message);
    return json.data;
  };
  const read = (copy: Proc, id: string) => signed<Read>(copy, 'GET', `/v1/deposit/${id}`);
  /** Cuts every copy's LISTEN connection: the copies hear no NOTIFY until they have connected again. */
  const holdNotifications = () =>
    admin.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query ILIKE 'LISTEN%' AND pid <> pg_backend_pid()`,
    );
  const newCheckout = async (method: string) => {
    const { id } = await signed<{ id: string }>(copies[0]!, 'POST', '/v1/checkout', {
      inputCurrency: 'IDR',
      inputAmount: 150000,
    });
    const res = await fetch(`${copies[0]!.url}/checkout/${id}/deposit`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ paymentMethod: method }),
    });
    assert.equal(res.status, 201);
    return id;
  };

  it('a payment answered by copy A: copy B never answers the deposit from before it', async () => {
    const stale: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const id = await newCheckout('BCA_TRANSFER');
      await read(copies[1]!, id); // B caches the deposit as it is
      await holdNotifications();
      const { paidAmount, version } = await signed<Read>(copies[0]!, 'POST', `/v1/deposit/${id}/payments`, {
        amount: 10000,
      });
      const seen = await read(copies[1]!, id);
      if (seen.version < version || seen.paidAmount !== paidAmount)
        stale.push(`round ${round}: B answered version ${seen.version} (paid ${seen.paidAmount}) after A's ${version}`);
    }
    assert.deepEqual(stale, []);
  });

  it('a switch answered by copy A: copy B never answers the method from before it', async () => {
    const stale: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const id = await newCheckout('QRIS');
      await read(copies[1]!, id);
      await holdNotifications();
      const res = await fetch(`${copies[0]!.url}/checkout/${id}/deposit`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ paymentMethod: 'BCA_VA' }),
      });
      assert.equal(res.status, 200);
      const seen = await read(copies[1]!, id);
      if (seen.paymentFiat.bankCode !== 'BCA_VA')
        stale.push(`round ${round}: B answered ${seen.paymentFiat.bankCode ?? 'QRIS'} (version ${seen.version})`);
    }
    assert.deepEqual(stale, []);
  });
});
