import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Checkout, Deposit } from '@kasir/checkout';
import { call, merchantApp, methodOf, startUpstream, type AnyEnvelope, type Envelope, type Upstream } from './support';

const SECRET_FIELDS =
  /clientSecret|accessToken|webhookSecret|userId|"note"|activityHistory|payerInfo|isReconciled|sk_test_|whsec_|kasir_test_|eyJhbGci/;

type CheckoutAnswer = Awaited<ReturnType<typeof call<Envelope<Checkout>>>>;
type DepositAnswer = Awaited<ReturnType<typeof call<Envelope<Deposit>>>>;
type AnyAnswer = Awaited<ReturnType<typeof call<AnyEnvelope>>>;

describe('merchant backend: widget API against the real payment service', () => {
  let up: Upstream;
  let app: ReturnType<typeof merchantApp>;
  const bodies: string[] = [];
  const api = async <T = AnyEnvelope>(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ) => {
    const r = await call<T>(app, method, path, body, headers);
    bodies.push(r.text + JSON.stringify([...r.headers]));
    return r;
  };
  /** Creates a checkout through the widget API (recorded for the secrets check); its data. */
  const newCheckout = async (amount: string) =>
    (await api<Envelope<Checkout>>('POST', '/api/checkouts', { amount, currency: 'IDR' })).json.data;
  /** Chooses a method through the widget API (recorded for the secrets check). */
  const choose = (checkoutId: string, method: string) =>
    api<Envelope<Deposit>>('POST', `/api/checkouts/${checkoutId}/deposit`, { method });

  before(async () => {
    up = await startUpstream();
    app = merchantApp(up);
  });
  after(async () => {
    await up.close();
  });

  describe('a checkout created from amount and currency', () => {
    let created: CheckoutAnswer;
    let c: Checkout;
    before(async () => {
      created = await api<Envelope<Checkout>>('POST', '/api/checkouts', { amount: '150000', currency: 'IDR' });
      c = created.json.data;
    });

    it('is created for the amount, the merchant bearing the fee, with no deposit yet', () => {
      assert.equal(created.status, 201, created.text);
      assert.equal(c.currency, 'IDR');
      assert.equal(c.amount, '150000');
      assert.equal(c.feesPaidBy, 'merchant');
      assert.deepEqual(c.capabilities, { events: true });
      assert.equal(c.deposit, null);
      assert.ok(Date.parse(c.expiresAt) > Date.now() + 14 * 60_000);
      assert.ok(Math.abs(Date.parse(c.serverTime) - Date.now()) < 5000);
    });

    it('lists each method with its kind, fee, total, availability and logo', () => {
      const bca = methodOf(c, 'BCA_VA');
      assert.deepEqual(Object.keys(bca).sort(), [
        'available',
        'code',
        'currency',
        'fee',
        'image',
        'kind',
        'name',
        'total',
      ]);
      assert.equal(bca.kind, 'va');
      assert.equal(bca.fee, '0');
      assert.equal(bca.total, '150000');
      assert.equal(bca.available, true);
      assert.match(bca.image, /^https?:\/\//);
    });

    it('offers QRIS and e-wallets beside the virtual accounts', () => {
      assert.ok(c.methods.some((m) => m.kind === 'qris'));
      assert.ok(c.methods.some((m) => m.kind === 'ewallet'));
    });

    it('is read back by its id', async () => {
      const again = await api<Envelope<Checkout>>('GET', `/api/checkouts/${c.id}`);
      assert.equal(again.status, 200);
      assert.equal(again.json.data.id, c.id);
    });
  });

  describe('a checkout whose fee the shopper bears (feesPaidBy shopper: outputAmount = amount)', () => {
    let shopperApp: ReturnType<typeof merchantApp>;
    let created: CheckoutAnswer;
    let c: Checkout;
    before(async () => {
      shopperApp = merchantApp(up, {}, { feesPaidBy: 'shopper' });
      created = await call<Envelope<Checkout>>(shopperApp, 'POST', '/api/checkouts', {
        amount: 100000,
        currency: 'IDR',
      });
      c = created.json.data;
    });

    it('keeps the order amount and says the shopper pays the fee', () => {
      assert.equal(created.status, 201, created.text);
      assert.equal(c.feesPaidBy, 'shopper');
      assert.equal(c.amount, '100000');
    });

    it('adds a flat fee to the total', () => {
      const bca = methodOf(c, 'BCA_VA');
      assert.equal(bca.fee, '4000'); // feeFlat 4000
      assert.equal(bca.total, '104000');
    });

    it('grosses a percentage fee up to the smallest total whose remainder after the fee reaches the amount', () => {
      const ovo = methodOf(c, 'OVO');
      // 1.5 %: the smallest total whose remainder after the fee reaches 100000.
      assert.equal(ovo.total, '101523');
      assert.equal(ovo.fee, '1523');
    });

    it('never surcharges QRIS (docs/indonesian-payments.md): its total is the order amount', () => {
      const qris = methodOf(c, 'QRIS');
      assert.equal(qris.total, '100000');
      assert.equal(qris.fee, '0');
    });

    it('asks the shopper for the total on the chosen deposit, showing its fee', async () => {
      const chosen = await call<Envelope<Deposit>>(shopperApp, 'POST', `/api/checkouts/${c.id}/deposit`, {
        method: 'BCA_VA',
      });
      assert.equal(chosen.status, 201, chosen.text);
      assert.equal(chosen.json.data.amount, '104000');
      assert.equal(chosen.json.data.fee, '4000');
    });
  });

  describe('refuses a page amount or currency it cannot take', () => {
    const invalid: unknown[] = [
      {},
      { amount: '-5', currency: 'IDR' },
      { amount: '0', currency: 'IDR' },
      { amount: '1000.5', currency: 'IDR' },
      { amount: '1e5', currency: 'IDR' },
      { amount: '1000', currency: 'USD' },
      { amount: '1000', currency: 'ID' },
      { amount: [1], currency: 'IDR' },
      { orderId: 'A-1' },
    ];
    for (const body of invalid) {
      it(`answers 400 to ${JSON.stringify(body)}`, async () => {
        const r = await api('POST', '/api/checkouts', body);
        assert.equal(r.status, 400, JSON.stringify(body));
        assert.equal(r.json.statusCode, 400);
        assert.equal(r.json.error, 'Bad Request');
      });
    }
  });

  describe('prices the order with the merchant hook, so the page cannot choose the amount', () => {
    const orders: Record<string, { amount: string; currency: string }> = {
      'ORDER-7': { amount: '275000', currency: 'IDR' },
    };
    const created: string[] = [];
    let hooked: ReturnType<typeof merchantApp>;
    before(() => {
      hooked = merchantApp(up, {
        priceOrder: async (orderId) => orders[orderId] ?? null,
        onCheckoutCreated: (e) => {
          created.push(`${e.orderId}:${e.checkoutId}`);
        },
      });
    });

    it('refuses an amount without an orderId', async () => {
      const cheat = await call(hooked, 'POST', '/api/checkouts', { amount: '1000', currency: 'IDR' });
      assert.equal(cheat.status, 400);
      assert.match(cheat.json.message, /orderId/);
    });

    it("charges the hook's price, not the page's, and reports the checkout created", async () => {
      const sneaky = await call<Envelope<Checkout>>(hooked, 'POST', '/api/checkouts', {
        orderId: 'ORDER-7',
        amount: '1000',
        currency: 'IDR',
      });
      assert.equal(sneaky.status, 201);
      assert.equal(sneaky.json.data.amount, '275000');
      assert.deepEqual(created, [`ORDER-7:${sneaky.json.data.id}`]);
    });

    it('answers 404 for an order the hook does not know', async () => {
      const unknown = await call(hooked, 'POST', '/api/checkouts', { orderId: 'ORDER-404' });
      assert.equal(unknown.status, 404);
      assert.equal(unknown.json.message, 'Order not found');
    });
  });

  describe('chooses a method once', () => {
    let c: Checkout;
    let first: DepositAnswer;
    let d: Deposit;
    before(async () => {
      c = await newCheckout('50000');
    });

    it('has no deposit before a method is chosen', async () => {
      const none = await api('GET', `/api/checkouts/${c.id}/deposit`);
      assert.equal(none.status, 404);
    });

    it('refuses a method the service does not offer', async () => {
      const bad = await choose(c.id, 'NOPE_VA');
      assert.equal(bad.status, 400);
      assert.equal(bad.json.message, 'Payment method not found');
    });

    it('creates the deposit of the chosen method, in the widget shape', async () => {
      first = await choose(c.id, 'QRIS');
      assert.equal(first.status, 201, first.text);
      d = first.json.data;
      assert.equal(d.id, c.id);
      assert.equal(d.checkoutId, c.id);
      assert.equal(d.status, 'pending');
      assert.deepEqual(d.method.code, 'QRIS');
      assert.equal(d.method.kind, 'qris');
      assert.equal(d.amount, '50000');
      assert.equal(d.fee, '0');
      assert.match(d.qrData!, /^000201/);
      assert.equal(d.accountNumber, undefined);
      assert.deepEqual(Object.keys(d).sort(), [
        'amount',
        'checkoutId',
        'currency',
        'expiresAt',
        'fee',
        'id',
        'method',
        'overpaidAmount',
        'paidAmount',
        'paidLate',
        'qrData',
        'received',
        'remainingAmount',
        'serverTime',
        'status',
        'updatedAt',
        'version',
      ]);
      assert.deepEqual([d.paidAmount, d.remainingAmount, d.overpaidAmount, d.paidLate], ['0', d.amount, '0', false]);
    });

    it('answers the same method again with the same deposit, 200 as the payment service answers', async () => {
      const same = await choose(c.id, 'QRIS');
      assert.equal(same.status, 200, 'the same method again: 200, as the payment service answers');
      assert.equal(same.json.statusCode, 200);
      assert.equal(same.json.data.qrData, d.qrData);
    });

    describe('a fresh backend (no cache) gets the same answers from the payment service', () => {
      let fresh: ReturnType<typeof merchantApp>;
      before(() => {
        fresh = merchantApp(up);
      });

      it('answers the same method with the same deposit', async () => {
        const freshSame = await call<Envelope<Deposit>>(fresh, 'POST', `/api/checkouts/${c.id}/deposit`, {
          method: 'QRIS',
        });
        assert.equal(freshSame.status, 200, freshSame.text);
        assert.equal(freshSame.json.data.qrData, d.qrData);
      });

      it('resumes the checkout with its deposit', async () => {
        const resumed = await call<Envelope<Checkout>>(fresh, 'GET', `/api/checkouts/${c.id}`);
        assert.equal(resumed.json.data.deposit?.qrData, d.qrData);
        assert.equal(resumed.json.data.deposit?.method.name, 'QRIS');
      });
    });

    it('switches the pending deposit to another method, as the payment service decides, and serves the switch at once', async () => {
      const other = await choose(c.id, 'BCA_VA');
      assert.equal(other.status, 200, other.text);
      assert.equal(other.json.message, 'Payment method changed');
      assert.equal(other.json.data.id, c.id);
      assert.equal(other.json.data.method.code, 'BCA_VA');
      assert.match(other.json.data.accountNumber!, /^\d{16}$/);
      assert.equal(other.json.data.qrData, undefined);
      const read = await api<Envelope<Deposit>>('GET', `/api/checkouts/${c.id}/deposit`);
      assert.equal(read.json.data.method.code, 'BCA_VA');
    });

    it("passes the payment service's refusal of a switch through as a 400 in the envelope", async () => {
      await api('POST', `/api/checkouts/${c.id}/cancel`);
      const refused = await api('POST', `/api/checkouts/${c.id}/deposit`, { method: 'QRIS' });
      assert.equal(refused.status, 400, refused.text);
      assert.equal(refused.json.error, 'Bad Request');
      assert.ok(refused.json.message.length > 0);
    });
  });

  it('shows a VA deposit its account number and name', async () => {
    const va = await newCheckout('80000');
    const vaDeposit = (await choose(va.id, 'BCA_VA')).json.data;
    assert.match(vaDeposit.accountNumber!, /^\d{16}$/);
    assert.ok(vaDeposit.accountName);
    assert.equal(vaDeposit.method.kind, 'va');
  });

  it('shows an e-wallet deposit the link to pay at', async () => {
    const ew = await newCheckout('80000');
    const ewDeposit = (await choose(ew.id, 'OVO')).json.data;
    assert.equal(ewDeposit.method.kind, 'ewallet');
    assert.match(ewDeposit.checkoutUrl!, /^https?:\/\//);
  });

  describe('serves status reads from the cache (refresh every 400 ms)', () => {
    let c: Checkout;
    let cold: ReturnType<typeof merchantApp>;
    let reads: DepositAnswer[];
    let etag: string;
    let mark: number;
    const read = (headers?: Record<string, string>) =>
      call<Envelope<Deposit>>(cold, 'GET', `/api/checkouts/${c.id}/deposit`, undefined, headers);
    // The cold backend's clock: the refresh interval passes when a test moves it on, not by waiting.
    let clock = Date.now();
    before(async () => {
      const reader = merchantApp(up, {}, { statusRefreshMs: 400 });
      c = (await call<Envelope<Checkout>>(reader, 'POST', '/api/checkouts', { amount: '60000', currency: 'IDR' })).json
        .data;
      await call(reader, 'POST', `/api/checkouts/${c.id}/deposit`, { method: 'BCA_VA' });
      // A second backend with a cold cache.
      cold = merchantApp(up, { now: () => clock }, { statusRefreshMs: 400 });
    });

    it('lets 200 concurrent readers of a cold cache cost one upstream read', async () => {
      const before = up.calls.length;
      reads = await Promise.all(Array.from({ length: 200 }, () => read()));
      assert.ok(reads.every((r) => r.status === 200));
      const deposits = up.calls.slice(before).filter((x) => x === `GET /v1/deposit/${c.id}`);
      assert.equal(deposits.length, 1);
    });

    it('gives every reader the same weak ETag', () => {
      etag = reads[0].headers.get('etag')!;
      assert.match(etag, /^W\/".+"$/);
      assert.ok(reads.every((r) => r.headers.get('etag') === etag));
    });

    it('answers a matching If-None-Match with an empty 304', async () => {
      const notModified = await read({ 'If-None-Match': etag });
      assert.equal(notModified.status, 304);
      assert.equal(notModified.text, '');
    });

    it('reaches no one for reads within the refresh interval', async () => {
      mark = up.calls.length;
      for (let i = 0; i < 20; i++) await read({ 'If-None-Match': etag });
      assert.equal(up.calls.length, mark, 'reads within the refresh interval reach no one');
    });

    it('re-reads once per interval, however many read', async () => {
      clock += 450;
      await Promise.all(Array.from({ length: 20 }, () => read()));
      assert.equal(up.calls.slice(mark).length, 1, 'one re-read per interval');
    });

    it('gives a change (paid through the sandbox) a new ETag, so the old one no longer matches', async () => {
      const paid = await call<Envelope<Deposit>>(cold, 'POST', `/api/sandbox/checkouts/${c.id}/pay`);
      assert.equal(paid.status, 200, paid.text);
      assert.equal(paid.json.data.status, 'completed');
      const after = await read({ 'If-None-Match': etag });
      assert.equal(after.status, 200);
      assert.equal(after.json.data.status, 'completed');
      assert.notEqual(after.headers.get('etag'), etag);
    });

    it('never reads a terminal deposit upstream again', async () => {
      const m2 = up.calls.length;
      clock += 450;
      await read();
      assert.equal(up.calls.length, m2);
    });
  });

  describe('cancels a pending deposit', () => {
    let c: Checkout;
    before(async () => {
      c = await newCheckout('70000');
    });

    it('answers 404 before a method is chosen', async () => {
      assert.equal((await api('POST', `/api/checkouts/${c.id}/cancel`)).status, 404);
    });

    it('expires the deposit', async () => {
      await choose(c.id, 'BNI_VA');
      const cancelled = await api<Envelope<Deposit>>('POST', `/api/checkouts/${c.id}/cancel`);
      assert.equal(cancelled.status, 200, cancelled.text);
      assert.equal(cancelled.json.data.status, 'expired');
    });

    it('refuses to cancel twice', async () => {
      const twice = await api('POST', `/api/checkouts/${c.id}/cancel`);
      assert.equal(twice.status, 400);
    });
  });

  describe('sandbox routes', () => {
    let c: Checkout;
    before(async () => {
      c = await newCheckout('90000');
    });

    it('say clearly, with a 400, that a method must be chosen first', async () => {
      const early = await api('POST', `/api/sandbox/checkouts/${c.id}/pay`);
      assert.equal(early.status, 400);
      assert.match(early.json.message, /Choose a payment method first/);
    });

    it('expire a pending deposit', async () => {
      await choose(c.id, 'MANDIRI_VA');
      const expired = await api<Envelope<Deposit>>('POST', `/api/sandbox/checkouts/${c.id}/expire`);
      assert.equal(expired.status, 200, expired.text);
      assert.equal(expired.json.data.status, 'expired');
    });

    it('pay an expired deposit late (docs/design.md, "Payments that do not go as planned"): recorded, still expired, owed back', async () => {
      const payLate = await api<Envelope<Deposit>>('POST', `/api/sandbox/checkouts/${c.id}/pay`);
      assert.equal(payLate.status, 200, payLate.text);
      assert.deepEqual(
        [payLate.json.data.status, payLate.json.data.paidLate, payLate.json.data.paidAmount],
        ['expired', true, '90000'],
      );
    });
  });

  describe('answers 404 for a checkout that does not exist', () => {
    const unknownId = '00000000-0000-4000-8000-000000000000';
    const rows: Array<[string, () => Promise<AnyAnswer>]> = [
      ['reading it', () => api('GET', `/api/checkouts/${unknownId}`)],
      ['choosing its method', () => api('POST', `/api/checkouts/${unknownId}/deposit`, { method: 'QRIS' })],
    ];
    for (const [what, request] of rows) {
      it(`on ${what}`, async () => {
        assert.equal((await request()).status, 404);
      });
    }
  });

  it('hides a credential failure behind a 502 that names no secret', async () => {
    const broken = merchantApp(up, {}, { clientSecret: 'sk_test_wrong' });
    const r = await call(broken, 'POST', '/api/checkouts', { amount: '1000', currency: 'IDR' });
    assert.equal(r.status, 502);
    assert.doesNotMatch(r.text, /signature|sk_test/i);
  });

  describe('while the payment service is down', () => {
    let down = false;
    let ahead = 0; // how far the backend's clock has been moved on
    let flaky: ReturnType<typeof merchantApp>;
    before(async () => {
      flaky = merchantApp(
        up,
        {
          fetch: (input, init) =>
            down ? Promise.reject(new TypeError('fetch failed')) : up.countingFetch(input, init),
          now: () => Date.now() + ahead,
        },
        { statusRefreshMs: 50 },
      );
    });

    it('keeps serving the last known status', async () => {
      const c = (await call<Envelope<Checkout>>(flaky, 'POST', '/api/checkouts', { amount: '65000', currency: 'IDR' }))
        .json.data;
      await call(flaky, 'POST', `/api/checkouts/${c.id}/deposit`, { method: 'BCA_VA' });
      down = true;
      ahead += 60; // past statusRefreshMs
      const stale = await call<Envelope<Deposit>>(flaky, 'GET', `/api/checkouts/${c.id}/deposit`);
      assert.equal(stale.status, 200);
      assert.equal(stale.json.data.status, 'pending');
    });

    it('answers many pollers of an unknown status with 503 after one failed read, not one each', async () => {
      const attempts = up.calls.length;
      let failures = 0;
      const counting = merchantApp(
        up,
        {
          fetch: () => {
            failures++;
            return Promise.reject(new TypeError('fetch failed'));
          },
        },
        { statusRefreshMs: 60_000 },
      );
      const many = await Promise.all(
        Array.from({ length: 50 }, () =>
          call(counting, 'GET', '/api/checkouts/22222222-2222-4222-8222-222222222222/deposit'),
        ),
      );
      assert.ok(many.every((r) => r.status === 503));
      assert.equal(failures, 1, 'a failed read is not retried for every poller');
      assert.equal(up.calls.length, attempts);
    });

    it('says 503 in the envelope when it knows nothing of the deposit', async () => {
      const unknown = await call(flaky, 'GET', '/api/checkouts/11111111-1111-4111-8111-111111111111/deposit');
      assert.equal(unknown.status, 503);
      assert.deepEqual(unknown.json, {
        statusCode: 503,
        error: 'Service Unavailable',
        message: 'The payment service is unavailable; please try again shortly',
      });
    });

    it('answers a new checkout with 503', async () => {
      const create = await call(flaky, 'POST', '/api/checkouts', { amount: '65000', currency: 'IDR' });
      assert.equal(create.status, 503);
    });
  });

  it('never sends a secret or an internal field to the shopper', () => {
    assert.ok(bodies.length > 20);
    for (const body of bodies) assert.doesNotMatch(body, SECRET_FIELDS);
    const creds = up.provider.credentials;
    for (const body of bodies) {
      for (const secret of [creds.clientSecret, creds.accessToken, creds.webhookSecret, creds.clientId, creds.password])
        assert.ok(!body.includes(secret));
    }
  });
});
