// Several copies of the merchant backend on one real Redis (KASIR_TEST_REDIS_URL, from test/support/with-redis.sh):
// webhook dedupe and the once-per-deposit hooks, the orders of created checkouts, the status cache's bound on
// upstream reads, SSE fan-out and rate limits, each shared across copies.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Checkout, Deposit as WidgetDeposit } from '@kasir/checkout';
import { webhookHeaders } from '../../server/common/standard-webhooks';
import type { KasirApiOptions } from '../../server/merchant/config';
import { startMerchant, type RunningMerchant } from '../../server/merchant/server';
import type { CompletedDeposit } from '../../server/merchant/hooks';
import {
  call,
  depositEvent,
  merchantApp,
  openEvents,
  sleep,
  startUpstream,
  upstreamDeposit,
  waitFor,
  type Envelope,
  type Upstream,
} from './support';

const redisUrl = process.env.KASIR_TEST_REDIS_URL;

describe(
  'merchant backend: copies on one Redis',
  { skip: !redisUrl && 'KASIR_TEST_REDIS_URL is not set (run through test/support/with-redis.sh)' },
  () => {
    let up: Upstream;
    let secret: string;
    before(async () => {
      up = await startUpstream();
      secret = up.provider.credentials.webhookSecret;
    });
    after(async () => {
      await up.close();
    });

    /** `count` copies of one shop: the same Redis, a key prefix of their own (one shop per test). */
    const copies = (count: number, options: Partial<KasirApiOptions> = {}) => {
      const redisPrefix = `kasir-test-${randomUUID()}:`;
      return Array.from({ length: count }, () => merchantApp(up, { redisUrl, redisPrefix, ...options }));
    };
    const deliver = (app: ReturnType<typeof merchantApp>, body: string, webhookId: string) =>
      call(app, 'POST', '/api/webhooks/kasir', body, {
        'Content-Type': 'application/json',
        ...webhookHeaders(secret, webhookId, body),
      });

    describe('a completion delivered to two copies', () => {
      const runs: CompletedDeposit[] = [];
      let a: ReturnType<typeof merchantApp>;
      let b: ReturnType<typeof merchantApp>;
      let id: string;
      const body = () => depositEvent(upstreamDeposit(id, 'completed'));
      before(async () => {
        [a, b] = copies(2, {
          onDepositCompleted: async (e) => {
            runs.push(e);
            await sleep(30);
          },
        });
        // Created on copy A from the shop's order: copy B's hook must still get the orderId.
        id = (await a.api.createCheckout({ amount: '150000', orderId: 'order-77' })).id;
      });
      after(async () => {
        await a.api.close();
        await b.api.close();
      });

      it('runs the hook once when the same webhook reaches both copies at once, and acknowledges both', async () => {
        const results = await Promise.all([deliver(a, body(), `msg_${id}`), deliver(b, body(), `msg_${id}`)]);
        assert.deepEqual(
          results.map((r) => r.status),
          [200, 200],
        );
        assert.equal(runs.length, 1);
      });

      it('gives the hook the order of the checkout another copy created', () => {
        assert.equal(runs[0]!.orderId, 'order-77');
        assert.equal(runs[0]!.checkoutId, id);
      });

      it('acknowledges a retry of the same webhook on either copy without running the hook', async () => {
        const retry = await deliver(b, body(), `msg_${id}`);
        assert.equal(retry.status, 200);
        assert.match(retry.json.message, /Duplicate/);
        assert.equal(runs.length, 1);
      });

      it('does not run the hook again for a new webhook id of the same completed deposit (a dashboard "Resend")', async () => {
        const resend = await deliver(a, body(), `msg_${id}_resend`);
        assert.equal(resend.status, 200);
        assert.equal(runs.length, 1);
      });

      it('serves the completed deposit on the copy that did not receive the webhook, without reading upstream', async () => {
        const before = up.calls.filter((c) => c === `GET /v1/deposit/${id}`).length;
        const read = await call<Envelope<WidgetDeposit>>(b, 'GET', `/api/checkouts/${id}/deposit`);
        assert.equal(read.json.data.status, 'completed');
        assert.equal(up.calls.filter((c) => c === `GET /v1/deposit/${id}`).length, before);
      });
    });

    describe('a hook that throws', () => {
      let attempts = 0;
      let completed = 0;
      let a: ReturnType<typeof merchantApp>;
      let b: ReturnType<typeof merchantApp>;
      const id = randomUUID();
      const body = depositEvent(upstreamDeposit(id, 'completed'));
      before(() => {
        [a, b] = copies(2, {
          onDepositCompleted: () => {
            attempts++;
            if (attempts === 1) throw new Error('the order database is down');
            completed++;
          },
        });
      });
      after(async () => {
        await a.api.close();
        await b.api.close();
      });

      it('answers 503, so the sender retries', async () => {
        const first = await deliver(a, body, `msg_${id}`);
        assert.equal(first.status, 503);
        assert.equal(first.json.statusCode, 503);
        assert.equal(attempts, 1);
      });

      it('runs again on the retry, here on the other copy, and then once only', async () => {
        assert.equal((await deliver(b, body, `msg_${id}`)).status, 200);
        assert.equal((await deliver(a, body, `msg_${id}`)).status, 200);
        assert.equal((await deliver(a, body, `msg_${id}_2`)).status, 200);
        assert.equal(attempts, 2);
        assert.equal(completed, 1);
      });
    });

    it('reads a deposit from the payment service at most once per refresh interval across all copies', async () => {
      const refreshMs = 400;
      const shop = copies(3, { statusRefreshMs: refreshMs });
      try {
        const checkout = (
          await call<Envelope<Checkout>>(shop[0]!, 'POST', '/api/checkouts', { amount: '91000', currency: 'IDR' })
        ).json.data;
        assert.equal(
          (await call(shop[0]!, 'POST', `/api/checkouts/${checkout.id}/deposit`, { method: 'QRIS' })).status,
          201,
        );
        const reads = () => up.calls.filter((c) => c === `GET /v1/deposit/${checkout.id}`).length;
        const before = reads();
        const started = Date.now();
        let served = 0;
        while (Date.now() - started < 2000) {
          const answers = await Promise.all(
            shop.flatMap((app) => [1, 2].map(() => call(app, 'GET', `/api/checkouts/${checkout.id}/deposit`))),
          );
          for (const answer of answers) assert.equal(answer.status, 200);
          served += answers.length;
          await sleep(20);
        }
        const elapsed = Date.now() - started;
        const upstream = reads() - before;
        // One copy alone may read once per interval (plus the first); three unshared copies would read three times that.
        const bound = Math.ceil(elapsed / refreshMs) + 1;
        assert.ok(
          upstream <= bound,
          `${upstream} upstream reads for ${served} reads in ${elapsed} ms (bound ${bound})`,
        );
        assert.ok(upstream >= 2, `the status is refreshed (${upstream} reads)`);
      } finally {
        await Promise.all(shop.map((app) => app.api.close()));
      }
    });

    it('limits checkout creation per client address across copies', async () => {
      const [a, b] = copies(2, { checkoutRateLimit: 3 });
      try {
        const create = (app: ReturnType<typeof merchantApp>) =>
          call(app, 'POST', '/api/checkouts', { amount: '10000', currency: 'IDR' });
        const statuses = [(await create(a!)).status, (await create(b!)).status, (await create(a!)).status];
        assert.deepEqual(statuses, [201, 201, 201]);
        const over = await create(b!);
        assert.equal(over.status, 429);
        assert.equal(over.json.statusCode, 429);
        assert.ok(Number(over.headers.get('retry-after')) > 0);
      } finally {
        await a!.api.close();
        await b!.api.close();
      }
    });

    describe('server-sent events', () => {
      let a: RunningMerchant;
      let b: RunningMerchant;
      before(async () => {
        const redisPrefix = `kasir-test-${randomUUID()}:`;
        // A long refresh and heartbeat: a change can only reach copy B through Redis.
        const options = {
          ...up.config({ statusRefreshMs: 60_000 }),
          redisUrl,
          redisPrefix,
          heartbeatMs: 60_000,
          port: 0,
        };
        [a, b] = await Promise.all([startMerchant(options), startMerchant(options)]);
      });
      after(async () => {
        await a.stop();
        await b.stop();
      });

      it('delivers a change made through copy A to a stream held by copy B', async () => {
        const created = await fetch(`${a.url}/api/checkouts`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ amount: '52000', currency: 'IDR' }),
        });
        const { data: checkout } = (await created.json()) as Envelope<Checkout>;
        await fetch(`${a.url}/api/checkouts/${checkout.id}/deposit`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ method: 'BCA_VA' }),
        });
        const stream = openEvents(`${b.url}/api/checkouts/${checkout.id}/events`);
        await waitFor(() => stream.events.length === 1);
        assert.equal((JSON.parse(stream.events[0]!.data!) as WidgetDeposit).status, 'pending');
        // Paid through copy A (the sandbox route writes upstream and updates A's cache): B's stream ends completed.
        assert.equal(
          (
            await fetch(`${a.url}/api/sandbox/checkouts/${checkout.id}/pay`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
            })
          ).status,
          200,
        );
        await stream.done;
        assert.equal((JSON.parse(stream.events.at(-1)!.data!) as WidgetDeposit).status, 'completed');
      });

      it('delivers a method switch made through copy B to a stream held by copy A', async () => {
        const created = await fetch(`${b.url}/api/checkouts`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ amount: '53000', currency: 'IDR' }),
        });
        const { data: checkout } = (await created.json()) as Envelope<Checkout>;
        await fetch(`${b.url}/api/checkouts/${checkout.id}/deposit`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ method: 'QRIS' }),
        });
        const stream = openEvents(`${a.url}/api/checkouts/${checkout.id}/events`);
        await waitFor(() => stream.events.length === 1);
        const switched = await fetch(`${b.url}/api/checkouts/${checkout.id}/deposit`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ method: 'BCA_VA' }),
        });
        assert.equal(switched.status, 200);
        await waitFor(() => stream.events.length === 2);
        assert.equal((JSON.parse(stream.events[1]!.data!) as WidgetDeposit).method.code, 'BCA_VA');
        stream.close();
      });

      it('answers /readyz 200 while Redis answers, and /healthz', async () => {
        for (const path of ['/healthz', '/readyz', '/api/healthz', '/api/readyz']) {
          const res = await fetch(`${a.url}${path}`);
          assert.equal(res.status, 200, path);
          assert.equal(((await res.json()) as { statusCode: number }).statusCode, 200);
        }
      });
    });

    it('answers /readyz 503 in the envelope when Redis cannot be reached', async () => {
      const [app] = [merchantApp(up, { redisUrl: 'redis://127.0.0.1:1' })];
      try {
        const res = await call(app!, 'GET', '/api/readyz');
        assert.equal(res.status, 503);
        assert.equal(res.json.statusCode, 503);
        assert.equal(res.json.error, 'Service Unavailable');
        assert.equal((await call(app!, 'GET', '/api/healthz')).status, 200);
      } finally {
        await app!.api.close();
      }
    });
  },
);
