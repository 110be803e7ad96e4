// Who may touch an order (docs/security.md), in Chromium, against a live shop (sandbox mode off): a page the shop's
// server rendered with the order's token (`order-token`) pays the order; the same page without the token shows the
// element's `kasir-error` kind `config`, naming orderToken, and no method list.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { createMerchantApp, startMerchant, type RunningMerchant } from '../../server/merchant/server';
import { sandboxDeps, startSandbox, type RunningSandbox } from '../../server/provider/process/main';
import { chooseMethod, launch, waitForState } from './harness';

describe('an order page with and without its order-token (Chromium, live mode)', { timeout: 120_000 }, () => {
  let sandbox: RunningSandbox;
  let merchant: RunningMerchant;
  let browser: Browser;
  let dataDir: string;
  const priced: string[] = [];

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'kasir-e2e-token-'));
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
      priceOrder: (orderId: string) => {
        priced.push(orderId);
        return { amount: '150000', currency: 'IDR' };
      },
    };
    const app = createMerchantApp(options);
    // The shop's order page: with ?token=0 the shop forgot to render the order's token.
    app.get('/shop/order/:id', (c) => {
      const id = c.req.param('id').replace(/[^\w-]/g, '');
      const token = c.req.query('token') === '0' ? '' : ` order-token="${app.api.orderToken(id)}"`;
      return c.html(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Order</title>
      <script type="module" src="/kasir-checkout.js"></script></head>
      <body><kasir-checkout endpoint="/api" order-id="${id}"${token}></kasir-checkout></body></html>`);
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

  it('with the token the page pays the order', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${merchant.url}/shop/order/ORD-2001`);
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
    await context.close();
  });

  it('without the token the element fires kasir-error kind config naming orderToken, and nothing is priced', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.addInitScript(() => {
      (window as unknown as { errors: unknown[] }).errors = [];
      document.addEventListener('kasir-error', (e) =>
        (window as unknown as { errors: unknown[] }).errors.push((e as CustomEvent).detail),
      );
    });
    const before = priced.length;
    await page.goto(`${merchant.url}/shop/order/ORD-2002?token=0`);
    await waitForState(page, 'error');
    const errors = (await page.evaluate(() => (window as unknown as { errors: unknown[] }).errors)) as Array<{
      kind: string;
      status: number;
      message: string;
    }>;
    assert.deepEqual(
      errors.map((e) => [e.kind, e.status]),
      [['config', 401]],
    );
    assert.match(errors[0]!.message, /orderToken/);
    assert.equal(await page.locator('kasir-checkout [part="method"]').count(), 0);
    assert.equal(priced.length, before, 'priceOrder was not called');
    await context.close();
  });
});
