// E-wallets by wallet (docs/indonesian-payments.md): push (OVO), qr-or-app (GoPay, ShopeePay), redirect (DANA,
// LinkAja), through the hosted checkout's widget API and the sandbox's approval page. On SQLite or PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { Checkout as WidgetCheckout, Deposit as WidgetDeposit } from '@kasir/checkout';
import { bodyOf, dataOf, errorOf, type Envelope } from '../support/envelope';
import { createTestProvider, type TestProvider } from '../support/provider';
import { outbox, readDeposit } from './deposit-helpers';

describe('e-wallet flows', () => {
  let p: TestProvider;
  before(async () => {
    p = await createTestProvider();
  });
  after(async () => {
    await p.close();
  });
  beforeEach(() => {
    p.clock.offsetMs = 0;
  });

  const origin = 'http://localhost';
  const request = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    p.app.request(`${origin}${path}`, {
      method,
      headers: method === 'GET' ? headers : { 'Content-Type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const newCheckout = async () =>
    (
      await bodyOf<Envelope<{ id: string }>>(
        await p.signed('POST', '/v1/checkout', { inputCurrency: 'IDR', inputAmount: 150000 }),
      )
    ).data.id;
  const choose = (id: string, body: Record<string, unknown>) =>
    request('POST', `/checkout/api/checkouts/${id}/deposit`, body);
  const widgetRead = async (id: string) =>
    dataOf<WidgetDeposit>(await request('GET', `/checkout/api/checkouts/${id}/deposit`));
  const page = (d: WidgetDeposit) => new URL(d.checkoutUrl!).pathname;
  const decide = (d: WidgetDeposit, what: 'approve' | 'decline') => request('POST', `${page(d)}/${what}`);

  it('says which flow each wallet takes', async () => {
    const c = await dataOf<WidgetCheckout>(await request('GET', `/checkout/api/checkouts/${await newCheckout()}`));
    const flows = Object.fromEntries(c.methods.filter((m) => m.kind === 'ewallet').map((m) => [m.code, m.flow]));
    assert.deepEqual(flows, {
      OVO: 'push',
      DANA: 'redirect',
      SHOPEEPAY: 'qr-or-app',
      GOPAY: 'qr-or-app',
      LINKAJA: 'redirect',
    });
    assert.equal(c.methods.find((m) => m.code === 'BCA_VA')!.flow, undefined);
  });

  describe('push (OVO)', () => {
    it("sends the request to the shopper's number with a 60 s window; shows the number masked; approving completes", async () => {
      const id = await newCheckout();
      const res = await choose(id, { method: 'OVO', phone: '0812-3456-7890' });
      assert.equal(res.status, 201);
      const d = await dataOf<WidgetDeposit>(res);
      assert.deepEqual([d.flow, d.phone], ['push', '0812****7890']);
      assert.ok(Math.abs(Date.parse(d.walletExpiresAt!) - Date.parse(d.serverTime) - 60_000) < 1000);
      const stored = await readDeposit(p, id);
      assert.deepEqual([stored.paymentFiat.flow, stored.paymentFiat.mobileNumber], ['push', '+6281234567890']);
      assert.equal((await decide(d, 'approve')).status, 303);
      assert.equal((await widgetRead(id)).status, 'completed');
    });

    it('refuses a number that is no Indonesian mobile number, naming the field', async () => {
      const err = await errorOf(await choose(await newCheckout(), { method: 'OVO', phone: '12345' }));
      assert.equal(err.statusCode, 400);
      assert.match(err.message, /^phone: an Indonesian mobile number/);
    });

    it('past the window: a failed attempt (timeout) with its webhook; the page takes no approval; chosen again sends a new request', async () => {
      const id = await newCheckout();
      const d = await dataOf<WidgetDeposit>(await choose(id, { method: 'OVO', phone: '+62 812 1111 2222' }));
      p.clock.offsetMs = 61_000;
      const timedOut = await widgetRead(id);
      assert.deepEqual(
        [timedOut.status, timedOut.failure?.reason, timedOut.walletExpiresAt],
        ['pending', 'timeout', undefined],
      );
      assert.deepEqual(
        (await outbox(p, id)).map((e) => e.type),
        ['deposit.payment_failed'],
      );
      assert.match(await (await request('GET', page(d))).text(), /No payment request awaits approval/);
      await decide(d, 'approve');
      assert.equal((await widgetRead(id)).status, 'pending', 'an approval after the window pays nothing');
      // Try again: the same method, a new request with a new window; the failure is no longer the news.
      const again = await dataOf<WidgetDeposit>(await choose(id, { method: 'OVO' }));
      assert.equal(again.failure, undefined);
      assert.ok(Math.abs(Date.parse(again.walletExpiresAt!) - Date.parse(again.serverTime) - 60_000) < 1000);
      assert.equal(again.phone, '0812****2222');
      await decide(again, 'approve');
      assert.equal((await widgetRead(id)).status, 'completed');
      assert.deepEqual(
        (await outbox(p, id)).map((e) => e.type),
        ['deposit.payment_failed', 'deposit.completed'],
      );
    });

    it('declined in the app: pending with the failure; try again; approved', async () => {
      const id = await newCheckout();
      const d = await dataOf<WidgetDeposit>(await choose(id, { method: 'OVO', phone: '081299998888' }));
      await decide(d, 'decline');
      const declined = await widgetRead(id);
      assert.deepEqual([declined.status, declined.failure?.reason], ['pending', 'declined']);
      await decide(d, 'approve');
      assert.equal(
        (await widgetRead(id)).status,
        'pending',
        'a declined request cannot be approved: a new one is sent',
      );
      const again = await dataOf<WidgetDeposit>(await choose(id, { method: 'OVO', phone: '081299998888' }));
      await decide(again, 'approve');
      assert.equal((await widgetRead(id)).status, 'completed');
    });
  });

  it('qr-or-app (GoPay): a QR and the app link for the same payment', async () => {
    const id = await newCheckout();
    const d = await dataOf<WidgetDeposit>(await choose(id, { method: 'GOPAY' }));
    assert.equal(d.flow, 'qr-or-app');
    assert.equal(d.checkoutUrl, `${p.deps.config.baseUrl}/sandbox/ewallet/${id}`);
    assert.equal(d.qrData, `${d.checkoutUrl}?via=qr`);
    // Either way the same deposit is approved.
    assert.equal((await request('POST', `${new URL(d.qrData!).pathname}/approve`)).status, 303);
    assert.equal((await widgetRead(id)).status, 'completed');
  });

  describe('redirect (DANA)', () => {
    it("the wallet's page sends the shopper back to the page the checkout is on", async () => {
      const id = await newCheckout();
      // The service's own routes send the shopper back only to its hosted page of the checkout.
      const back = `${p.deps.config.baseUrl}/checkout/${id}?order=7`;
      const d = await dataOf<WidgetDeposit>(await choose(id, { method: 'DANA', returnUrl: back }));
      assert.equal(d.flow, 'redirect');
      // The page's forms may lead back there (a browser holds a form's redirect to form-action).
      assert.match(
        (await request('GET', page(d))).headers.get('content-security-policy')!,
        new RegExp(`form-action 'self' ${new URL(back).origin};`),
      );
      const res = await decide(d, 'approve');
      assert.deepEqual([res.status, res.headers.get('location')], [303, back]);
      assert.equal((await widgetRead(id)).status, 'completed');
    });

    it('chosen again with the page to come back to (the element, on its way out), it sends the shopper there', async () => {
      const id = await newCheckout();
      const d = await dataOf<WidgetDeposit>(await choose(id, { method: 'DANA' }));
      const back = `${p.deps.config.baseUrl}/checkout/${id}?step=2`;
      assert.equal((await choose(id, { method: 'DANA', returnUrl: back })).status, 200);
      const res = await decide(d, 'decline');
      assert.deepEqual([res.status, res.headers.get('location')], [303, back]);
      assert.equal((await widgetRead(id)).failure?.reason, 'declined');
    });

    it('refuses a return page of another site (no open redirect)', async () => {
      const err = await errorOf(
        await choose(await newCheckout(), { method: 'LINKAJA', returnUrl: 'https://evil.example/' }),
      );
      assert.equal(err.statusCode, 400);
      assert.match(err.message, /^returnUrl: /);
    });
  });
});

describe('Mandiri VA: a bill payment', () => {
  let p: TestProvider;
  before(async () => {
    p = await createTestProvider();
  });
  after(async () => {
    await p.close();
  });

  it('carries its biller code and bill key (the account number after the code), to the widget too', async () => {
    const { id } = (
      await bodyOf<Envelope<{ id: string }>>(
        await p.signed('POST', '/v1/checkout', { inputCurrency: 'IDR', inputAmount: 150000 }),
      )
    ).data;
    const res = await p.app.request(`http://localhost/checkout/api/checkouts/${id}/deposit`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ method: 'MANDIRI_VA' }),
    });
    const d = await dataOf<WidgetDeposit>(res);
    assert.equal(d.billerCode, '88608');
    assert.equal(`${d.billerCode}${d.billKey}`, d.accountNumber);
    assert.match(d.billKey!, /^\d{11}$/);
    const bca = await dataOf<WidgetDeposit>(
      await p.app.request(
        `http://localhost/checkout/api/checkouts/${(await bodyOf<Envelope<{ id: string }>>(await p.signed('POST', '/v1/checkout', { inputCurrency: 'IDR', inputAmount: 150000 }))).data.id}/deposit`,
        {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ method: 'BCA_VA' }),
        },
      ),
    );
    assert.equal(bca.billerCode, undefined);
  });
});
