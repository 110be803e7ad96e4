import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import {
  generateWebhookSecret, MemoryReplayGuard, signWebhook, verifyWebhook, webhookHeaders, WebhookVerificationError,
} from '../../server/common/standard-webhooks';
import { openDatabase } from '../../server/provider/db/database';
import { RETRY_SCHEDULE_MS, startWebhookDispatcher, type DispatcherOptions } from '../../server/provider/webhooks/dispatcher';
import { enqueueDepositWebhook } from '../../server/provider/webhooks/outbox';
import { createTestProvider, testDatabaseEnv, type TestProvider } from '../support/provider';

interface Received { headers: IncomingHttpHeaders; body: string }

/** A real HTTP receiver on port 0 that answers with the next scripted status (the last one repeats). */
async function startReceiver(script: Array<number | 'hang'> = [200]) {
  const received: Received[] = [];
  let i = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const step = script[Math.min(i++, script.length - 1)];
      if (step === 'hang') return;
      if (step >= 300 && step < 400) res.setHeader('location', 'http://example.invalid/');
      res.writeHead(step, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    received,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

async function waitFor(check: () => Promise<boolean> | boolean, timeoutMs = 5000, what = 'condition') {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.fail(`timed out waiting for ${what}`);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const fast: DispatcherOptions = { pollIntervalMs: 10, scheduleMs: [60, 60, 60], timeoutMs: 2000 };

describe('webhook dispatcher', () => {
  let p: TestProvider;
  let merchantId: string;
  const stops: Array<() => Promise<void>> = [];

  before(async () => {
    p = await createTestProvider();
    merchantId = (await p.deps.db.selectFrom('merchants').select('id').where('client_id', '=', p.creds.clientId).executeTakeFirstOrThrow()).id;
  });
  beforeEach(async () => {
    // Each test sees only its own deliveries.
    await p.deps.db.updateTable('webhook_deliveries').set({ status: 'failed' }).where('status', '=', 'pending').execute();
  });
  after(async () => {
    for (const stop of stops) await stop();
    await p.close();
  });

  const setUrl = (url: string | null) => p.deps.db.updateTable('merchants').set({ webhook_url: url }).where('id', '=', merchantId).execute();
  const enqueue = (depositId = crypto.randomUUID()) => p.deps.db.transaction().execute((trx) => enqueueDepositWebhook(trx, {
    type: 'deposit.completed', merchantId, depositId, reference: 'order-42', status: 'completed', data: { depositId, status: 'completed' },
  }, p.deps.now()));
  const delivery = (id: string) => p.deps.db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const attempts = (id: string) => p.deps.db.selectFrom('webhook_attempts').selectAll().where('delivery_id', '=', id).orderBy('id').execute();
  const start = (options: DispatcherOptions = fast, deps = p.deps) => {
    const stop = startWebhookDispatcher(deps, options);
    stops.push(stop);
    return stop;
  };

  it('uses the retry schedule of DESIGN.md by default', () => {
    assert.deepEqual(RETRY_SCHEDULE_MS, [5e3, 3e5, 18e5, 72e5, 18e6, 36e6, 504e5, 72e6, 864e5]);
  });

  it('POSTs the payload signed per Standard Webhooks v1', async () => {
    const receiver = await startReceiver([204]);
    await setUrl(receiver.url);
    const depositId = crypto.randomUUID();
    const id = await enqueue(depositId);
    const stop = start();
    try {
      await waitFor(async () => (await delivery(id)).status === 'succeeded', 5000, 'delivery');
    } finally {
      await stop();
      await receiver.close();
    }
    assert.equal(receiver.received.length, 1);
    const { headers, body } = receiver.received[0];
    assert.equal(headers['webhook-id'], id);
    assert.match(String(headers['webhook-timestamp']), /^\d{10}$/);
    assert.match(String(headers['webhook-signature']), /^v1,[A-Za-z0-9+/]+=*$/);
    assert.equal(headers['content-type'], 'application/json');
    const payload = JSON.parse(body);
    assert.equal(payload.type, 'deposit.completed');
    assert.equal(payload.orderId, depositId);
    assert.equal(payload.depositId, depositId);
    assert.equal(payload.reference, 'order-42');
    assert.equal(payload.status, 'completed');
    assert.deepEqual(payload.data, { depositId, status: 'completed' });
    // Verifies with the shared helper and with the reference implementation (the standardwebhooks package).
    const verified = await verifyWebhook(p.creds.webhookSecret, body, headers as Record<string, string>);
    assert.equal(verified.id, id);
    assert.deepEqual(new Webhook(p.creds.webhookSecret).verify(body, headers as Record<string, string>), payload);
    await assert.rejects(verifyWebhook(generateWebhookSecret(), body, headers as Record<string, string>));
    const d = await delivery(id);
    assert.equal(d.attempt_count, 1);
    assert.ok(d.succeeded_at);
    const a = await attempts(id);
    assert.equal(a.length, 1);
    assert.equal(a[0].response_status, 204);
    assert.equal(a[0].error, null);
  });

  it('retries a receiver that fails twice, then succeeds once, with the same webhook-id each time', async () => {
    const receiver = await startReceiver([500, 503, 200]);
    await setUrl(receiver.url);
    const id = await enqueue();
    const stop = start();
    try {
      await waitFor(async () => (await delivery(id)).status === 'succeeded', 5000, 'delivery');
      await sleep(300); // several more polls and schedule steps: nothing may be sent again
    } finally {
      await stop();
      await receiver.close();
    }
    assert.equal(receiver.received.length, 3);
    assert.deepEqual(receiver.received.map((r) => r.headers['webhook-id']), [id, id, id]);
    const a = await attempts(id);
    assert.deepEqual(a.map((x) => x.response_status), [500, 503, 200]);
    assert.equal(a.filter((x) => x.error === null).length, 1, 'exactly one success recorded');
    assert.equal(a[0].error, 'Receiver answered HTTP 500');
    const d = await delivery(id);
    assert.equal(d.status, 'succeeded');
    assert.equal(d.attempt_count, 3);
    // Every attempt is signed afresh and verifies.
    for (const r of receiver.received) await verifyWebhook(p.creds.webhookSecret, r.body, r.headers as Record<string, string>);
  });

  it('resumes after a restart in the middle of the retry schedule and delivers once', async () => {
    const receiver = await startReceiver([500, 200]);
    await setUrl(receiver.url);
    const id = await enqueue();
    const options: DispatcherOptions = { pollIntervalMs: 10, scheduleMs: [400, 400], timeoutMs: 2000 };
    const first = start(options);
    await waitFor(async () => (await delivery(id)).attempt_count === 1, 5000, 'first attempt');
    await first(); // the process stops with the retry pending

    const pending = await delivery(id);
    assert.equal(pending.status, 'pending');
    assert.ok(pending.next_attempt_at > Date.now(), 'the retry is scheduled in the database');
    assert.equal(receiver.received.length, 1);

    // A new process: its own database connection to the same file, a new dispatcher.
    const db = await openDatabase({ dataDir: p.deps.config.dataDir, databaseUrl: p.deps.config.databaseUrl });
    const second = startWebhookDispatcher({ ...p.deps, db }, options);
    try {
      await waitFor(async () => (await delivery(id)).status === 'succeeded', 5000, 'delivery after restart');
      await sleep(200);
    } finally {
      await second();
      await db.destroy();
      await receiver.close();
    }
    assert.equal(receiver.received.length, 2);
    assert.deepEqual(receiver.received.map((r) => r.headers['webhook-id']), [id, id]);
    const a = await attempts(id);
    assert.deepEqual(a.map((x) => x.response_status), [500, 200]);
  });

  it('never double-sends with two dispatchers on one database', async () => {
    const receiver = await startReceiver([200]);
    await setUrl(receiver.url);
    const ids = await Promise.all(Array.from({ length: 30 }, () => enqueue()));
    const db = await openDatabase({ dataDir: p.deps.config.dataDir, databaseUrl: p.deps.config.databaseUrl });
    const a = start({ ...fast, batchSize: 5 });
    const b = start({ ...fast, batchSize: 5 }, { ...p.deps, db });
    try {
      await waitFor(async () => {
        const done = await p.deps.db.selectFrom('webhook_deliveries').select('id').where('id', 'in', ids).where('status', '=', 'succeeded').execute();
        return done.length === ids.length;
      }, 10_000, 'all deliveries');
      await sleep(100);
    } finally {
      await a();
      await b();
      await db.destroy();
      await receiver.close();
    }
    const counts = new Map<string, number>();
    for (const r of receiver.received) counts.set(String(r.headers['webhook-id']), (counts.get(String(r.headers['webhook-id'])) ?? 0) + 1);
    assert.equal(receiver.received.length, ids.length);
    for (const id of ids) assert.equal(counts.get(id), 1, id);
  });

  it('gives up after the last retry, recording every attempt', async () => {
    const receiver = await startReceiver([500]);
    await setUrl(receiver.url);
    const id = await enqueue();
    const stop = start({ pollIntervalMs: 10, scheduleMs: [20, 20], timeoutMs: 2000 });
    try {
      await waitFor(async () => (await delivery(id)).status === 'failed', 5000, 'failure');
      await sleep(150);
    } finally {
      await stop();
      await receiver.close();
    }
    assert.equal(receiver.received.length, 3);
    assert.equal((await attempts(id)).length, 3);
    assert.equal((await delivery(id)).attempt_count, 3);
  });

  it('does not let a hanging receiver hold up other merchants', async () => {
    const now = new Date().toISOString();
    await p.deps.db.insertInto('organizations').values({ id: 'org-slow', name: 'Slow', created_at: now }).execute();
    await p.deps.db.insertInto('users').values({
      id: 'user-slow', organization_id: 'org-slow', name: 'Slow', email: 'slow@example.com', password_hash: 'x', policy: 'p', role: 'admin',
      is_active: 1, country: '', country_code: '', national_id: '', legal_full_name: '', created_at: now, updated_at: now,
    }).execute();
    const hang = await startReceiver(['hang']);
    const quick = await startReceiver([200]);
    await p.deps.db.insertInto('merchants').values({
      id: 'merchant-slow', organization_id: 'org-slow', user_id: 'user-slow', client_id: 'kasir_test_slow', client_secret: 'sk',
      webhook_url: hang.url, webhook_secret: generateWebhookSecret(), checkout_enabled: 0, created_at: now, updated_at: now,
    }).execute();
    await setUrl(quick.url);
    const slowId = await p.deps.db.transaction().execute((trx) => enqueueDepositWebhook(trx, {
      type: 'deposit.completed', merchantId: 'merchant-slow', depositId: 'd-slow', reference: null, status: 'completed', data: {},
    }, p.deps.now()));
    const stop = start({ pollIntervalMs: 10, scheduleMs: [60_000], timeoutMs: 3000 });
    try {
      await waitFor(() => hang.received.length === 1, 2000, 'the slow receiver to be called');
      const t0 = Date.now();
      const id = await enqueue();
      await waitFor(async () => (await delivery(id)).status === 'succeeded', 1500, 'the other merchant\'s delivery');
      assert.ok(Date.now() - t0 < 1500);
      assert.equal((await attempts(slowId)).length, 0, 'the slow attempt is still in flight');
    } finally {
      await stop();
      await hang.close();
      await quick.close();
    }
    assert.equal((await delivery(slowId)).status, 'pending', 'stopping mid-attempt gives the row back');
    assert.ok((await delivery(slowId)).next_attempt_at <= Date.now());
    await p.deps.db.updateTable('webhook_deliveries').set({ status: 'failed' }).where('id', '=', slowId).execute();
  });

  it('counts timeouts, redirects, refused connections and a missing URL as failed attempts', async () => {
    const hang = await startReceiver(['hang']);
    const redirect = await startReceiver([302]);
    const closed = await startReceiver([200]);
    await closed.close();
    for (const [url, expected] of [
      [hang.url, /^Timed out$/], [redirect.url, /HTTP 302/], [closed.url, /fetch failed/], [null, /No webhook URL/],
    ] as const) {
      await setUrl(url);
      const id = await enqueue();
      const stop = start({ pollIntervalMs: 10, scheduleMs: [60_000], timeoutMs: 150 });
      try {
        await waitFor(async () => (await attempts(id)).length === 1, 5000, `attempt to ${url}`);
      } finally {
        await stop();
      }
      const [attempt] = await attempts(id);
      assert.match(attempt.error ?? '', expected);
      const d = await delivery(id);
      assert.equal(d.status, 'pending');
      assert.equal(d.attempt_count, 1);
      await p.deps.db.updateTable('webhook_deliveries').set({ status: 'failed' }).where('id', '=', id).execute();
    }
    await hang.close();
    await redirect.close();
  });
});

describe('standard-webhooks helper', () => {
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const body = '{"test": 2432232314}';
  const now = new Date(1_614_265_330_000);

  it('matches the Standard Webhooks reference vector and package', () => {
    // Test vector from the standard-webhooks specification repository.
    assert.equal(signWebhook(secret, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, body), 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
    const headers = webhookHeaders(secret, 'msg_1', body, new Date());
    assert.doesNotThrow(() => new Webhook(secret).verify(body, { ...headers }));
    const theirs = new Webhook(secret).sign('msg_2', new Date(), body);
    assert.equal(theirs, signWebhook(secret, 'msg_2', Math.floor(Date.now() / 1000), body));
  });

  it('verifies, and refuses each kind of bad message with a reason', async () => {
    const clock = () => now;
    const headers = webhookHeaders(secret, 'msg_1', body, now);
    assert.deepEqual(await verifyWebhook(secret, body, headers, { now: clock }), { id: 'msg_1', timestamp: now });
    assert.equal((await verifyWebhook(secret, Buffer.from(body), new Headers({ ...headers }), { now: clock })).id, 'msg_1');
    const reason = async (promise: Promise<unknown>) => {
      try {
        await promise;
      } catch (err) {
        assert.ok(err instanceof WebhookVerificationError);
        return err.reason;
      }
      return 'accepted';
    };
    assert.equal(await reason(verifyWebhook(secret, body + ' ', headers, { now: clock })), 'bad_signature');
    assert.equal(await reason(verifyWebhook(generateWebhookSecret(), body, headers, { now: clock })), 'bad_signature');
    assert.equal(await reason(verifyWebhook(secret, body, { ...headers, 'webhook-id': 'msg_2' }, { now: clock })), 'bad_signature');
    assert.equal(await reason(verifyWebhook(secret, body, { 'webhook-id': 'msg_1' }, { now: clock })), 'missing_headers');
    assert.equal(await reason(verifyWebhook(secret, body, { ...headers, 'webhook-timestamp': '1e9' }, { now: clock })), 'bad_timestamp');
    assert.equal(await reason(verifyWebhook(secret, body, headers, { now: () => new Date(now.getTime() + 301_000) })), 'too_old');
    assert.equal(await reason(verifyWebhook(secret, body, headers, { now: () => new Date(now.getTime() - 301_000) })), 'too_new');
    assert.equal(await reason(verifyWebhook(secret, body, headers, { now: () => new Date(now.getTime() + 299_000) })), 'accepted');
    assert.equal(await reason(verifyWebhook(secret, body, headers, { now: () => new Date(now.getTime() + 3_000), toleranceSeconds: 2 })), 'too_old');
    assert.equal(await reason(verifyWebhook('whsec_', body, headers, { now: clock })), 'bad_secret');
    // Several signatures (key rotation): any v1 match is enough; other versions are ignored.
    const rotated = { ...headers, 'webhook-signature': `v1a,xyz v1,AAAA ${headers['webhook-signature']}` };
    assert.equal(await reason(verifyWebhook(secret, body, rotated, { now: clock })), 'accepted');
  });

  it('keeps accepting a secret whose base64 the library refuses to decode, with the key node:crypto reads from it', () => {
    const lenient = 'whsec_abc';
    assert.throws(() => new Webhook(lenient), /padding/);
    const key = Buffer.from(lenient.slice('whsec_'.length), 'base64');
    assert.equal(signWebhook(lenient, 'msg_1', 1614265330, body), new Webhook(key, { format: 'raw' }).sign('msg_1', new Date(1_614_265_330_000), body));
  });

  it('verifies a body given as a plain Uint8Array view, as a receiver reads it from a stream', async () => {
    const headers = webhookHeaders(secret, 'msg_bytes', body, now);
    const padded = new TextEncoder().encode(`xx${body}yy`);
    const view = padded.subarray(2, padded.length - 2);
    assert.equal((await verifyWebhook(secret, view, headers, { now: () => now })).id, 'msg_bytes');
  });

  it('refuses a replay through the guard, and accepts it again after release', async () => {
    const guard = new MemoryReplayGuard(100, () => now.getTime());
    const headers = webhookHeaders(secret, 'msg_replay', body, now);
    await verifyWebhook(secret, body, headers, { now: () => now, replayGuard: guard });
    await assert.rejects(verifyWebhook(secret, body, headers, { now: () => now, replayGuard: guard }), (err: WebhookVerificationError) => err.reason === 'replay');
    await guard.release('msg_replay');
    await verifyWebhook(secret, body, headers, { now: () => now, replayGuard: guard });
  });

  it('bounds the memory guard', () => {
    let t = 0;
    const guard = new MemoryReplayGuard(3, () => t);
    for (const id of ['a', 'b', 'c', 'd']) assert.equal(guard.claim(id, 1000), true);
    assert.equal(guard.claim('d', 1000), false);
    assert.equal(guard.claim('a', 1000), true, 'the oldest id was forgotten');
    t = 2000;
    assert.equal(guard.claim('d', 3000), true, 'expired ids are accepted again');
  });
});

describe('webhooks end to end (running service, background dispatcher)', () => {
  it('a sandbox status update reaches the merchant receiver, signed, with orderId = depositId', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { startSandbox } = await import('../../server/provider/main');
    const dataDir = mkdtempSync(join(tmpdir(), 'kasir-e2e-'));
    const database = await testDatabaseEnv();
    const receiver = await startReceiver([200]);
    const provider = await startSandbox({ env: { KASIR_DATA_DIR: dataDir, PROVIDER_PORT: '0', ...database.env }, scryptN: 2 ** 10 });
    const { accessToken, webhookSecret } = provider.credentials;
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(provider.url + path, {
        method, headers: { Authorization: `Bearer ${accessToken}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      const json = await res.json();
      assert.ok(res.status < 300, `${method} ${path}: ${JSON.stringify(json)}`);
      return json.data;
    };
    try {
      await call('PUT', '/dashboard/api/webhook-url', { webhookUrl: receiver.url });
      const [method] = await call('GET', '/v1/deposit/payment-method?currency=IDR');
      const deposit = await call('POST', '/v1/deposit/fiat', {
        inputCurrency: 'IDR', inputAmount: 150000, outputCurrency: 'IDR', balanceType: 'fiat', paymentMethod: method.bankCode, reference: 'order-e2e',
      });
      await call('PATCH', `/v1/deposit/${deposit.depositId}`, { status: 'completed' });
      await waitFor(() => receiver.received.length > 0, 8000, 'the webhook');
      const { headers, body } = receiver.received[0];
      await verifyWebhook(webhookSecret, body, headers as Record<string, string>);
      const payload = JSON.parse(body);
      assert.equal(payload.type, 'deposit.completed');
      assert.equal(payload.orderId, deposit.depositId);
      assert.equal(payload.reference, 'order-e2e');
      assert.equal(payload.data.status, 'completed');
      const deliveries = await call('GET', '/dashboard/api/webhooks');
      await waitFor(async () => (await call('GET', '/dashboard/api/webhooks'))[0].status === 'succeeded', 3000, 'recorded success');
      assert.equal(deliveries[0].depositId, deposit.depositId);
    } finally {
      await provider.stop();
      await database.drop();
      await receiver.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
