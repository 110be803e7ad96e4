import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { webhookHeaders } from '../../server/common/standard-webhooks';
import type { Checkout, Deposit as WidgetDeposit } from '@kasir/checkout';
import type { CompletedDeposit } from '../../server/merchant/hooks';
import { createKasirApi, verifyWebhook, WebhookVerificationError } from '../../server/merchant/index';
import { newWebhookSecret } from '../../server/provider/accounts/merchants';
import {
  call,
  depositEvent,
  merchantApp,
  startUpstream,
  upstreamDeposit,
  type Envelope,
  type Upstream,
} from './support';

describe('merchant backend: webhook receiver', () => {
  let up: Upstream;
  let secret: string;
  before(async () => {
    up = await startUpstream();
    secret = up.provider.credentials.webhookSecret;
  });
  after(async () => {
    await up.close();
  });

  const deliver = (app: ReturnType<typeof merchantApp>, body: string, headers: Record<string, string>) =>
    call(app, 'POST', '/api/webhooks/kasir', body, { 'Content-Type': 'application/json', ...headers });

  describe('a signed delivery of a completion', () => {
    const completed: CompletedDeposit[] = [];
    let app: ReturnType<typeof merchantApp>;
    let id: string;
    let first: Awaited<ReturnType<typeof deliver>>;
    before(async () => {
      app = merchantApp(up, {
        onDepositCompleted: (e) => {
          completed.push(e);
        },
      });
      // A checkout this backend created (only checkouts are readable through /api).
      id = (await call<Envelope<Checkout>>(app, 'POST', '/api/checkouts', { amount: '150000', currency: 'IDR' })).json
        .data.id;
      const body = depositEvent(upstreamDeposit(id, 'completed'));
      first = await deliver(app, body, webhookHeaders(secret, `msg_${id}`, body));
    });

    it('is accepted and calls onDepositCompleted once, with the checkout and the webhook id', () => {
      assert.equal(first.status, 200);
      assert.equal(completed.length, 1);
      assert.equal(completed[0].checkoutId, id);
      assert.equal(completed[0].webhookId, `msg_${id}`);
    });

    it('fills the cache: the status read calls the payment service no more, and shows only what a shopper may see', async () => {
      const before = up.calls.length;
      const read = await call<Envelope<WidgetDeposit>>(app, 'GET', `/api/checkouts/${id}/deposit`);
      assert.equal(read.status, 200);
      assert.equal(read.json.data.status, 'completed');
      assert.equal(read.json.data.accountNumber, '3935812345678901');
      assert.equal(up.calls.length, before);
      // Only what a shopper may see.
      assert.doesNotMatch(read.text, /user-secret-id|internal note|userId|activityHistory/);
    });
  });

  it('acknowledges a duplicate delivery (same webhook-id) without processing it again', async () => {
    let calls = 0;
    const app = merchantApp(up, {
      onDepositCompleted: () => {
        calls++;
      },
    });
    const id = randomUUID();
    const body = depositEvent(upstreamDeposit(id, 'completed'));
    const headers = webhookHeaders(secret, `msg_${id}`, body);
    assert.equal((await deliver(app, body, headers)).status, 200);
    // The sender's retry: same id, fresh timestamp and signature.
    const retry = await deliver(app, body, webhookHeaders(secret, `msg_${id}`, body, new Date(Date.now() + 5000)));
    assert.equal(retry.status, 200);
    assert.match(retry.json.message, /Duplicate/);
    // A replay of the exact same request.
    assert.equal((await deliver(app, body, headers)).status, 200);
    assert.equal(calls, 1);
  });

  it('calls onDepositCompleted once per deposit even across different webhook ids', async () => {
    let calls = 0;
    const app = merchantApp(up, {
      onDepositCompleted: async () => {
        calls++;
        await new Promise((r) => setTimeout(r, 20));
      },
    });
    const id = randomUUID();
    const body = depositEvent(upstreamDeposit(id, 'completed'));
    const results = await Promise.all(
      [1, 2, 3].map((n) => deliver(app, body, webhookHeaders(secret, `msg_${id}_${n}`, body))),
    );
    assert.deepEqual(
      results.map((r) => r.status),
      [200, 200, 200],
    );
    assert.equal(calls, 1);
  });

  it('verifies over the raw bytes (non-ASCII payloads)', async () => {
    const app = merchantApp(up);
    const id = randomUUID();
    const d = upstreamDeposit(id, 'pending');
    d.paymentFiat!.accountName = 'Toko Kopi Café 日本';
    const body = depositEvent(d);
    const r = await deliver(app, body, webhookHeaders(secret, `msg_${id}`, body));
    assert.equal(r.status, 200);
    assert.equal(app.service.deposits.peek(id)?.deposit?.accountName, 'Toko Kopi Café 日本');
  });

  describe('refuses a delivery it cannot trust, with a 401 that touches nothing', () => {
    let refusing: ReturnType<typeof merchantApp>;
    const id = randomUUID();
    const body = depositEvent(upstreamDeposit(id, 'completed'));
    before(() => {
      refusing = merchantApp(up, { onDepositCompleted: () => assert.fail('must not be called') });
    });

    it('a tampered body, as a bad signature in the envelope', async () => {
      const tampered = await deliver(refusing, body.replace('150000', '1'), webhookHeaders(secret, `msg_${id}`, body));
      assert.equal(tampered.status, 401);
      assert.deepEqual(tampered.json, { statusCode: 401, error: 'Unauthorized', message: 'Bad webhook signature' });
    });

    it('a body signed with another secret', async () => {
      const wrong = await deliver(
        refusing,
        body,
        webhookHeaders('whsec_' + Buffer.from('another secret entirely').toString('base64'), `msg_${id}`, body),
      );
      assert.equal(wrong.status, 401);
    });

    it('a delivery missing its signature headers', async () => {
      const missing = await deliver(refusing, body, { 'webhook-id': `msg_${id}` });
      assert.equal(missing.status, 401);
    });

    it('and none of them touched the cache', () => {
      assert.equal(refusing.service.deposits.peek(id), undefined);
    });
  });

  describe('refuses deliveries outside the time window (a captured old request replayed, or one from the future)', () => {
    let calls = 0;
    let app: ReturnType<typeof merchantApp>;
    const id = randomUUID();
    const body = depositEvent(upstreamDeposit(id, 'completed'));
    before(() => {
      app = merchantApp(up, {
        onDepositCompleted: () => {
          calls++;
        },
      });
    });

    it('refuses a stale one as stale', async () => {
      const stale = await deliver(
        app,
        body,
        webhookHeaders(secret, `msg_${id}`, body, new Date(Date.now() - 6 * 60_000)),
      );
      assert.equal(stale.status, 401);
      assert.match(stale.json.message, /Stale/);
    });

    it('refuses one from the future, calling no hook for either', async () => {
      const future = await deliver(
        app,
        body,
        webhookHeaders(secret, `msg_${id}`, body, new Date(Date.now() + 6 * 60_000)),
      );
      assert.equal(future.status, 401);
      assert.equal(calls, 0);
    });

    it('still accepts the same id once within the window: the refused attempts did not burn it', async () => {
      const fresh = await deliver(app, body, webhookHeaders(secret, `msg_${id}`, body));
      assert.equal(fresh.status, 200);
      assert.equal(calls, 1);
    });
  });

  describe('when the hook fails', () => {
    let attempts = 0;
    let app: ReturnType<typeof merchantApp>;
    const id = randomUUID();
    const body = depositEvent(upstreamDeposit(id, 'completed'));
    before(() => {
      app = merchantApp(up, {
        onDepositCompleted: () => {
          attempts++;
          if (attempts === 1) throw new Error('database down');
        },
      });
    });

    it('answers 503 in the envelope without its error', async () => {
      const failed = await deliver(app, body, webhookHeaders(secret, `msg_${id}`, body));
      assert.equal(failed.status, 503);
      assert.equal(failed.json.statusCode, 503);
      assert.doesNotMatch(failed.text, /database down/);
    });

    it('processes the retry of the same message', async () => {
      const retried = await deliver(app, body, webhookHeaders(secret, `msg_${id}`, body));
      assert.equal(retried.status, 200);
      assert.equal(attempts, 2);
    });
  });

  describe('answers 400 to a signed body that is not a JSON object, like malformed JSON', () => {
    let app: ReturnType<typeof merchantApp>;
    before(() => {
      app = merchantApp(up);
    });
    for (const body of ['[]', '[{"depositId":"x"}]', '"deposit"', '42', 'null', 'true', '{', '']) {
      it(`such as ${JSON.stringify(body)}`, async () => {
        const headers = webhookHeaders(secret, `msg_${randomUUID()}`, body);
        const r = await deliver(app, body, headers);
        assert.equal(r.status, 400, `${JSON.stringify(body)} -> ${r.status} ${r.text}`);
        assert.deepEqual(r.json, {
          statusCode: 400,
          error: 'Bad Request',
          message: 'Webhook body is not a JSON object',
        });
      });
    }
  });

  describe('a late pending delivery (e.g. a retry) after the completion', () => {
    let app: ReturnType<typeof merchantApp>;
    const id = randomUUID();
    const seen: string[] = [];
    const answers: number[] = [];
    before(async () => {
      app = merchantApp(up);
      const unsubscribe = app.service.deposits.subscribe(id, (entry) => seen.push(entry.deposit!.status));
      const t0 = new Date(Date.now() - 10_000).toISOString();
      const pending = depositEvent(upstreamDeposit(id, 'pending', t0));
      const done = depositEvent(upstreamDeposit(id, 'completed'));
      const late = depositEvent(upstreamDeposit(id, 'pending', t0));
      answers.push((await deliver(app, pending, webhookHeaders(secret, 'msg_a', pending))).status);
      answers.push((await deliver(app, done, webhookHeaders(secret, 'msg_b', done))).status);
      answers.push((await deliver(app, late, webhookHeaders(secret, 'msg_c', late))).status);
      unsubscribe();
    });

    it('is acknowledged, as each delivery before it', () => {
      assert.equal(answers[0], 200);
      assert.equal(answers[1], 200);
      assert.equal(answers[2], 200);
    });

    it('never overwrites the terminal status', () => {
      assert.equal(app.service.deposits.peek(id)?.deposit?.status, 'completed');
    });

    it('wakes listeners on each change, and only on a change', () => {
      assert.deepEqual(seen, ['pending', 'completed']);
    });
  });
});

describe('merchant backend: one format of the webhook secret', () => {
  const options = {
    baseUrl: 'http://127.0.0.1:9',
    clientId: 'id',
    clientSecret: 'secret',
    accessToken: 'token',
    dataDir: false as const,
  };
  // Padding inside the base64 is no key the verifier reads: the settings refuse it too, rather than every delivery.
  for (const secret of ['whsec_ab=cd', 'whsec_=abc', 'whsec_']) {
    it(`refuses ${secret} in the settings, as the verifier does`, () => {
      const body = '{}';
      assert.throws(
        () => verifyWebhook(secret, webhookHeaders(newWebhookSecret(), 'msg_1', body), body),
        (err: WebhookVerificationError) => err.reason === 'bad_secret',
      );
      assert.throws(
        () => createKasirApi({ ...options, webhookSecret: secret }),
        /webhookSecret must look like whsec_<base64>/,
      );
    });
  }

  it('accepts a secret the sandbox makes', () => {
    assert.doesNotThrow(() => createKasirApi({ ...options, webhookSecret: newWebhookSecret() }));
  });
});
