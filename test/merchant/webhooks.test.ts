import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { webhookHeaders } from '../../server/common/standard-webhooks';
import type { Deposit } from '../../server/merchant/client/types';
import type { CompletedDeposit } from '../../server/merchant/service';
import { call, merchantApp, startUpstream, type Upstream } from './support';

function deposit(id: string, status: Deposit['status'], updatedAt = new Date().toISOString()): Deposit {
  return {
    id: 'row1', depositId: id, depositType: 'fiat', userId: 'user-secret-id', inputCurrency: 'IDR', inputAmount: 150000,
    outputCurrency: 'IDR', exchangeRate: 1, outputAmount: 146000, fee: { amount: 4000, percentage: 0, currency: 'IDR' },
    paymentFiat: { bankName: 'Bank Central Asia', bankCode: 'BCA_VA', accountName: 'Kasir Sandbox Store', accountNumber: '3935812345678901' },
    paymentCrypto: {}, status, activityHistory: [], reference: '', note: 'internal note', bankNote: '',
    expiredAt: new Date(Date.now() + 86_400_000).toISOString(), createdAt: updatedAt, updatedAt,
  };
}

function event(d: Deposit) {
  return JSON.stringify({ type: `deposit.${d.status}`, orderId: d.depositId, depositId: d.depositId, reference: '', status: d.status, data: d, timestamp: new Date().toISOString() });
}

