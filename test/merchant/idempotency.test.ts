// Idempotency-Key on the widget API's creates (POST /checkouts, POST /checkouts/:id/deposit), kept in the backend's
// shared state (its data dir; Redis across copies), and the merchant client's own keys on its creates and their
// retries (docs/idempotency.md).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Checkout } from '@kasir/checkout';
import { PaymentServiceClient } from '../../server/merchant/client/client';
import { PaymentServiceError } from '../../server/merchant/client/errors';
import { call, merchantApp, runningMerchant, startUpstream, type Envelope, type Upstream } from './support';

const redisUrl = process.env.KASIR_TEST_REDIS_URL;
const order = { amount: '150000', currency: 'IDR' };

describe('Idempotency-Key on the widget API and in the merchant client', () => {
  let up: Upstream;
  let dataDir: string;
  before(async () => {
    up = await startUpstream();
    dataDir = mkdtempSync(join(tmpdir(), 'kasir-idempotency-'));
  });
  after(async () => {
    await up.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const upstreamCalls = (what: string) => up.calls.filter((c) => c === what).length;

  describe('the widget API (one process, its data dir)', () => {
    it('POST /checkouts twice with one key: one checkout made upstream, the first answer again; another body: 422', async () => {
      const app = merchantApp(up, { dataDir });
      try {
        const key = randomUUID();
        const before = upstreamCalls('POST /v1/checkout');
        const first = await call<Envelope<Checkout>>(app, 'POST', '/api/checkouts', order, { 'Idempotency-Key': key });
        assert.equal(first.status, 201, first.text);
        assert.equal(first.headers.get('idempotent-replayed'), null);
        const again = await call<Envelope<Checkout>>(app, 'POST', '/api/checkouts', order, { 'Idempotency-Key': key });
        assert.deepEqual(
          [again.status, again.headers.get('idempotent-replayed'), again.text],
          [201, 'true', first.text],
        );
        assert.equal(upstreamCalls('POST /v1/checkout'), before + 1);
        const other = await call(
          app,
          'POST',
          '/api/checkouts',
          { ...order, amount: '160000' },
          { 'Idempotency-Key': key },
        );
        assert.deepEqual([other.status, other.json.message], [422, 'Idempotency-Key reused with another request']);
        const bad = await call(app, 'POST', '/api/checkouts', order, { 'Idempotency-Key': 'with space' });
        assert.equal(bad.status, 400);
        assert.match(bad.json.message, /^Idempotency-Key: /);

        // A method chosen twice with one key: one choice upstream, the first answer (201) again.
        const id = first.json.data.id;
        const choose = () =>
          call(app, 'POST', `/api/checkouts/${id}/deposit`, { method: 'QRIS' }, { 'Idempotency-Key': `choose-${key}` });
        const chosen = await choose();
        assert.equal(chosen.status, 201, chosen.text);
        const choices = upstreamCalls(`POST /checkout/${id}/deposit`);
        const replayed = await choose();
        assert.deepEqual(
          [replayed.status, replayed.headers.get('idempotent-replayed'), replayed.text],
          [201, 'true', chosen.text],
        );
        assert.equal(upstreamCalls(`POST /checkout/${id}/deposit`), choices);
      } finally {
        await app.api.close();
      }
    });

    it('an answer kept in the data dir is replayed after a restart', async () => {
      const key = randomUUID();
      const first = merchantApp(up, { dataDir });
      const made = await call(first, 'POST', '/api/checkouts', order, { 'Idempotency-Key': key });
      await first.api.close();
      const restarted = merchantApp(up, { dataDir });
      try {
        const again = await call(restarted, 'POST', '/api/checkouts', order, { 'Idempotency-Key': key });
        assert.deepEqual(
          [again.status, again.headers.get('idempotent-replayed'), again.text],
          [201, 'true', made.text],
        );
      } finally {
        await restarted.api.close();
      }
    });

    it('over real HTTP (the kasir-merchant server): the replay carries the same headers as any answer', async () => {
      const merchant = await runningMerchant(up, { dataDir });
      try {
        const key = randomUUID();
        const send = () =>
          fetch(`${merchant.url}/api/checkouts`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', 'Idempotency-Key': key },
            body: JSON.stringify(order),
          });
        const first = await send();
        const firstText = await first.text();
        assert.equal(first.status, 201, firstText);
        const again = await send();
        assert.deepEqual(
          [again.status, again.headers.get('idempotent-replayed'), await again.text()],
          [201, 'true', firstText],
        );
        for (const name of ['content-type', 'x-content-type-options', 'cache-control', 'x-request-id'])
          assert.ok(again.headers.get(name), name);
      } finally {
        await merchant.stop();
      }
    });

    it('a cross-site page may send the key and read the replay mark (CORS)', async () => {
      const app = merchantApp(up, { allowedOrigins: ['https://shop.example'] });
      try {
        const preflight = await app.request('http://localhost/api/checkouts', {
          method: 'OPTIONS',
          headers: {
            Origin: 'https://shop.example',
            'Access-Control-Request-Method': 'POST',
            'Access-Control-Request-Headers': 'content-type,idempotency-key',
          },
        });
        assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /Idempotency-Key/i);
        const made = await call(app, 'POST', '/api/checkouts', order, {
          Origin: 'https://shop.example',
          'Idempotency-Key': randomUUID(),
        });
        assert.match(made.headers.get('access-control-expose-headers') ?? '', /Idempotent-Replayed/);
      } finally {
        await app.api.close();
      }
    });
  });

  describe(
    'the widget API on Redis, two copies',
    { skip: !redisUrl && 'KASIR_TEST_REDIS_URL is not set (run through test/support/with-redis.sh)' },
    () => {
      it('a create on one copy is replayed by the other; another body there is a 422; a choice too', async () => {
        const redisPrefix = `kasir-test-${randomUUID()}:`;
        // A loaded test machine may take longer than the default 300 ms to connect: not a stall.
        const shared = { redisUrl, redisPrefix, redisTimeoutMs: 3_000 };
        const [a, b] = [merchantApp(up, shared), merchantApp(up, shared)];
        try {
          const key = randomUUID();
          const before = upstreamCalls('POST /v1/checkout');
          const first = await call<Envelope<Checkout>>(a, 'POST', '/api/checkouts', order, { 'Idempotency-Key': key });
          assert.equal(first.status, 201, first.text);
          const again = await call(b, 'POST', '/api/checkouts', order, { 'Idempotency-Key': key });
          assert.deepEqual(
            [again.status, again.headers.get('idempotent-replayed'), again.text],
            [201, 'true', first.text],
          );
          assert.equal(upstreamCalls('POST /v1/checkout'), before + 1);
          assert.equal(
            (await call(b, 'POST', '/api/checkouts', { ...order, amount: '1' }, { 'Idempotency-Key': key })).status,
            422,
          );

          const id = first.json.data.id;
          const chooseKey = randomUUID();
          const chosen = await call(
            b,
            'POST',
            `/api/checkouts/${id}/deposit`,
            { method: 'QRIS' },
            { 'Idempotency-Key': chooseKey },
          );
          assert.equal(chosen.status, 201, chosen.text);
          const replayed = await call(
            a,
            'POST',
            `/api/checkouts/${id}/deposit`,
            { method: 'QRIS' },
            { 'Idempotency-Key': chooseKey },
          );
          assert.deepEqual(
            [replayed.status, replayed.headers.get('idempotent-replayed'), replayed.text],
            [chosen.status, 'true', chosen.text],
          );
          // Two at once on the two copies: one runs, the other is told it is in progress or gets the same answer.
          const together = randomUUID();
          const both = await Promise.all(
            [a, b].map((app) => call(app, 'POST', '/api/checkouts', order, { 'Idempotency-Key': together })),
          );
          assert.deepEqual(
            both.map((r) => r.status).sort(),
            both.some((r) => r.status === 409) ? [201, 409] : [201, 201],
          );
          assert.ok(both.every((r) => r.status !== 201 || r.text === both.find((x) => x.status === 201)!.text));
        } finally {
          await a.api.close();
          await b.api.close();
        }
      });
    },
  );

  describe('the merchant client', () => {
    const clientOver = (fetchImpl: typeof fetch, retries?: number) => {
      const creds = up.provider.credentials;
      return new PaymentServiceClient({ ...creds, fetch: fetchImpl, retries });
    };
    const fiat = {
      inputCurrency: 'IDR',
      inputAmount: 150000,
      outputCurrency: 'IDR',
      balanceType: 'fiat',
      paymentMethod: 'BCA_VA',
    } as const;
    const countDeposits = async () => (await clientOver(fetch).listDeposits({ limit: 1 })).totalDocs;
    const keyOf = (init: RequestInit | undefined) => new Headers(init?.headers).get('idempotency-key');

    it('a create whose first answer is lost is sent again with its key: one deposit, the first one', async () => {
      const keys: Array<string | null> = [];
      let lost: { depositId: string } | undefined;
      const dropsFirstAnswer: typeof fetch = async (input, init) => {
        keys.push(keyOf(init));
        const res = await fetch(input, init);
        if (keys.length === 1) {
          lost = ((await res.json()) as { data: { depositId: string } }).data;
          throw new TypeError('fetch failed', {
            cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }),
          });
        }
        return res;
      };
      const before = await countDeposits();
      const deposit = await clientOver(dropsFirstAnswer).createFiatDeposit(fiat);
      assert.equal(keys.length, 2);
      assert.ok(keys[0] && keys[0] === keys[1], `one key for both tries: ${keys.join(', ')}`);
      assert.equal(deposit.depositId, lost?.depositId);
      assert.equal(await countDeposits(), before + 1);
    });

    it('a signed checkout create too, and each create has a key of its own', async () => {
      const keys: Array<string | null> = [];
      let tries = 0;
      const dropsFirstAnswer: typeof fetch = async (input, init) => {
        keys.push(keyOf(init));
        const res = await fetch(input, init);
        if ((tries += 1) === 1) throw new TypeError('fetch failed');
        return res;
      };
      const client = clientOver(dropsFirstAnswer);
      const first = await client.createCheckout({ inputCurrency: 'IDR', inputAmount: 150000 });
      const second = await client.createCheckout({ inputCurrency: 'IDR', inputAmount: 150000 });
      assert.equal(keys.length, 3);
      assert.equal(keys[0], keys[1]);
      assert.notEqual(keys[1], keys[2]);
      assert.notEqual(first.id, second.id);
    });

    it("retries a 409 that says the key's request is in progress, not the service's own 409s", async () => {
      let tries = 0;
      const busyOnce: typeof fetch = async (input, init) => {
        if ((tries += 1) === 1) {
          return new Response(
            JSON.stringify({
              statusCode: 409,
              error: 'Conflict',
              message: 'Idempotency-Key is in use by a request still in progress: retry it shortly',
            }),
            {
              status: 409,
              headers: { 'Content-Type': 'application/json', 'Retry-After': '1' },
            },
          );
        }
        return fetch(input, init);
      };
      const deposit = await clientOver(busyOnce).createFiatDeposit(fiat);
      assert.equal(tries, 2);
      assert.equal(deposit.status, 'pending');
      let conflicts = 0;
      const referenceTaken: typeof fetch = async () => {
        conflicts += 1;
        return new Response(JSON.stringify({ statusCode: 409, error: 'Conflict', message: 'reference already used' }), {
          status: 409,
          headers: { 'Content-Type': 'application/json' },
        });
      };
      await assert.rejects(
        clientOver(referenceTaken).createFiatDeposit(fiat),
        (err: unknown) => err instanceof PaymentServiceError && err.statusCode === 409,
      );
      assert.equal(conflicts, 1);
    });

    it('works against a service that ignores the header, and gives up after its retries', async () => {
      const answered: typeof fetch = async () =>
        new Response(
          JSON.stringify({
            statusCode: 201,
            message: 'Deposit created successfully',
            data: { depositId: 'd-1', status: 'pending' },
          }),
          {
            status: 201,
            headers: { 'Content-Type': 'application/json' },
          },
        );
      assert.equal((await clientOver(answered).createFiatDeposit(fiat)).depositId, 'd-1');
      let tries = 0;
      const unreachable: typeof fetch = async () => {
        tries += 1;
        throw new TypeError('fetch failed');
      };
      await assert.rejects(clientOver(unreachable, 1).createFiatDeposit(fiat), /could not be reached/);
      assert.equal(tries, 2);
      tries = 0;
      await assert.rejects(clientOver(unreachable).getDeposit('x'), /could not be reached/);
      assert.equal(tries, 1, 'a read is not retried by the client (the status cache reads again)');
    });
  });
});
