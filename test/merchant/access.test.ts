// Who may touch an order (docs/security.md): an order id opens nothing by itself, a checkout id reads (and, for a
// checkout the shop's server made, acts), and acting on a checkout a page opened for an order takes the order's token.
// The access matrix runs every widget API route and the service's public checkout routes as a stranger who knows (a)
// the order id, (b) the checkout id, (c) both with a wrong, expired or other order's token, in live and sandbox mode,
// and reads the deposit back through the signed service API to see that nothing changed. Then the red-team
// reproductions, each as its own test.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Checkout, Deposit } from '@kasir/checkout';
import { parse } from 'csv-parse/sync';
import { createLogger } from '../../server/merchant/index';
import { makeOrderToken } from '../../server/merchant/orders/order-token';
import { depositsCsv, type DepositRecord } from '../../server/merchant/orders/records';
import { SandboxClient } from '../../server/provider/sandbox/client';
import { ORDER_SECRET, call, merchantApp, orderTokenOf, startUpstream, type Envelope, type Upstream } from './support';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('who may touch an order', () => {
  let up: Upstream;
  let sandbox: SandboxClient;
  const priced: string[] = [];
  /** What priceOrder got as the shopper's request, each time. */
  const requests: Array<Request | undefined> = [];
  const refunds: unknown[] = [];
  let order = 1000;
  const hooks = {
    priceOrder: (orderId: string, context?: { request?: Request }) => {
      priced.push(orderId);
      requests.push(context?.request);
      return { amount: '150000', currency: 'IDR', customer: { name: 'Siti Rahayu', email: 'siti@example.com' } };
    },
    onRefundRequested: (request: unknown) => {
      refunds.push(request);
    },
  };
  /** The shop's page in live or sandbox mode, both with an order secret. */
  const shop = (sandboxMode: boolean, extra = {}) =>
    merchantApp(up, hooks, { sandbox: sandboxMode, orderSecret: ORDER_SECRET, ...extra });
  type Shop = ReturnType<typeof shop>;

  before(async () => {
    up = await startUpstream();
    sandbox = new SandboxClient(up.provider.credentials);
  });
  after(() => up.close());

  /** The shopper's page: opens a new order with its token and chooses BCA_VA. */
  async function shopperOrder(app: Shop) {
    const orderId = `ORD-${++order}`;
    const orderToken = orderTokenOf(orderId);
    const opened = await call<Envelope<Checkout>>(app, 'POST', '/api/checkouts', { orderId, orderToken });
    assert.equal(opened.status, 201, opened.text);
    const id = opened.json.data.id;
    const chosen = await call(
      app,
      'POST',
      `/api/checkouts/${id}/deposit`,
      { method: 'BCA_VA' },
      {
        'X-Kasir-Order-Token': orderToken,
      },
    );
    assert.equal(chosen.status, 201, chosen.text);
    return { orderId, orderToken, id };
  }

  /** What the signed service API says of the deposit: what a stranger must not have changed. */
  const stateOf = async (id: string) => {
    const d = await sandbox.deposit(id);
    return {
      status: d.status,
      method: d.paymentFiat.bankCode,
      account: d.paymentFiat.accountNumber,
      version: d.version,
    };
  };

  for (const sandboxMode of [false, true]) {
    describe(sandboxMode ? 'sandbox mode' : 'live mode', () => {
      it('a stranger with (a) the order id, (b) the checkout id, (c) both with a wrong or expired token', async () => {
        const app = shop(sandboxMode);
        const mine = await shopperOrder(app);
        assert.ok(requests.at(-1) instanceof Request, 'priceOrder gets the Fetch Request');
        const other = await shopperOrder(app);
        const before = await stateOf(mine.id);
        const pricedBefore = priced.length;
        // Made a day and a second ago with the default lifetime: expired now.
        const expired = makeOrderToken(ORDER_SECRET, mine.orderId, Date.now() - 24 * 3600_000 - 1000);
        const wrongTokens = {
          wrong: `${mine.orderToken.split('.')[0]}.${'A'.repeat(43)}`,
          "other order's": other.orderToken,
          garbage: 'not-a-token',
        };

        // (a) The order id alone: live, a 401 naming orderToken, nothing priced; sandbox mode takes it (docs/security.md).
        const byOrder = await call<Envelope<Checkout>>(app, 'POST', '/api/checkouts', { orderId: mine.orderId });
        if (sandboxMode) assert.deepEqual([byOrder.status, byOrder.json.data.id], [201, mine.id]);
        else {
          assert.equal(byOrder.status, 401);
          assert.match(byOrder.json.message, /^orderToken: /);
          assert.equal(priced.length, pricedBefore, 'priceOrder not called');
        }

        // (c) The order id with a wrong, another order's, garbage or (below) expired token: 401 in both modes.
        for (const [what, orderToken] of Object.entries(wrongTokens)) {
          const res = await call(app, 'POST', '/api/checkouts', { orderId: mine.orderId, orderToken });
          assert.equal(res.status, 401, `${what}: ${res.text}`);
          assert.match(res.json.message, /^orderToken: /);
        }
        assert.equal(priced.length, sandboxMode ? pricedBefore + 1 : pricedBefore, 'priceOrder not called on a 401');

        // (b) The checkout id: reads answer the shopper projection; acts need the order's token outside sandbox mode.
        const read = await call<Envelope<Checkout>>(app, 'GET', `/api/checkouts/${mine.id}`);
        assert.equal(read.status, 200);
        const deposit = await call<Envelope<Deposit>>(app, 'GET', `/api/checkouts/${mine.id}/deposit`);
        assert.equal(deposit.status, 200);
        assert.ok(!/payerInfo|userId|returnUrl|"note"/.test(deposit.text), 'no payer, user, return page or note');
        const acts: Array<[string, unknown]> = [
          [`/api/checkouts/${mine.id}/deposit`, { method: 'QRIS' }],
          [`/api/checkouts/${mine.id}/cancel`, undefined],
          [
            `/api/checkouts/${mine.id}/refund-claim`,
            { bankCode: 'BCA', accountNumber: '1234567890', accountName: 'Stranger' },
          ],
        ];
        for (const [path, body] of acts) {
          for (const [what, token] of [
            ['no token', undefined],
            ['expired', expired],
            ...Object.entries(wrongTokens),
          ] as const) {
            if (sandboxMode && what === 'no token') continue; // sandbox mode: the checkout id alone acts
            const headers: Record<string, string> = token ? { 'X-Kasir-Order-Token': token } : {};
            const res = await call(app, 'POST', path, body, headers);
            assert.equal(res.status, 401, `${path} with ${what}: ${res.text}`);
            assert.match(res.json.message, /^orderToken: /);
            // In the body as well as the header.
            if (token && body) {
              const inBody = await call(app, 'POST', path, { ...(body as object), orderToken: token });
              assert.equal(inBody.status, 401, `${path} with ${what} in the body`);
            }
          }
        }
        if (!sandboxMode) {
          assert.deepEqual(await stateOf(mine.id), before, 'nothing changed at the service');
          assert.equal(refunds.length, 0, 'no refund requested');
        }

        // The service's public checkout routes with the checkout id: the shopper projection, and no page but its own.
        const base = up.provider.credentials.baseUrl;
        const session = await fetch(`${base}/checkout/${mine.id}/session`);
        const text = await session.text();
        assert.equal(session.status, 200);
        assert.ok(!/payerInfo|userId|returnUrl|activityHistory|"note"/.test(text), text.slice(0, 200));
        const redirect = await fetch(`${base}/checkout/${mine.id}/deposit`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ paymentMethod: 'DANA', returnUrl: 'https://evil.example/' }),
        });
        assert.equal(redirect.status, 400);
        assert.match(((await redirect.json()) as { message: string }).message, /^returnUrl: /);
        if (!sandboxMode) assert.deepEqual(await stateOf(mine.id), before, 'nothing changed at the service');

        // The shopper, with the token, still acts.
        const own = await call(
          app,
          'POST',
          `/api/checkouts/${mine.id}/deposit`,
          { method: 'QRIS' },
          {
            'X-Kasir-Order-Token': mine.orderToken,
          },
        );
        assert.equal(own.status, 200, own.text);
      });
    });
  }

  it('ids handed out carry 122 random bits and none is derived from the order id', async () => {
    const app = shop(false);
    const { id, orderId } = await shopperOrder(app);
    assert.match(id, UUID_V4);
    assert.ok(!id.includes(orderId) && !id.includes(orderId.replace(/\D/g, '')));
  });

  it('a checkout the shop server made is acted on with its id alone', async () => {
    const app = shop(false);
    const made = await app.api.createCheckout({ orderId: `SRV-${++order}`, amount: '150000' });
    const res = await call(app, 'POST', `/api/checkouts/${made.id}/deposit`, { method: 'BCA_VA' });
    assert.equal(res.status, 201, res.text);
  });

  it('sandbox mode takes an order id alone, with one warning at start naming order-token', async () => {
    const lines: string[] = [];
    const logger = createLogger('kasir-merchant', {
      level: 'warn',
      destination: { write: (line: string) => void lines.push(line) },
    });
    const app = merchantApp(up, { ...hooks, logger }, { sandbox: true });
    const opened = await call(app, 'POST', '/api/checkouts', { orderId: `SBX-${++order}` });
    assert.equal(opened.status, 201, opened.text);
    await call(app, 'POST', '/api/checkouts', { orderId: `SBX-${++order}` });
    assert.equal(lines.filter((line) => line.includes('order-token')).length, 1, lines.join('\n'));
  });

  it('kasir.orderToken: without a secret a ConfigError naming KASIR_ORDER_SECRET; a short secret is refused', () => {
    assert.throws(() => merchantApp(up, hooks, { sandbox: false }).api.orderToken('X-1'), /KASIR_ORDER_SECRET/);
    assert.throws(() => shop(false, { orderSecret: 'short' }), /orderSecret must be at least 32 bytes/);
  });

  describe('the red-team reproductions', () => {
    it('1. an order id is the only key: a stranger can neither read, switch, cancel nor claim the refund', async () => {
      const app = shop(false);
      const mine = await shopperOrder(app);
      const opened = await call(app, 'POST', '/api/checkouts', { orderId: mine.orderId });
      assert.equal(opened.status, 401);
      assert.ok(!opened.text.includes(mine.id), 'the checkout id is not answered');
      for (const path of ['deposit', 'cancel', 'refund-claim'])
        assert.equal(
          (
            await call(app, 'POST', `/api/checkouts/${mine.id}/${path}`, {
              method: 'QRIS',
              bankCode: 'BCA',
              accountNumber: '1234567890',
              accountName: 'Stranger',
            })
          ).status,
          401,
          path,
        );
    });

    it("2. the service's public session shows only the shopper projection (masked phone, no payerInfo)", async () => {
      const app = shop(false);
      const { id, orderToken } = await shopperOrder(app);
      const push = await call(
        app,
        'POST',
        `/api/checkouts/${id}/deposit`,
        { method: 'OVO', phone: '081298765432' },
        {
          'X-Kasir-Order-Token': orderToken,
        },
      );
      assert.equal(push.status, 200, push.text);
      await sandbox.pay(id);
      const res = await fetch(`${up.provider.credentials.baseUrl}/checkout/${id}/session`);
      const text = await res.text();
      const data = (JSON.parse(text) as { data: { deposit: Record<string, unknown> } }).data;
      assert.equal((data.deposit.paymentFiat as { mobileNumber: string }).mobileNumber, '0812****5432');
      assert.ok(!text.includes('81298765432'), 'the full number never leaves');
      for (const field of ['payerInfo', 'userId', 'id', 'note', 'activityHistory'])
        assert.equal(field in data.deposit, false, field);
    });

    it("3. back from a wallet only to a configured origin, never the request's Origin or Host", async () => {
      const app = shop(false, { allowedOrigins: ['https://shop.example'] });
      const { id, orderToken } = await shopperOrder(app);
      // A client that is no browser names whatever Host it likes: the request's own URL is evil.example's.
      const evil = await app.request(`http://evil.example/api/checkouts/${id}/deposit`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Kasir-Order-Token': orderToken, Host: 'evil.example' },
        body: JSON.stringify({ method: 'DANA', returnUrl: 'http://evil.example/thanks' }),
      });
      const refusal = await evil.text();
      assert.equal(evil.status, 400, refusal);
      assert.match((JSON.parse(refusal) as { message: string }).message, /^returnUrl: /);
      assert.notEqual((await sandbox.deposit(id)).paymentFiat.returnUrl, 'http://evil.example/thanks');
      const ok = await call(
        app,
        'POST',
        `/api/checkouts/${id}/deposit`,
        {
          method: 'DANA',
          returnUrl: 'https://shop.example/thanks',
        },
        { 'X-Kasir-Order-Token': orderToken },
      );
      assert.equal(ok.status, 200, ok.text);
      assert.equal((await sandbox.deposit(id)).paymentFiat.returnUrl, 'https://shop.example/thanks');
      const publicRoute = await fetch(`${up.provider.credentials.baseUrl}/checkout/${id}/deposit`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ paymentMethod: 'DANA', returnUrl: 'https://evil.example/' }),
      });
      assert.equal(publicRoute.status, 400);
    });

    it('5. records: a CSV cell that could start a formula is written with a leading quote', () => {
      const hostile = ['=HYPERLINK("http://evil.example")', '+1+1', '-2+3', '@SUM(A1)', '\tx', '\rx', 'ORD-1'];
      const records = hostile.map((orderId) => ({ depositId: 'd-1', orderId }) as unknown as DepositRecord);
      const rows = parse(depositsCsv(records), { columns: true, relax_column_count: true }) as Array<{
        orderId: string;
      }>;
      assert.deepEqual(
        rows.map((row) => row.orderId),
        [...hostile.slice(0, 6).map((cell) => `'${cell}`), 'ORD-1'],
      );
    });

    it('5. forms: control characters and direction overrides in what a shopper types are refused naming the field', async () => {
      const app = shop(true);
      const { id } = await shopperOrder(app);
      for (const phone of ['0812\r\n98765432', '0812\u202e98765432'])
        for (const method of ['OVO']) {
          const res = await call(app, 'POST', `/api/checkouts/${id}/deposit`, { method, phone });
          assert.equal(res.status, 400, res.text);
          assert.match(res.json.message, /^phone: /);
        }
    });
  });
});
