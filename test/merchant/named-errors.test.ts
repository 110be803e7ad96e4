// Errors a shop meets, named (the backend's side): a page origin not allowed gets a 403 it can read (CORS lets it),
// naming the origin and KASIR_ALLOWED_ORIGINS, before any route runs, and the backend warns once per origin and
// minute; an amount with a thousands separator is refused naming it, from the page, createCheckout and priceOrder.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createLogger } from '../../server/merchant/index';
import { call, merchantApp, startUpstream, type Upstream } from './support';

const SHOP = 'https://shop.example';
const OTHER = 'https://other-shop.example';

describe('errors named for the shop', () => {
  let up: Upstream;
  before(async () => {
    up = await startUpstream();
  });
  after(() => up.close());

  describe('a page origin that is not allowed', () => {
    const lines: string[] = [];
    let later = 0; // ms added to the clock (the service accepts a signature up to minutes off)
    let app: ReturnType<typeof merchantApp>;
    before(() => {
      const logger = createLogger('kasir-merchant', {
        level: 'warn',
        destination: { write: (line: string) => void lines.push(line) },
      });
      app = merchantApp(up, { logger, now: () => Date.now() + later }, { allowedOrigins: [SHOP] });
    });

    it('gets a 403 it can read, naming its origin and KASIR_ALLOWED_ORIGINS, on its first request', async () => {
      const read = await call(app, 'GET', '/api/checkouts/chk_unknown', undefined, { Origin: OTHER });
      assert.equal(read.status, 403);
      assert.equal(read.res.headers.get('access-control-allow-origin'), OTHER, 'readable by the refused page');
      assert.deepEqual(read.json, {
        statusCode: 403,
        error: 'Forbidden',
        message: `This page's origin ${OTHER} is not allowed to use this shop's payment API: add it to KASIR_ALLOWED_ORIGINS (allowedOrigins) on the shop's server`,
      });
    });

    it('has its preflight answered, and its JSON call then refused before any route runs (nothing created)', async () => {
      const preflight = await app.request('http://localhost/api/checkouts', {
        method: 'OPTIONS',
        headers: {
          Origin: OTHER,
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'content-type',
        },
      });
      assert.equal(preflight.headers.get('access-control-allow-origin'), OTHER);
      const before = up.calls.length;
      const created = await call(
        app,
        'POST',
        '/api/checkouts',
        { amount: '150000', currency: 'IDR' },
        { Origin: OTHER },
      );
      assert.equal(created.status, 403);
      assert.equal(created.res.headers.get('access-control-allow-origin'), OTHER);
      assert.deepEqual(up.calls.slice(before), [], 'the payment service was not called');
      // An allowed origin is served as before.
      const allowed = await call(
        app,
        'POST',
        '/api/checkouts',
        { amount: '150000', currency: 'IDR' },
        { Origin: SHOP },
      );
      assert.equal(allowed.status, 201);
      assert.equal(allowed.res.headers.get('access-control-allow-origin'), SHOP);
    });

    it('warns once per origin and minute, naming the origin and the setting', async () => {
      const warned = () => lines.filter((line) => line.includes('KASIR_ALLOWED_ORIGINS') && line.includes(OTHER));
      assert.equal(warned().length, 1, lines.join('\n'));
      await call(app, 'GET', '/api/checkouts/chk_unknown', undefined, { Origin: OTHER });
      assert.equal(warned().length, 1);
      await call(app, 'GET', '/api/checkouts/chk_unknown', undefined, { Origin: 'https://third.example' });
      assert.equal(
        lines.filter((line) => line.includes('https://third.example')).length,
        1,
        'another origin is its own cause',
      );
      later += 60_000;
      await call(app, 'GET', '/api/checkouts/chk_unknown', undefined, { Origin: OTHER });
      assert.equal(warned().length, 2, 'again after a minute');
    });

    it("is not the page's own origin behind a proxy that rewrites Host (the browser says same-origin)", async () => {
      const own = await call(app, 'GET', '/api/checkouts/chk_unknown', undefined, {
        Origin: 'https://www.shop.example',
        Host: 'internal:3000',
        'Sec-Fetch-Site': 'same-origin',
      });
      assert.equal(own.status, 404);
    });
  });

  describe('an amount with a thousands separator', () => {
    it('from the page: 400 naming the separator', async () => {
      const app = merchantApp(up);
      for (const [amount, named] of [
        ['150.000', '"."'],
        ['150,000', '","'],
        ['1.500.000', '"."'],
      ]) {
        const res = await call(app, 'POST', '/api/checkouts', { amount, currency: 'IDR' });
        assert.equal(res.status, 400, amount);
        assert.match(
          res.json.message,
          new RegExp(
            `^amount: "${amount.replace(/\./g, '\\.')}" is written with ${named.replace(/\./g, '\\.')} as a thousands separator`,
          ),
          res.json.message,
        );
      }
      // A plain amount, and a decimal one in a currency with cents, are amounts.
      assert.equal((await call(app, 'POST', '/api/checkouts', { amount: '150000', currency: 'IDR' })).status, 201);
    });

    it("from the shop's server: createCheckout and priceOrder's result, refused the same way", async () => {
      const plain = merchantApp(up);
      await assert.rejects(
        plain.api.createCheckout({ amount: '150.000', currency: 'IDR' }),
        (err: Error & { status?: number }) => {
          assert.equal(err.status, 400);
          assert.match(
            err.message,
            /"\." as a thousands separator; send a plain decimal number without it, e\.g\. "150000"/,
          );
          return true;
        },
      );
      const priced = merchantApp(up, { priceOrder: async () => ({ amount: '150,000', currency: 'IDR' }) });
      const res = await call(priced, 'POST', '/api/checkouts', { orderId: 'order-1' });
      assert.equal(res.status, 400);
      assert.match(res.json.message, /"," as a thousands separator/);
    });
  });
});
