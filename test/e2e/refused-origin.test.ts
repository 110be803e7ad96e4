// A storefront on an origin the shop has not allowed (KASIR_ALLOWED_ORIGINS), in real Chromium with real CORS: the
// element reads the backend's refusal on its first request and fires kasir-error kind `config` naming the origin and
// the setting, not "the payment service cannot be reached" (the backend's warning: test/merchant/named-errors.test.ts).
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { launch, sparePort, startKasir, waitForState, type Kasir } from './harness';

const page = (api: string) => `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8" /><title>A shop elsewhere</title><script type="module" src="${api}/kasir-checkout.js"></script></head>
  <body>
    <kasir-checkout endpoint="${api}/api" amount="150000" currency="IDR"></kasir-checkout>
    <script>
      window.kasirErrors = [];
      document.addEventListener('kasir-error', (e) => window.kasirErrors.push(e.detail));
    </script>
  </body>
</html>`;

describe('a storefront on an origin the shop has not allowed', () => {
  let kasir: Kasir;
  let browser: Browser;
  let shop: Server;
  let shopOrigin: string;

  before(async () => {
    // The shop's own page on 127.0.0.1: another origin than the backend's (localhost), and not in KASIR_ALLOWED_ORIGINS.
    const port = await sparePort();
    shopOrigin = `http://127.0.0.1:${port}`;
    kasir = await startKasir();
    shop = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(page(kasir.url));
    });
    await new Promise<void>((resolve) => shop.listen(port, '127.0.0.1', resolve));
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await new Promise((resolve) => shop?.close(resolve));
    await kasir?.stop();
  });

  it('fires kasir-error kind config naming the origin and KASIR_ALLOWED_ORIGINS, from its first request', async () => {
    const context = await browser.newContext();
    const tab = await context.newPage();
    await tab.goto(`${shopOrigin}/`);
    await waitForState(tab, 'error');
    const errors = (await tab.evaluate('window.kasirErrors')) as Array<{
      kind: string;
      message: string;
      status?: number;
    }>;
    assert.equal(errors.length, 1, JSON.stringify(errors));
    assert.equal(errors[0].kind, 'config');
    assert.equal(errors[0].status, 403);
    assert.ok(
      errors[0].message.includes(shopOrigin) && errors[0].message.includes('KASIR_ALLOWED_ORIGINS'),
      errors[0].message,
    );
    assert.match(await tab.locator('kasir-checkout [part="result"]').innerText(), /not set up correctly/);
    await context.close();
  });
});
