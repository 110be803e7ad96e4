// A paid order's page (docs/orders.md), in Chromium: the element on `order-id` pays the order, then a reload and a
// second device (a fresh context, no sessionStorage) show `state="completed"` with `part="result"`, never a method
// list. The shop prices on its server (priceOrder, sandbox mode off); the sandbox's payment is made from the test.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { createMerchantApp, startMerchant, type RunningMerchant } from '../../server/merchant/server';
import { sandboxDeps, startSandbox, type RunningSandbox } from '../../server/provider/process/main';
import { chooseMethod, launch, waitForState } from './harness';

describe('a paid order, reloaded and on a second device (Chromium)', { timeout: 120_000 }, () => {
  let sandbox: RunningSandbox;
  let merchant: RunningMerchant;
  let browser: Browser;
  let dataDir: string;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'kasir-e2e-order-'));
    sandbox = await startSandbox({ port: 0, dataDir, scryptN: 2 ** 10 });
    const c = sandbox.credentials;
    const options = {
      baseUrl: c.baseUrl,
      checkoutUrl: c.checkoutUrl,
      clientId: c.clientId,
      clientSecret: c.clientSecret,
      accessToken: c.accessToken,
      webhookSecret: c.webhookSecret,
      sandbox: false,
      port: 0,
      dataDir: join(dataDir, 'shop'),
      orderSecret: 'e2e-order-secret-0123456789abcdef-0123456789',
      priceOrder: (orderId: string) => (orderId === 'ORD-1001' ? { amount: '150000', currency: 'IDR' } : null),
    };
    const app = createMerchantApp(options);
    // The order's page, rendered by the shop's server with the order's token (docs/security.md).
    app.get('/shop/order/:id', (c) => {
      const id = c.req.param('id').replace(/[^\w-]/g, '');
      return c.html(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Order</title>
      <script type="module" src="/kasir-checkout.js"></script></head>
      <body><kasir-checkout endpoint="/api" order-id="${id}" order-token="${app.api.orderToken(id)}"></kasir-checkout></body></html>`);
    });
    merchant = await startMerchant(options, app);
    await sandboxDeps(sandbox)
      .db.updateTable('merchants')
      .set({ webhook_url: `${merchant.url}/api/webhooks/kasir` })
      .execute();
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await merchant?.stop();
    await sandbox?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('shows completed with its result after a reload and on another device, never the method list', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await page.goto(`${merchant.url}/shop/order/ORD-1001`);
    await waitForState(page, 'choosing');
    await chooseMethod(page, 'BCA_VA');
    const checkoutId = await page.evaluate(() =>
      Object.keys(sessionStorage)
        .map((k) => sessionStorage.getItem(k))
        .find((v) => v && /^[\w-]{8,}$/.test(v)),
    );
    assert.ok(checkoutId);
    await sandbox.pay(checkoutId);
    await waitForState(page, 'completed');

    await page.reload();
    await waitForState(page, 'completed');
    assert.equal(await page.locator('kasir-checkout [part="result"]').count(), 1);
    assert.equal(await page.locator('kasir-checkout [part="method"]').count(), 0);

    const second = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
    await second.goto(`${merchant.url}/shop/order/ORD-1001`);
    await waitForState(second, 'completed');
    assert.equal(await second.locator('kasir-checkout [part="result"]').count(), 1);
    assert.equal(await second.locator('kasir-checkout [part="method"]').count(), 0);
  });
});
