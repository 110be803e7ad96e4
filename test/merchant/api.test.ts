import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, merchantApp, sleep, startUpstream, type Upstream } from './support';

const SECRET_FIELDS = /clientSecret|accessToken|webhookSecret|userId|"note"|activityHistory|payerInfo|isReconciled|sk_test_|whsec_|kasir_test_|eyJhbGci/;

describe('merchant backend: widget API against the real payment service', () => {
  let up: Upstream;
  let app: ReturnType<typeof merchantApp>;
  const bodies: string[] = [];
  const api = async (method: string, path: string, body?: unknown, headers?: Record<string, string>) => {
    const r = await call(app, method, path, body, headers);
    bodies.push(r.text + JSON.stringify([...r.headers]));
    return r;
  };

  before(async () => {
    up = await startUpstream();
    app = merchantApp(up);
  });
  after(async () => { await up.close(); });

  it('creates a checkout from amount and currency, with methods, fee and total per method', async () => {
    const r = await api('POST', '/api/checkouts', { amount: '150000', currency: 'IDR' });
    assert.equal(r.status, 201, r.text);
    const c = r.json.data;
    assert.equal(c.currency, 'IDR');
    assert.equal(c.amount, '150000');
    assert.equal(c.feesPaidBy, 'merchant');
    assert.deepEqual(c.capabilities, { events: true });
    assert.equal(c.deposit, null);
    assert.ok(Date.parse(c.expiresAt) > Date.now() + 14 * 60_000);
    assert.ok(Math.abs(Date.parse(c.serverTime) - Date.now()) < 5000);
    const bca = c.methods.find((m: any) => m.code === 'BCA_VA');
    assert.deepEqual(Object.keys(bca).sort(), ['available', 'code', 'currency', 'fee', 'image', 'kind', 'name', 'total']);
    assert.equal(bca.kind, 'va');
    assert.equal(bca.fee, '0');
    assert.equal(bca.total, '150000');
    assert.equal(bca.available, true);
    assert.match(bca.image, /^https?:\/\//);
    assert.ok(c.methods.some((m: any) => m.kind === 'qris'));
    assert.ok(c.methods.some((m: any) => m.kind === 'ewallet'));
    const again = await api('GET', `/api/checkouts/${c.id}`);
    assert.equal(again.status, 200);
    assert.equal(again.json.data.id, c.id);
  });

  it('passes the fee on to the shopper when configured (outputAmount = amount)', async () => {
    const shopperApp = merchantApp(up, {}, { feesPaidBy: 'shopper' });
    const r = await call(shopperApp, 'POST', '/api/checkouts', { amount: 100000, currency: 'IDR' });
    assert.equal(r.status, 201, r.text);
    const c = r.json.data;
    assert.equal(c.feesPaidBy, 'shopper');
    assert.equal(c.amount, '100000');
    const bca = c.methods.find((m: any) => m.code === 'BCA_VA');
    assert.equal(bca.fee, '4000'); // feeFlat 4000
    assert.equal(bca.total, '104000');
    const qris = c.methods.find((m: any) => m.code === 'QRIS');
    // 0.7 %: the smallest total whose remainder after the fee reaches 100000.
    assert.equal(qris.total, '100705');
    assert.equal(qris.fee, '705');
    const chosen = await call(shopperApp, 'POST', `/api/checkouts/${c.id}/deposit`, { method: 'BCA_VA' });
    assert.equal(chosen.status, 201, chosen.text);
    assert.equal(chosen.json.data.amount, '104000');
    assert.equal(chosen.json.data.fee, '4000');
  });

  it('validates the page amount and currency', async () => {
    for (const body of [{}, { amount: '-5', currency: 'IDR' }, { amount: '0', currency: 'IDR' }, { amount: '1000.5', currency: 'IDR' },
      { amount: '1e5', currency: 'IDR' }, { amount: '1000', currency: 'USD' }, { amount: '1000', currency: 'ID' }, { amount: [1], currency: 'IDR' },
      { orderId: 'A-1' }]) {
      const r = await api('POST', '/api/checkouts', body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.json.statusCode, 400);
      assert.equal(r.json.error, 'Bad Request');
    }
  });

  it('prices the order with the merchant hook, so the page cannot choose the amount', async () => {
    const orders: Record<string, { amount: string; currency: string }> = { 'ORDER-7': { amount: '275000', currency: 'IDR' } };
    const created: string[] = [];
    const hooked = merchantApp(up, {
      priceOrder: async (orderId) => orders[orderId] ?? null,
      onCheckoutCreated: (e) => { created.push(`${e.orderId}:${e.checkoutId}`); },
    });
    const cheat = await call(hooked, 'POST', '/api/checkouts', { amount: '1000', currency: 'IDR' });
    assert.equal(cheat.status, 400);
    assert.match(cheat.json.message, /orderId/);
    const sneaky = await call(hooked, 'POST', '/api/checkouts', { orderId: 'ORDER-7', amount: '1000', currency: 'IDR' });
    assert.equal(sneaky.status, 201);
    assert.equal(sneaky.json.data.amount, '275000');
    assert.deepEqual(created, [`ORDER-7:${sneaky.json.data.id}`]);
    const unknown = await call(hooked, 'POST', '/api/checkouts', { orderId: 'ORDER-404' });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.json.message, 'Order not found');
  });

  it('chooses a method once: the same method answers the same deposit, another is a 400', async () => {
    const c = (await api('POST', '/api/checkouts', { amount: '50000', currency: 'IDR' })).json.data;
    const none = await api('GET', `/api/checkouts/${c.id}/deposit`);
    assert.equal(none.status, 404);
    const bad = await api('POST', `/api/checkouts/${c.id}/deposit`, { method: 'NOPE_VA' });
    assert.equal(bad.status, 400);
    assert.equal(bad.json.message, 'Payment method not found');
    const first = await api('POST', `/api/checkouts/${c.id}/deposit`, { method: 'QRIS' });
    assert.equal(first.status, 201, first.text);
    const d = first.json.data;
    assert.equal(d.id, c.id);
    assert.equal(d.checkoutId, c.id);
    assert.equal(d.status, 'pending');
    assert.deepEqual(d.method.code, 'QRIS');
    assert.equal(d.method.kind, 'qris');
    assert.equal(d.amount, '50000');
    assert.equal(d.fee, '0');
    assert.match(d.qrData, /^000201/);
    assert.equal(d.accountNumber, undefined);
    assert.deepEqual(Object.keys(d).sort(), ['amount', 'checkoutId', 'currency', 'expiresAt', 'fee', 'id', 'method', 'qrData', 'serverTime', 'status', 'updatedAt']);
    const same = await api('POST', `/api/checkouts/${c.id}/deposit`, { method: 'QRIS' });
    assert.equal(same.status, 200, 'the same method again: 200, as the payment service answers');
    assert.equal(same.json.statusCode, 200);
    assert.equal(same.json.data.qrData, d.qrData);
    const other = await api('POST', `/api/checkouts/${c.id}/deposit`, { method: 'BCA_VA' });
    assert.equal(other.status, 400);
    // A fresh backend (no cache) gets the same answers from the payment service.
    const fresh = merchantApp(up);
    assert.equal((await call(fresh, 'POST', `/api/checkouts/${c.id}/deposit`, { method: 'BCA_VA' })).status, 400);
    const freshSame = await call(merchantApp(up), 'POST', `/api/checkouts/${c.id}/deposit`, { method: 'QRIS' });
    assert.equal(freshSame.status, 200, freshSame.text);
    assert.equal(freshSame.json.data.qrData, d.qrData);
    const resumed = await call(fresh, 'GET', `/api/checkouts/${c.id}`);
    assert.equal(resumed.json.data.deposit.qrData, d.qrData);
    assert.equal(resumed.json.data.deposit.method.name, 'QRIS');
  });

  it('shows VA and e-wallet payment details', async () => {
    const va = (await api('POST', '/api/checkouts', { amount: '80000', currency: 'IDR' })).json.data;
    const vaDeposit = (await api('POST', `/api/checkouts/${va.id}/deposit`, { method: 'BCA_VA' })).json.data;
    assert.match(vaDeposit.accountNumber, /^\d{16}$/);
    assert.ok(vaDeposit.accountName);
    assert.equal(vaDeposit.method.kind, 'va');
    const ew = (await api('POST', '/api/checkouts', { amount: '80000', currency: 'IDR' })).json.data;
    const ewDeposit = (await api('POST', `/api/checkouts/${ew.id}/deposit`, { method: 'OVO' })).json.data;
    assert.equal(ewDeposit.method.kind, 'ewallet');
    assert.match(ewDeposit.checkoutUrl, /^https?:\/\//);
  });

  it('serves status reads from the cache: ETag + 304, coalesced and bounded upstream reads', async () => {
    const reader = merchantApp(up, {}, { statusRefreshMs: 400 });
    const c = (await call(reader, 'POST', '/api/checkouts', { amount: '60000', currency: 'IDR' })).json.data;
    await call(reader, 'POST', `/api/checkouts/${c.id}/deposit`, { method: 'BCA_VA' });
    // A second backend with a cold cache: 200 concurrent readers cost one upstream read.
    const cold = merchantApp(up, {}, { statusRefreshMs: 400 });
    const before = up.calls.length;
    const reads = await Promise.all(Array.from({ length: 200 }, () => call(cold, 'GET', `/api/checkouts/${c.id}/deposit`)));
    assert.ok(reads.every((r) => r.status === 200));
    const deposits = up.calls.slice(before).filter((x) => x === `GET /v1/deposit/${c.id}`);
    assert.equal(deposits.length, 1);
    const etag = reads[0].headers.get('etag')!;
    assert.match(etag, /^W\/".+"$/);
    assert.ok(reads.every((r) => r.headers.get('etag') === etag));

    const notModified = await call(cold, 'GET', `/api/checkouts/${c.id}/deposit`, undefined, { 'If-None-Match': etag });
    assert.equal(notModified.status, 304);
    assert.equal(notModified.text, '');
    const mark = up.calls.length;
    for (let i = 0; i < 20; i++) await call(cold, 'GET', `/api/checkouts/${c.id}/deposit`, undefined, { 'If-None-Match': etag });
    assert.equal(up.calls.length, mark, 'reads within the refresh interval reach no one');
    await sleep(450);
    await Promise.all(Array.from({ length: 20 }, () => call(cold, 'GET', `/api/checkouts/${c.id}/deposit`)));
    assert.equal(up.calls.slice(mark).length, 1, 'one re-read per interval');

    // A change (paid through the sandbox) gives a new ETag; the old one no longer matches.
    const paid = await call(cold, 'POST', `/api/sandbox/checkouts/${c.id}/pay`);
    assert.equal(paid.status, 200, paid.text);
    assert.equal(paid.json.data.status, 'completed');
    const after = await call(cold, 'GET', `/api/checkouts/${c.id}/deposit`, undefined, { 'If-None-Match': etag });
    assert.equal(after.status, 200);
    assert.equal(after.json.data.status, 'completed');
    assert.notEqual(after.headers.get('etag'), etag);
    // Terminal: never read upstream again.
    const m2 = up.calls.length;
    await sleep(450);
    await call(cold, 'GET', `/api/checkouts/${c.id}/deposit`);
    assert.equal(up.calls.length, m2);
  });

  it('cancels a pending deposit (expired) and refuses to cancel twice', async () => {
    const c = (await api('POST', '/api/checkouts', { amount: '70000', currency: 'IDR' })).json.data;
    assert.equal((await api('POST', `/api/checkouts/${c.id}/cancel`)).status, 404);
    await api('POST', `/api/checkouts/${c.id}/deposit`, { method: 'BNI_VA' });
    const cancelled = await api('POST', `/api/checkouts/${c.id}/cancel`);
    assert.equal(cancelled.status, 200, cancelled.text);
    assert.equal(cancelled.json.data.status, 'expired');
    const twice = await api('POST', `/api/checkouts/${c.id}/cancel`);
    assert.equal(twice.status, 400);
  });

  it('sandbox routes: a clear 400 before a method is chosen, then pay and expire', async () => {
    const c = (await api('POST', '/api/checkouts', { amount: '90000', currency: 'IDR' })).json.data;
    const early = await api('POST', `/api/sandbox/checkouts/${c.id}/pay`);
    assert.equal(early.status, 400);
    assert.match(early.json.message, /Choose a payment method first/);
    await api('POST', `/api/checkouts/${c.id}/deposit`, { method: 'MANDIRI_VA' });
    const expired = await api('POST', `/api/sandbox/checkouts/${c.id}/expire`);
    assert.equal(expired.status, 200, expired.text);
    assert.equal(expired.json.data.status, 'expired');
    const payLate = await api('POST', `/api/sandbox/checkouts/${c.id}/pay`);
    assert.equal(payLate.status, 400);
  });

  it('answers unknown checkouts with 404 and hides credential failures', async () => {
    assert.equal((await api('GET', '/api/checkouts/00000000-0000-4000-8000-000000000000')).status, 404);
    assert.equal((await api('POST', '/api/checkouts/00000000-0000-4000-8000-000000000000/deposit', { method: 'QRIS' })).status, 404);
    const broken = merchantApp(up, {}, { clientSecret: 'sk_test_wrong' });
    const r = await call(broken, 'POST', '/api/checkouts', { amount: '1000', currency: 'IDR' });
    assert.equal(r.status, 502);
    assert.doesNotMatch(r.text, /signature|sk_test/i);
  });

  it('keeps serving the last known status while the payment service is down, and says 503 when it knows nothing', async () => {
    let down = false;
    const flaky = merchantApp(up, {
      fetch: (input, init) => (down ? Promise.reject(new TypeError('fetch failed')) : up.countingFetch(input, init)),
    }, { statusRefreshMs: 50 });
    const c = (await call(flaky, 'POST', '/api/checkouts', { amount: '65000', currency: 'IDR' })).json.data;
    await call(flaky, 'POST', `/api/checkouts/${c.id}/deposit`, { method: 'BCA_VA' });
    down = true;
    await sleep(60);
    const stale = await call(flaky, 'GET', `/api/checkouts/${c.id}/deposit`);
    assert.equal(stale.status, 200);
    assert.equal(stale.json.data.status, 'pending');
    const attempts = up.calls.length;
    let failures = 0;
    const counting = merchantApp(up, { fetch: () => { failures++; return Promise.reject(new TypeError('fetch failed')); } }, { statusRefreshMs: 60_000 });
    const many = await Promise.all(Array.from({ length: 50 }, () => call(counting, 'GET', '/api/checkouts/22222222-2222-4222-8222-222222222222/deposit')));
    assert.ok(many.every((r) => r.status === 503));
    assert.equal(failures, 1, 'a failed read is not retried for every poller');
    assert.equal(up.calls.length, attempts);
    const unknown = await call(flaky, 'GET', '/api/checkouts/11111111-1111-4111-8111-111111111111/deposit');
    assert.equal(unknown.status, 503);
    assert.deepEqual(unknown.json, { statusCode: 503, error: 'Service Unavailable', message: 'The payment service is unavailable; please try again shortly' });
    const create = await call(flaky, 'POST', '/api/checkouts', { amount: '65000', currency: 'IDR' });
    assert.equal(create.status, 503);
  });

  it('never sends a secret or an internal field to the shopper', () => {
    assert.ok(bodies.length > 20);
    for (const body of bodies) assert.doesNotMatch(body, SECRET_FIELDS);
    const creds = up.provider.credentials;
    for (const body of bodies) {
      for (const secret of [creds.clientSecret, creds.accessToken, creds.webhookSecret, creds.clientId, creds.password]) assert.ok(!body.includes(secret));
    }
  });
});
