// What the public widget API may reach: the checkouts, and nothing else of the merchant's. A deposit created
// outside checkout (by /v1/deposit, with the merchant's own reference) is invisible and untouchable through /api,
// by its id or by its reference, however the backend learnt of it. Knowing an id is a checkout costs at most one
// upstream call per checkout.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Checkout, Deposit } from '@kasir/checkout';
import { webhookHeaders } from '../../server/common/standard-webhooks';
import type { CheckoutSession, SessionPaymentMethod } from '../../server/merchant/client/types';
import { orderAmount } from '../../server/merchant/widget-api/views';
import { bodyOf } from '../support/envelope';
import { call, merchantApp, methodOf, startUpstream, type Envelope, type Upstream } from './support';

describe('merchant backend: /api reaches checkout deposits only', () => {
  let up: Upstream;
  let app: ReturnType<typeof merchantApp>;
  before(async () => {
    up = await startUpstream();
    app = merchantApp(up);
  });
  after(async () => {
    await up.close();
  });

  const notFound = (r: { status: number; json: unknown }, what: string) => {
    assert.equal(r.status, 404, `${what}: ${JSON.stringify(r.json)}`);
    assert.deepEqual(r.json, { statusCode: 404, error: 'Not Found', message: 'Checkout not found' }, what);
  };

  it('a non-checkout deposit cannot be read, by its id or by the merchant reference', async () => {
    const reference = `order-${randomUUID().slice(0, 8)}`;
    const d = await app.service.client.createFiatDeposit({
      inputCurrency: 'IDR',
      inputAmount: 123000,
      outputCurrency: 'IDR',
      balanceType: 'fiat',
      paymentMethod: 'BCA_VA',
      reference,
    });
    const va = d.paymentFiat?.accountNumber;
    assert.ok(va);
    for (const backend of [app, merchantApp(up)]) {
      for (const key of [reference, d.depositId]) {
        for (const path of [`/api/checkouts/${key}/deposit`, `/api/checkouts/${key}`, `/api/checkouts/${key}/events`]) {
          const r = await call(backend, 'GET', path);
          notFound(r, path);
          assert.ok(!r.text.includes(String(va)), `${path} leaked the VA number`);
        }
        notFound(await call(backend, 'POST', `/api/checkouts/${key}/deposit`, { method: 'BCA_VA' }), 'choose');
      }
    }
  });

  it('a non-checkout deposit cannot be cancelled, paid or expired', async () => {
    const fiat = await app.service.client.createFiatDeposit({
      inputCurrency: 'IDR',
      inputAmount: 77000,
      outputCurrency: 'IDR',
      balanceType: 'fiat',
      paymentMethod: 'QRIS',
      reference: `order-${randomUUID()}`,
    });
    const crypto = await app.service.client.createCryptoDeposit({
      inputCurrency: (await app.service.client.listCryptos())[0].id,
      inputAmount: 1,
    });
    for (const d of [fiat, crypto]) {
      for (const path of [
        `/api/checkouts/${d.depositId}/cancel`,
        `/api/sandbox/checkouts/${d.depositId}/pay`,
        `/api/sandbox/checkouts/${d.depositId}/expire`,
        `/api/checkouts/${d.reference || d.depositId}/cancel`,
      ]) {
        notFound(await call(merchantApp(up), 'POST', path), path);
      }
      assert.equal(
        (await app.service.client.getDeposit(d.depositId)).status,
        'pending',
        `${d.depositType} deposit was changed`,
      );
    }
  });

  it('a non-checkout deposit learnt from a webhook is still not reachable', async () => {
    const d = await app.service.client.createFiatDeposit({
      inputCurrency: 'IDR',
      inputAmount: 88000,
      outputCurrency: 'IDR',
      balanceType: 'fiat',
      paymentMethod: 'BNI_VA',
      reference: `order-${randomUUID()}`,
    });
    const body = JSON.stringify({
      type: 'deposit.completed',
      orderId: d.depositId,
      depositId: d.depositId,
      reference: d.reference,
      status: 'completed',
      data: { ...d, status: 'completed' },
      timestamp: new Date().toISOString(),
    });
    const headers = webhookHeaders(up.provider.credentials.webhookSecret, `msg_${randomUUID()}`, body);
    assert.equal((await call(app, 'POST', '/api/webhooks/kasir', body, headers)).status, 200);
    notFound(await call(app, 'GET', `/api/checkouts/${d.depositId}/deposit`), 'read after webhook');
    notFound(
      await call(app, 'POST', `/api/checkouts/${d.depositId}/deposit`, { method: 'BNI_VA' }),
      'choose after webhook',
    );
  });

  describe('a checkout is still reached by its id', () => {
    let reader: ReturnType<typeof merchantApp>;
    let c: Checkout;
    before(async () => {
      reader = merchantApp(up, {}, { statusRefreshMs: 100 });
      c = (await call<Envelope<Checkout>>(reader, 'POST', '/api/checkouts', { amount: '61000', currency: 'IDR' })).json
        .data;
    });

    it('with no session call by the backend that created it', async () => {
      const mark = up.calls.length;
      assert.equal((await call(reader, 'POST', `/api/checkouts/${c.id}/deposit`, { method: 'BCA_VA' })).status, 201);
      assert.equal((await call(reader, 'GET', `/api/checkouts/${c.id}/deposit`)).status, 200);
      assert.deepEqual(
        up.calls.slice(mark).filter((x) => x.endsWith('/session')),
        [],
        'created here: known without asking',
      );
    });

    it('with one session call by another backend, however often it reads it', async () => {
      let ahead = 0; // how far the backend's clock has been moved on
      const cold = merchantApp(up, { now: () => Date.now() + ahead }, { statusRefreshMs: 100 });
      const before = up.calls.length;
      const reads = await Promise.all(
        Array.from({ length: 50 }, () => call<Envelope<Deposit>>(cold, 'GET', `/api/checkouts/${c.id}/deposit`)),
      );
      assert.ok(reads.every((r) => r.status === 200 && r.json.data.id === c.id));
      for (let i = 0; i < 3; i++) {
        ahead += 120;
        assert.equal((await call(cold, 'GET', `/api/checkouts/${c.id}/deposit`)).status, 200);
      }
      assert.equal(
        (await call<Envelope<Deposit>>(cold, 'POST', `/api/sandbox/checkouts/${c.id}/pay`)).json.data.status,
        'completed',
      );
      const sessions = up.calls.slice(before).filter((x) => x === `GET /checkout/${c.id}/session`);
      assert.equal(sessions.length, 1, 'one session call per checkout');
    });
  });
});

