// The deposit-change feed across copies: two copies of the payment service on one PostgreSQL
// database. A method switch on copy A (no webhook: only the deposit's row changes) drops copy B's cached view of the
// deposit as it commits, so B's next signed read shows the new method at once, not when its cache entry times out
// (READ_CACHE_MS, a second).
// Run by `npm run test:multi` (KASIR_TEST_DATABASE_URL); build first (`npm run build`).
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { signedRequestHeaders } from '../../server/common/request-signing';
import type { SandboxCredentials } from '../../server/provider/sandbox/seed';
import { SERVICE_CLI, SERVICE_READY, startProc, stopAll, type Proc } from '../support/multi';
import { createTestDatabase, testDatabaseUrl } from '../support/provider';

const ROUNDS = 5;
/** Well under the read cache's second: a copy that waited for its entry to time out shows the old method past it. */
const AT_ONCE_MS = 300;
const METHODS = ['QRIS', 'BNI_VA', 'OVO', 'BCA_VA'];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a deposit changed on one copy', { timeout: 120_000 }, () => {
  let database: { url: string; drop(): Promise<void> };
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
      KASIR_LOG_LEVEL: 'warn',
      KASIR_WEBHOOK_URL: 'http://127.0.0.1:9/hooks',
    };
    copies.push(await startProc(SERVICE_CLI, env, SERVICE_READY));
    copies.push(await startProc(SERVICE_CLI, env, SERVICE_READY));
    credentials = JSON.parse(readFileSync(join(copies[0]!.dataDir, 'sandbox.json'), 'utf8')) as SandboxCredentials;
  });

  after(async () => {
    await stopAll(copies);
    await database?.drop();
  });

  const signed = async (copy: Proc, method: string, target: string, body?: unknown) => {
    const text = body === undefined ? '' : JSON.stringify(body);
    const res = await fetch(copy.url + target, {
      method,
      headers: {
        ...signedRequestHeaders(credentials.clientId, credentials.clientSecret, method, target, text),
        ...(text ? { 'content-type': 'application/json' } : {}),
      },
      body: text || undefined,
    });
    return {
      status: res.status,
      json: (await res.json()) as {
        message: string;
        data: { id: string; version: number; paymentFiat: { bankCode?: string; qrData?: string } };
      },
    };
  };
  const choose = async (copy: Proc, checkoutId: string, paymentMethod: string) => {
    const res = await fetch(`${copy.url}/checkout/${checkoutId}/deposit`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ paymentMethod }),
    });
    const json = (await res.json()) as { message: string; choice?: string };
    assert.ok(res.status === 200 || res.status === 201, `choice ${res.status}: ${json.message}`);
    return json.choice;
  };
  const versionOn = async (copy: Proc, depositId: string) => {
    const res = await signed(copy, 'GET', `/v1/deposit/${depositId}`);
    assert.equal(res.status, 200, res.json.message);
    return res.json.data.version;
  };

  it(`shows a method switch on the other copy at once (under ${AT_ONCE_MS} ms, ${ROUNDS} rounds)`, async () => {
    const [a, b] = copies as [Proc, Proc];
    const checkout = await signed(a, 'POST', '/v1/checkout', { inputCurrency: 'IDR', inputAmount: 150000 });
    assert.equal(checkout.status, 200, checkout.json.message);
    const checkoutId = checkout.json.data.id;
    assert.equal(await choose(a, checkoutId, 'BCA_VA'), 'created');
    const late: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // B reads the deposit (and keeps it in its read cache), then A switches its method.
      const before = await versionOn(b, checkoutId);
      assert.equal(await versionOn(b, checkoutId), before);
      assert.equal(await choose(a, checkoutId, METHODS[round % METHODS.length]!), 'switched');
      const switched = Date.now();
      let seen = before;
      while (seen === before && Date.now() - switched < 2000) {
        seen = await versionOn(b, checkoutId);
        if (seen === before) await sleep(10);
      }
      const elapsed = Date.now() - switched;
      assert.equal(seen, before + 1, `round ${round}: copy B shows version ${seen}`);
      if (elapsed > AT_ONCE_MS) late.push(`round ${round}: copy B showed the switch after ${elapsed} ms`);
    }
    assert.deepEqual(late, [], 'every switch visible on the other copy at once');
  });
});
