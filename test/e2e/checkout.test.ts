// The shopper's whole journey in the demo storefront, in Chromium, against the real `npm start`.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { chooseMethod, launch, openShopper, startKasir, waitForState, type Kasir } from './harness';

describe('the demo storefront, end to end', () => {
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

  const shopper = () => openShopper(browser, kasir.url);
  const choose = chooseMethod;

  it('pays by virtual account and shows the completed screen', async () => {
    const { context, page, problems } = await shopper();
    await choose(page, 'BCA_VA');
    const number = await page.locator('kasir-checkout [part="va-number"]').textContent();
    assert.match(number!, /^\d{4} \d{4} \d{4} \d{4}$/);
    assert.match((await page.locator('kasir-checkout [part="amount"]').textContent())!, /^Rp\s150,000$/);
    assert.match(
      (await page.locator('kasir-checkout [part="countdown"]').textContent())!,
      /Pay within\s*(23:59:\d\d|24:00:00)/,
    );
    await page.click('#pay');
    await waitForState(page, 'completed');
    assert.match((await page.locator('kasir-checkout [part="result"]').textContent())!, /Payment received/);
    assert.match((await page.locator('#log').textContent())!, /kasir-completed/);
    assert.deepEqual(problems, []);
    await context.close();
  });

  it('pays by QRIS: a scannable inline SVG, then completed', async () => {
    const { context, page, problems } = await shopper();
    await choose(page, 'QRIS');
    const svg = page.locator('kasir-checkout [part="qr"] svg');
    assert.equal(await svg.getAttribute('shape-rendering'), 'crispEdges');
    const d = await svg.locator('path').getAttribute('d');
    assert.ok(d && d.startsWith('M0 0h7v1H0z'), 'the finder pattern is drawn');
    const box = await svg.boundingBox();
    assert.ok(box && box.width >= 200, `the code is large enough to scan (${box?.width} px)`);
    await page.click('#pay');
    await waitForState(page, 'completed');
    assert.deepEqual(problems, []);
    await context.close();
  });

  it('pays by e-wallet approval in the wallet page and comes back completed', async () => {
    const { context, page, problems } = await shopper();
    // DANA redirects (docs/indonesian-payments.md): its page in this tab, then back to the shop, where the element resumes.
    await choose(page, 'DANA');
    const link = page.locator('kasir-checkout [part="open-app"]');
    const href = await link.getAttribute('href');
    assert.match(href!, /^https?:\/\//);
    await link.click();
    await page.waitForURL(/\/sandbox\/ewallet\//);
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.waitForURL((url) => url.origin === new URL(kasir.url).origin);
    // What the wallet's page logged (the sandbox has no favicon) is not the shop's: from here on, the shop page's only.
    problems.length = 0;
    await waitForState(page, 'completed');
    assert.match((await page.locator('kasir-checkout [part="result"]').textContent())!, /DANA/);
    assert.deepEqual(problems, []);
    await context.close();
  });

  it('shows expired when the deposit expires', async () => {
    const { context, page } = await shopper();
    await choose(page, 'QRIS');
    await page.click('#expire');
    await waitForState(page, 'expired');
    assert.match((await page.locator('kasir-checkout [part="result"]').textContent())!, /Payment expired/);
    assert.match((await page.locator('#log').textContent())!, /kasir-expired/);
    await context.close();
  });

  it('resumes the same checkout and deposit after a reload, creating nothing new', async () => {
    const { context, page } = await shopper();
    await choose(page, 'BNI_VA');
    const number = await page.locator('kasir-checkout [part="va-number"]').textContent();
    const posts: string[] = [];
    page.on('request', (r) => r.method() === 'POST' && posts.push(new URL(r.url()).pathname));
    await page.reload();
    await waitForState(page, 'pending');
    assert.equal(await page.locator('kasir-checkout [part="va-number"]').textContent(), number);
    assert.deepEqual(posts, []);
    await context.close();
  });

  it('starts a new checkout for a new order in the same tab, never replaying the last one as paid', async () => {
    const { context, page } = await shopper();
    await choose(page, 'QRIS');
    await page.click('#pay');
    await waitForState(page, 'completed');
    const paid = await page.evaluate(() =>
      [...document.querySelectorAll('#log code')].map((c) => c.parentElement!.textContent).join('\n'),
    );
    assert.match(paid, /kasir-completed/);
    const posts: string[] = [];
    page.on('request', (r) => r.method() === 'POST' && posts.push(new URL(r.url()).pathname));
    // The next order's page, in the same tab, at the same price.
    await page.goto(`${kasir.url}/?order=2`);
    await waitForState(page, 'choosing');
    assert.deepEqual(posts, ['/api/checkouts']);
    // And the paid order's page again: its finished checkout is not replayed either.
    await page.goto(kasir.url);
    await waitForState(page, 'choosing');
    assert.doesNotMatch((await page.locator('#log').textContent())!, /kasir-completed/);
    assert.deepEqual(posts, ['/api/checkouts', '/api/checkouts']);
    await context.close();
  });

  it("tells the shopper, in their language, that an amount cannot be paid, without the server's wording", async () => {
    const { context, page } = await shopper();
    const detail = await page.evaluate(
      () =>
        new Promise<{ message: string; status?: number }>((done) => {
          const el = document.createElement('kasir-checkout');
          el.addEventListener('kasir-error', (e) => done(e.detail));
          Object.assign(el, { endpoint: '/api', amount: '1', currency: 'IDR', locale: 'id' });
          document.body.append(el);
        }),
    );
    assert.equal(detail.status, 400);
    const text = await page.locator('kasir-checkout >> nth=1').locator('[part="result"]').textContent();
    assert.match(text!, /Jumlah ini tidak dapat dibayar secara online/);
    assert.ok(
      !text!.includes(detail.message),
      `the server's message (${detail.message}) is for the shop, not the shopper`,
    );
    assert.equal(await page.locator('kasir-checkout >> nth=1').locator('[part="result"] button').count(), 0);
    await context.close();
  });

  it("runs under the storefront's strict CSP (no inline script, no eval)", async () => {
    const { context, page, problems } = await shopper();
    const response = await page.goto(kasir.url);
    const csp = response!.headers()['content-security-policy'] ?? '';
    assert.match(csp, /script-src 'self'(;|$)/);
    await waitForState(page, 'choosing');
    await choose(page, 'QRIS');
    await page.locator('kasir-checkout button', { hasText: 'Download QR code' }).click();
    assert.deepEqual(
      problems.filter((p) => /Content Security Policy|unsafe-eval/i.test(p)),
      [],
    );
    await context.close();
  });

  it("runs the same element on the payment service's hosted checkout page", async () => {
    const created = await fetch(`${kasir.url}/api/checkouts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ amount: '75000', currency: 'IDR' }),
    }).then((r) => r.json());
    const id = created.data.id as string;
    const context = await browser.newContext({ viewport: { width: 360, height: 740 } });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(String(e)));
    await page.goto(`${kasir.providerUrl}/checkout/${id}`);
    await waitForState(page, 'choosing');
    assert.equal(await page.locator('kasir-checkout').getAttribute('checkout-id'), id);
    await choose(page, 'QRIS');
    // The page's own sandbox panel, its amount left empty: what is due arrives.
    await page.locator('#kasir-sandbox-pay button').click();
    await page.locator('#kasir-sandbox-status', { hasText: /^completed: 75000/ }).waitFor();
    await waitForState(page, 'completed');
    assert.deepEqual(problems, []);
    await context.close();
  });

  it('the demo page has no accessibility violations (axe) while choosing, pending and completed', async () => {
    // axe is injected as a script, which the page's CSP would rightly refuse: bypass it for this audit only.
    const context = await browser.newContext({ bypassCSP: true, viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(kasir.url);
    await waitForState(page, 'choosing');
    await page.addScriptTag({ path: 'node_modules/axe-core/axe.min.js' });
    const audit = async (phase: string) => {
      const violations = await page.evaluate(async () => {
        const result = await (
          window as unknown as { axe: { run(): Promise<{ violations: Array<{ id: string; nodes: unknown[] }> }> } }
        ).axe.run();
        return result.violations.map((v) => `${v.id} (${v.nodes.length})`);
      });
      assert.deepEqual(violations, [], `${phase}: ${violations.join(', ')}`);
    };
    await audit('choosing');
    await choose(page, 'MANDIRI_VA');
    await audit('pending');
    await page.click('#pay');
    await waitForState(page, 'completed');
    await audit('completed');
    await context.close();
  });
});