describe('merchant backend: the order total of a checkout created with a crypto outputAmount', () => {
  let up: Upstream;
  before(async () => {
    up = await startUpstream();
  });
  after(async () => {
    await up.close();
  });

  let app: ReturnType<typeof merchantApp>;
  let checkoutId: string;
  let hosted: Checkout;
  let r: Awaited<ReturnType<typeof call<Envelope<Checkout>>>>;
  before(async () => {
    app = merchantApp(up);
    checkoutId = (
      await app.service.client.createCheckout({ inputCurrency: 'IDR', outputAmount: 6, outputCurrency: 'USDT-POLYGON' })
    ).id;
    hosted = (
      await bodyOf<Envelope<Checkout>>(
        await fetch(`${up.provider.credentials.checkoutUrl}/api/checkouts/${checkoutId}`),
      )
    ).data;
    r = await call<Envelope<Checkout>>(app, 'GET', `/api/checkouts/${checkoutId}`);
  });

  it('shows the amount in the input currency, as the hosted widget API does', () => {
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.data.currency, 'IDR');
    assert.notEqual(r.json.data.amount, '6');
    assert.equal(r.json.data.amount, hosted.amount);
    assert.equal(r.json.data.feesPaidBy, 'shopper');
  });

  it("prices each method's fee against that amount, as the hosted widget API does", () => {
    assert.equal(methodOf(r.json.data, 'BCA_VA').fee, methodOf(hosted, 'BCA_VA').fee);
  });

  it("measures the shopper's fee on the chosen deposit against the same order amount", async () => {
    const chosen = await call<Envelope<Deposit>>(app, 'POST', `/api/checkouts/${checkoutId}/deposit`, {
      method: 'BCA_VA',
    });
    assert.equal(chosen.json.data.fee, methodOf(r.json.data, 'BCA_VA').fee);
  });
});

describe("merchant backend: a session's order amount", () => {
  /**
   * A session as a payment service may send it, older or looser than the interface's type: orderAmount missing or a
   * number, methods with only some fields. orderAmount() must cope, so the test hands it one as the wire would.
   */
  type WireSession = Omit<CheckoutSession, 'orderAmount' | 'methods'> & {
    orderAmount?: string | number;
    methods: Array<Partial<SessionPaymentMethod>>;
  };
  const session = (over: Partial<WireSession>): CheckoutSession => ({ ...base, ...over }) as CheckoutSession;
  const base: WireSession = {
    id: 'c1',
    inputCurrency: 'IDR',
    outputCurrency: 'USDT-POLYGON',
    inputAmount: null,
    outputAmount: 6,
    feesPaidBy: 'shopper',
    expiresAt: '',
    expired: false,
    deposit: null,
    methods: [],
  };
  const methods = [{ bankCode: 'BCA_VA', currency: 'IDR', paymentAmount: 102880, shopperFee: 4000 }];

  const rows: Array<[string, Partial<WireSession>, string | undefined, string]> = [
    ["takes the session's orderAmount", { orderAmount: '98880', methods }, undefined, '98880'],
    ["takes the session's orderAmount given as a number", { orderAmount: 98880, methods }, undefined, '98880'],
    ['derives it from the methods when the service sends no orderAmount', { methods }, undefined, '98880'],
    ['falls back to what the backend remembers', { methods: [] }, '98000', '98000'],
    ['answers 0 when nothing tells it', { methods: [] }, undefined, '0'],
    ['takes inputAmount', { inputAmount: 150000, outputAmount: null, methods: [] }, undefined, '150000'],
    [
      'takes outputAmount when it is in the input currency',
      { outputCurrency: 'IDR', outputAmount: 100000, methods: [] },
      undefined,
      '100000',
    ],
  ];
  for (const [behaviour, over, known, expected] of rows) {
    it(`${behaviour}, never an amount of another currency`, () => {
      assert.equal(orderAmount(session(over), known), expected);
    });
  }
});
