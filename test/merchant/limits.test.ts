// Limits and guards of the merchant backend: open event streams per client address and in all, the amounts a
// checkout may ask for, and a graceful stop that ends streams with a reconnect hint.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Checkout } from '@kasir/checkout';
import { startMerchant, type RunningMerchant } from '../../server/merchant/server';
import { call, merchantApp, openEvents, startUpstream, waitFor, type Envelope, type Upstream } from './support';

describe('merchant backend: limits and guards', () => {
  let up: Upstream;
  before(async () => {
    up = await startUpstream();
  });
  after(async () => {
    await up.close();
  });

  describe('amounts', () => {
    const cases: Array<[string, unknown, string, RegExp]> = [
      ['beyond the maximum', '9999999999999999', 'IDR', /^amount: at most 1000000000000000 IDR$/],
      [
        'far beyond the maximum, with many digits',
        '123456789012345678901234567890',
        'IDR',
        /^amount: at most 1000000000000000 IDR$/,
      ],
      ['zero', '0', 'IDR', /^amount: must be positive$/],
      ['decimals in a currency without them', '150000.5', 'IDR', /^amount: IDR amounts have no decimal places$/],
      ['more decimals than the currency has', '10.125', 'USD', /^amount: USD amounts have at most 2 decimal places$/],
      ['not a number', '1e5', 'IDR', /^amount: a positive decimal number/],
      ['negative', '-5', 'IDR', /^amount: a positive decimal number/],
    ];
    for (const [name, amount, currency, message] of cases) {
      it(`refuses an amount ${name} with a message saying so`, async () => {
        const app = merchantApp(up, {}, { currencies: ['IDR', 'USD'] });
        const res = await call(app, 'POST', '/api/checkouts', { amount, currency });
        assert.equal(res.status, 400, res.text);
        assert.equal(res.json.error, 'Bad Request');
        assert.match(res.json.message, message);
      });
    }

    it('accepts the maximum itself', async () => {
      const app = merchantApp(up);
      const res = await call<Envelope<Checkout>>(app, 'POST', '/api/checkouts', {
        amount: '1000000000000000',
        currency: 'IDR',
      });
      // The payment service may refuse it for its own reasons (a method's maximum); the backend itself does not.
      assert.doesNotMatch(res.text, /amount: at most/);
    });
  });

  describe('event streams', () => {
    let merchant: RunningMerchant;
    let checkoutId: string;
    before(async () => {
      merchant = await startMerchant({
        ...up.config(),
        port: 0,
        sseMaxPerAddress: 2,
        sseMaxTotal: 3,
        heartbeatMs: 60_000,
      });
      const created = await fetch(`${merchant.url}/api/checkouts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ amount: '61000', currency: 'IDR' }),
      });
      checkoutId = ((await created.json()) as Envelope<Checkout>).data.id;
      await fetch(`${merchant.url}/api/checkouts/${checkoutId}/deposit`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ method: 'QRIS' }),
      });
    });
    after(async () => {
      await merchant.stop();
    });

    const url = () => `${merchant.url}/api/checkouts/${checkoutId}/events`;

    it('refuses a stream over the per-address cap with 429 in the envelope and Retry-After', async () => {
      const open = [openEvents(url()), openEvents(url())];
      await waitFor(() => open.every((s) => s.events.length === 1));
      const third = openEvents(url());
      await third.done;
      assert.equal(third.status, 429);
      assert.ok(Number(third.retryAfter) > 0);
      const body = JSON.parse(third.body) as { statusCode: number; error: string; message: string };
      assert.deepEqual([body.statusCode, body.error], [429, 'Too Many Requests']);
      assert.match(body.message, /at most 2/);
      for (const s of open) s.close();
      await waitFor(() => merchant.app.api.service.deposits.listenerCount(checkoutId) === 0);
    });

    it('refuses a stream over the total cap, whatever the address', async () => {
      // Three addresses as a reverse proxy would tell them (trustProxy is off, so all are one address here): the
      // per-address cap is met first; the total is checked on a backend that trusts the proxy.
      const proxied = await startMerchant({
        ...up.config(),
        port: 0,
        sseMaxPerAddress: 2,
        sseMaxTotal: 3,
        heartbeatMs: 60_000,
        trustProxy: true,
      });
      try {
        const at = (ip: string) =>
          openEvents(`${proxied.url}/api/checkouts/${checkoutId}/events`, { 'X-Forwarded-For': ip });
        const open = [at('203.0.113.1'), at('203.0.113.2'), at('203.0.113.3')];
        await waitFor(() => open.every((s) => s.events.length === 1));
        const fourth = at('203.0.113.4');
        await fourth.done;
        assert.equal(fourth.status, 429);
        assert.match(fourth.body, /on this server/);
        for (const s of open) s.close();
      } finally {
        await proxied.stop();
      }
    });

    it('ends open streams with a short retry hint when it stops, and then answers /readyz 503', async () => {
      const stopping = await startMerchant({ ...up.config(), port: 0, heartbeatMs: 60_000 });
      const stream = openEvents(`${stopping.url}/api/checkouts/${checkoutId}/events`);
      await waitFor(() => stream.events.length === 1);
      stopping.app.api.drain();
      await stream.done;
      assert.deepEqual(stream.retries, [3000, 500]);
      const ready = await stopping.app.request('/readyz');
      assert.equal(ready.status, 503);
      await stopping.stop();
    });
  });
});
