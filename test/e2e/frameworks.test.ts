// The React and Vue shops (dist/demo-react at /react/, dist/demo-vue at /vue/), each walked through a payment in
// Chromium against the real `npm start`: an order (and its checkout) created on the shop's server, the element inside
// the framework, a virtual account, the sandbox's "simulate payment", the completed screen, and the shop's own
// thank-you driven by the element's completed event (onKasirCompleted in React, @kasir-completed in Vue).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { launch, showMethod, startKasir, waitForState, type Kasir } from './harness';

describe('the React and Vue shops, end to end', () => {
  let kasir: Kasir;
  let browser: Browser;

  before(async () => {
    kasir = await startKasir();
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await kasir?.stop();
  });

  /** A fresh shopper (own sessionStorage) on a shop page, with what goes wrong in the page recorded. */
  async function shopper(
    path: string,
  ): Promise<{ context: BrowserContext; page: Page; problems: string[]; requests: Request[] }> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const problems: string[] = [];
    const requests: Request[] = [];
    page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
    page.on('pageerror', (e) => problems.push(String(e)));
    page.on('request', (r) => requests.push(r));
    const res = await page.goto(`${kasir.url}${path}`);
    assert.equal(res?.status(), 200, `${path} is served (built by npm run build:demos)`);
    return { context, page, problems, requests };
  }

  /** Asks to pay: the shop's page creates the order (and its checkout) on the shop's server. */
  async function placeOrder(page: Page, quantity: number) {
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/shop/orders') && r.request().method() === 'POST'),
      page.getByRole('button', { name: 'Continue to payment' }).click(),
    ]);
    assert.equal(response.status(), 201);
    assert.deepEqual(response.request().postDataJSON(), { items: [{ sku: 'kopi', quantity }] });
    const order = (await response.json()) as { orderId: string; checkoutId: string; amount: string; currency: string };
    assert.equal(order.currency, 'IDR');
    return order;
  }

  /** Chooses a virtual account, pays it in the sandbox and waits for the element's completed screen. */
  async function payByVirtualAccount(page: Page) {
    await waitForState(page, 'choosing');
    const method = await page
      .locator('kasir-checkout [part="method"][data-method$="_VA"]')
      .first()
      .getAttribute('data-method');
    await (await showMethod(page, method!)).click();
    await waitForState(page, 'pending');
    assert.match((await page.locator('kasir-checkout [part="va-number"]').textContent())!, /^\d{4} \d{4} \d{4} \d{4}$/);
    const simulate = page.getByRole('button', { name: 'Simulate payment' });
    await simulate.click();
    await waitForState(page, 'completed');
    assert.match((await page.locator('kasir-checkout [part="result"]').textContent())!, /Payment received/);
    return method!;
  }

  it('React: a checkout created on the server, paid by virtual account, thanked by onKasirCompleted', async () => {
    const { context, page, problems, requests } = await shopper('/react/');
    assert.equal(await page.title(), 'Kopi Nusantara: checkout (kasir in React)');
    await page.getByLabel('Quantity').selectOption('2');
    const order = await placeOrder(page, 2);

    // The element got the server's checkout as a property (no attribute, and no checkout made by the page).
    const el = page.locator('kasir-checkout');
    await waitForState(page, 'choosing');
    assert.equal(await el.evaluate((e) => (e as HTMLElement & { checkoutId: string }).checkoutId), order.checkoutId);
    assert.equal(await el.getAttribute('checkout-id'), null);
    assert.ok(
      !requests.some((r) => r.method() === 'POST' && new URL(r.url()).pathname === '/api/checkouts'),
      'the page creates no checkout',
    );
    assert.match(
      (await el.locator('[part="amount"]').first().textContent())!,
      /^Rp\s285,000$/,
      'two bags and shipping, priced by the server',
    );

    const method = await payByVirtualAccount(page);
    const thanks = page.locator('.thanks');
    await thanks.waitFor();
    const said = (await thanks.textContent())!.replace(/\s+/g, ' ');
    assert.match(said, /Thank you!/);
    assert.ok(said.includes(order.orderId), `the thank-you names the order: ${said}`);
    assert.match(said, /Rp\s?2\d\d,\d{3} with .*Virtual Account/, `the paid amount and ${method}: ${said}`);
    assert.equal(
      await page.getByRole('button', { name: 'Simulate payment' }).count(),
      0,
      'the sandbox panel goes once paid',
    );

    // A new order starts a new checkout.
    await page.getByRole('button', { name: 'New order' }).click();
    await page.getByRole('button', { name: 'Continue to payment' }).click();
    await waitForState(page, 'choosing');
    assert.notEqual(await el.evaluate((e) => (e as HTMLElement & { checkoutId: string }).checkoutId), order.checkoutId);
    assert.deepEqual(problems, []);
    await context.close();
  });

  it('Vue: a checkout created on the server, paid by virtual account, thanked on @kasir-completed', async () => {
    const { context, page, problems, requests } = await shopper('/vue/');
    assert.equal(await page.title(), 'Kopi Nusantara: checkout (kasir in Vue)');
    assert.equal(await page.locator('kasir-checkout').count(), 0, 'no checkout before the shopper asks to pay');
    await page.getByLabel('Quantity').selectOption('3');
    const order = await placeOrder(page, 3);
    await waitForState(page, 'choosing');
    assert.equal(
      await page.locator('kasir-checkout').evaluate((e) => (e as HTMLElement & { checkoutId: string }).checkoutId),
      order.checkoutId,
    );
    assert.ok(
      !requests.some((r) => r.method() === 'POST' && new URL(r.url()).pathname === '/api/checkouts'),
      'the page creates no checkout',
    );
    assert.match(
      (await page.locator('kasir-checkout [part="amount"]').first().textContent())!,
      /^Rp\s420,000$/,
      'three bags and shipping',
    );

    await payByVirtualAccount(page);
    const thanks = page.locator('.thanks');
    await thanks.waitFor();
    const said = (await thanks.textContent())!.replace(/\s+/g, ' ');
    assert.match(said, /Thank you!/);
    assert.ok(said.includes(order.orderId), `the thank-you names the order: ${said}`);
    assert.match(said, /Rp\s?4\d\d,\d{3} with .*Virtual Account/, said);
    assert.deepEqual(problems, []);
    await context.close();
  });
});
