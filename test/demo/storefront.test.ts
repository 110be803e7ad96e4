// The demo shop's server (demo/server/storefront.ts): its pages under a strict CSP and its server-created checkouts.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createStorefront, PRODUCTS, SHIPPING } from '../../demo/server/storefront';
import type { Checkout } from '@kasir/checkout';
import { call, startUpstream, type Envelope, type Upstream } from '../merchant/support';

/** What POST /shop/orders answers: the order priced on the server and its checkout. */
interface ShopOrder {
  orderId: string;
  checkoutId: string;
  amount: string;
  currency: string;
}

describe('demo shop server', () => {
  let up: Upstream;
  let dist: string;
  before(async () => {
    up = await startUpstream();
    dist = mkdtempSync(join(tmpdir(), 'kasir-dist-'));
  });
  after(async () => {
    await up.close();
    rmSync(dist, { recursive: true, force: true });
    assert.ok(!existsSync(dist));
  });
  const shop = () => createStorefront({ ...up.config(), fetch: up.countingFetch, port: 0, distDir: dist });

  it('answers / with a fallback page under a strict CSP when the demo is not built', async () => {
    const fallback = await shop().request('http://localhost/');
    assert.equal(fallback.status, 200);
    const csp = fallback.headers.get('content-security-policy') ?? '';
    assert.match(await fallback.text(), /npm run build/);
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.doesNotMatch(csp, /script-src[^;]*unsafe-inline/);
    assert.match(csp, /frame-ancestors 'none'/);
  });

  it('serves the built demo and its assets, and 404s what is not there', async () => {
    mkdirSync(join(dist, 'demo'), { recursive: true });
    writeFileSync(
      join(dist, 'demo', 'index.html'),
      '<!doctype html><title>shop</title><script type="module" src="/app.js"></script>',
    );
    writeFileSync(join(dist, 'demo', 'app.js'), 'console.log(1)');
    const app = shop();
    const page = await app.request('http://localhost/');
    assert.equal(page.status, 200);
    assert.ok(page.headers.get('content-security-policy'));
    assert.match(await page.text(), /<title>shop<\/title>/);
    const js = await app.request('http://localhost/app.js');
    assert.match(js.headers.get('content-type') ?? '', /javascript/);
    assert.equal((await app.request('http://localhost/missing.js')).status, 404);
  });

  it('serves the React shop at /react/ with its index for client-side routes', async () => {
    mkdirSync(join(dist, 'demo-react', 'assets'), { recursive: true });
    writeFileSync(join(dist, 'demo-react', 'index.html'), '<!doctype html><title>react shop</title>');
    writeFileSync(join(dist, 'demo-react', 'assets', 'app.js'), 'console.log(2)');
    const app = shop();
    assert.equal((await app.request('http://localhost/react')).status, 301);
    assert.match(await (await app.request('http://localhost/react/')).text(), /react shop/);
    assert.match(await (await app.request('http://localhost/react/thanks')).text(), /react shop/);
    assert.equal(await (await app.request('http://localhost/react/assets/app.js')).text(), 'console.log(2)');
  });

  it('prices an order on the server and creates its checkout', async () => {
    const res = await call<ShopOrder>(shop(), 'POST', '/shop/orders', {
      items: [
        { sku: 'kopi', quantity: 2 },
        { sku: 'gula', quantity: 1 },
      ],
    });
    assert.equal(res.status, 201);
    const amount = 2 * PRODUCTS.kopi.price + PRODUCTS.gula.price + SHIPPING;
    assert.equal(res.json.amount, String(amount));
    assert.match(res.json.orderId, /^order_/);
    const checkout = await call<Envelope<Checkout>>(shop(), 'GET', `/api/checkouts/${res.json.checkoutId}`);
    assert.equal(checkout.status, 200);
    assert.equal(checkout.json.data.amount, String(amount));
  });

  it("renders an order's payment page with the method list in its HTML, under the pages' CSP", async () => {
    const app = shop();
    const order = await call<ShopOrder>(app, 'POST', '/shop/orders', { items: [{ sku: 'teh', quantity: 1 }] });
    const page = await app.request(`http://localhost/pay/${order.json.checkoutId}?lang=id`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-security-policy') ?? '', /script-src 'self'(;|$)/);
    const html = await page.text();
    assert.match(html, /<html lang="id">/);
    assert.match(html, /<script type="module" src="\/kasir-checkout.js"><\/script>/);
    assert.match(html, new RegExp(`<kasir-checkout[^>]* checkout-id="${order.json.checkoutId}"[^>]* locale="id"`));
    assert.match(html, /<template shadowroot="open" shadowrootmode="open">[^]*Pilih cara bayar[^]*part="method"/);
    const unknown = await app.request(
      `http://localhost/pay/${order.json.checkoutId.replace(/.$/, (c) => (c === '0' ? '1' : '0'))}`,
    );
    assert.equal(unknown.status, 404);
  });

  it('refuses an order with an unknown product or a bad quantity, in the envelope', async () => {
    for (const items of [
      [{ sku: 'caviar', quantity: 1 }],
      [{ sku: 'kopi', quantity: 0 }],
      [{ sku: 'kopi', quantity: 1.5 }],
      [],
    ]) {
      const res = await call(shop(), 'POST', '/shop/orders', { items });
      assert.equal(res.status, 400, JSON.stringify(items));
      assert.equal(res.json.statusCode, 400);
      assert.match(res.json.message, /items/);
    }
  });

  it('refuses items that are not objects, or name no product of its own, with a 400 (not a 502)', async () => {
    for (const items of [
      [null],
      ['kopi'],
      [[{ sku: 'kopi', quantity: 1 }]],
      [7],
      [{ sku: 'constructor', quantity: 1 }],
      [{ sku: '__proto__', quantity: 1 }],
      [{ sku: 'toString', quantity: 1 }],
    ]) {
      const res = await call(shop(), 'POST', '/shop/orders', { items });
      assert.equal(res.status, 400, JSON.stringify(items));
      assert.deepEqual([res.json.statusCode, res.json.error], [400, 'Bad Request']);
      assert.match(res.json.message, /items/);
    }
  });
});