describe('merchant backend: webhook receiver', () => {
  let up: Upstream;
  let secret: string;
  before(async () => {
    up = await startUpstream();
    secret = up.provider.credentials.webhookSecret;
  });
  after(async () => { await up.close(); });

  const deliver = (app: ReturnType<typeof merchantApp>, body: string, headers: Record<string, string>) =>
    call(app, 'POST', '/api/webhooks/kasir', body, { 'Content-Type': 'application/json', ...headers });

  it('accepts a signed delivery, updates the cache and calls onDepositCompleted once', async () => {
    const completed: CompletedDeposit[] = [];
    const app = merchantApp(up, { onDepositCompleted: (e) => { completed.push(e); } });
    // A checkout this backend created (only checkouts are readable through /api).
    const id = (await call(app, 'POST', '/api/checkouts', { amount: '150000', currency: 'IDR' })).json.data.id as string;
    const body = event(deposit(id, 'completed'));
    const headers = webhookHeaders(secret, `msg_${id}`, body) as unknown as Record<string, string>;
    const first = await deliver(app, body, headers);
    assert.equal(first.status, 200);
    assert.equal(completed.length, 1);
    assert.equal(completed[0].checkoutId, id);
    assert.equal(completed[0].webhookId, `msg_${id}`);

    // The status read is now served from the cache the webhook filled: no call to the payment service.
    const before = up.calls.length;
    const read = await call(app, 'GET', `/api/checkouts/${id}/deposit`);
    assert.equal(read.status, 200);
    assert.equal(read.json.data.status, 'completed');
    assert.equal(read.json.data.accountNumber, '3935812345678901');
    assert.equal(up.calls.length, before);
    // Only what a shopper may see.
    assert.doesNotMatch(read.text, /user-secret-id|internal note|userId|activityHistory/);
  });

  it('acknowledges a duplicate delivery (same webhook-id) without processing it again', async () => {
    let calls = 0;
    const app = merchantApp(up, { onDepositCompleted: () => { calls++; } });
    const id = randomUUID();
    const body = event(deposit(id, 'completed'));
    const headers = webhookHeaders(secret, `msg_${id}`, body) as unknown as Record<string, string>;
    assert.equal((await deliver(app, body, headers)).status, 200);
    // The sender's retry: same id, fresh timestamp and signature.
    const retry = await deliver(app, body, webhookHeaders(secret, `msg_${id}`, body, new Date(Date.now() + 5000)) as unknown as Record<string, string>);
    assert.equal(retry.status, 200);
    assert.match(retry.json.message, /Duplicate/);
    // A replay of the exact same request.
    assert.equal((await deliver(app, body, headers)).status, 200);
    assert.equal(calls, 1);
  });

  it('calls onDepositCompleted once per deposit even across different webhook ids', async () => {
    let calls = 0;
    const app = merchantApp(up, { onDepositCompleted: async () => { calls++; await new Promise((r) => setTimeout(r, 20)); } });
    const id = randomUUID();
    const body = event(deposit(id, 'completed'));
    const results = await Promise.all([1, 2, 3].map((n) => deliver(app, body, webhookHeaders(secret, `msg_${id}_${n}`, body) as unknown as Record<string, string>)));
    assert.deepEqual(results.map((r) => r.status), [200, 200, 200]);
    assert.equal(calls, 1);
  });

  it('verifies over the raw bytes (non-ASCII payloads)', async () => {
    const app = merchantApp(up);
    const id = randomUUID();
    const d = deposit(id, 'pending');
    d.paymentFiat!.accountName = 'Toko Kopi Café 日本';
    const body = event(d);
    const r = await deliver(app, body, webhookHeaders(secret, `msg_${id}`, body) as unknown as Record<string, string>);
    assert.equal(r.status, 200);
    assert.equal(app.service.deposits.peek(id)?.deposit?.accountName, 'Toko Kopi Café 日本');
  });

  it('rejects a tampered body, a wrong secret and missing headers', async () => {
    const app = merchantApp(up, { onDepositCompleted: () => assert.fail('must not be called') });
    const id = randomUUID();
    const body = event(deposit(id, 'completed'));
    const headers = webhookHeaders(secret, `msg_${id}`, body) as unknown as Record<string, string>;
    const tampered = await deliver(app, body.replace('150000', '1'), headers);
    assert.equal(tampered.status, 401);
    assert.deepEqual(tampered.json, { statusCode: 401, error: 'Unauthorized', message: 'Bad webhook signature' });

    const wrong = await deliver(app, body, webhookHeaders('whsec_' + Buffer.from('another secret entirely').toString('base64'), `msg_${id}`, body) as unknown as Record<string, string>);
    assert.equal(wrong.status, 401);

    const missing = await deliver(app, body, { 'webhook-id': `msg_${id}` });
    assert.equal(missing.status, 401);
    // None of them touched the cache.
    assert.equal(app.service.deposits.peek(id), undefined);
  });

  it('rejects stale deliveries (a captured old request replayed) and ones from the future', async () => {
    let calls = 0;
    const app = merchantApp(up, { onDepositCompleted: () => { calls++; } });
    const id = randomUUID();
    const body = event(deposit(id, 'completed'));
    const stale = await deliver(app, body, webhookHeaders(secret, `msg_${id}`, body, new Date(Date.now() - 6 * 60_000)) as unknown as Record<string, string>);
    assert.equal(stale.status, 401);
    assert.match(stale.json.message, /Stale/);
    const future = await deliver(app, body, webhookHeaders(secret, `msg_${id}`, body, new Date(Date.now() + 6 * 60_000)) as unknown as Record<string, string>);
    assert.equal(future.status, 401);
    assert.equal(calls, 0);
    // Within tolerance the same id is still accepted once: the stale attempts did not burn it.
    const fresh = await deliver(app, body, webhookHeaders(secret, `msg_${id}`, body) as unknown as Record<string, string>);
    assert.equal(fresh.status, 200);
    assert.equal(calls, 1);
  });

  it('answers 503 when the hook fails, and processes the retry of the same message', async () => {
    let attempts = 0;
    const app = merchantApp(up, { onDepositCompleted: () => { attempts++; if (attempts === 1) throw new Error('database down'); } });
    const id = randomUUID();
    const body = event(deposit(id, 'completed'));
    const failed = await deliver(app, body, webhookHeaders(secret, `msg_${id}`, body) as unknown as Record<string, string>);
    assert.equal(failed.status, 503);
    assert.equal(failed.json.statusCode, 503);
    assert.doesNotMatch(failed.text, /database down/);
    const retried = await deliver(app, body, webhookHeaders(secret, `msg_${id}`, body) as unknown as Record<string, string>);
    assert.equal(retried.status, 200);
    assert.equal(attempts, 2);
  });

  it('answers 400 to a signed body that is not a JSON object (arrays, strings, numbers, null), like malformed JSON', async () => {
    const app = merchantApp(up);
    for (const body of ['[]', '[{"depositId":"x"}]', '"deposit"', '42', 'null', 'true', '{', '']) {
      const headers = webhookHeaders(secret, `msg_${randomUUID()}`, body) as unknown as Record<string, string>;
      const r = await deliver(app, body, headers);
      assert.equal(r.status, 400, `${JSON.stringify(body)} -> ${r.status} ${r.text}`);
      assert.deepEqual(r.json, { statusCode: 400, error: 'Bad Request', message: 'Webhook body is not a JSON object' });
    }
  });

  it('never lets an older or non-terminal update overwrite a terminal status, and wakes listeners on change', async () => {
    const app = merchantApp(up);
    const id = randomUUID();
    const seen: string[] = [];
    const unsubscribe = app.service.deposits.subscribe(id, (entry) => seen.push(entry.deposit!.status));
    const t0 = new Date(Date.now() - 10_000).toISOString();
    const pending = event(deposit(id, 'pending', t0));
    const done = event(deposit(id, 'completed'));
    assert.equal((await deliver(app, pending, webhookHeaders(secret, 'msg_a', pending) as unknown as Record<string, string>)).status, 200);
    assert.equal((await deliver(app, done, webhookHeaders(secret, 'msg_b', done) as unknown as Record<string, string>)).status, 200);
    // A late pending delivery (e.g. a retry) arrives after the completion.
    const late = event(deposit(id, 'pending', t0));
    assert.equal((await deliver(app, late, webhookHeaders(secret, 'msg_c', late) as unknown as Record<string, string>)).status, 200);
    unsubscribe();
    assert.deepEqual(seen, ['pending', 'completed']);
    assert.equal(app.service.deposits.peek(id)?.deposit?.status, 'completed');
  });
});
