// A shop page with a strict Content-Security-Policy (docs/design.md, "The shopper's choice, on any device"):
// `script-src 'self'; style-src 'self'`, no 'unsafe-inline', served by a small server in front of the real `npm start`
// (the page from it, everything else passed through, so the element, its chunks and /api are 'self'). A shopper pays by
// virtual account, QRIS and crypto, and opens the element as a modal, in Chromium, with no console error (a blocked
// inline style or script is one).
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { forward } from '../support/forward';
import { launch, sparePort, startKasir, waitForState, type Kasir } from './harness';

const CSP = "script-src 'self'; style-src 'self'";

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>A strict shop</title>
    <link rel="stylesheet" href="/shop.css" />
    <script type="module" src="/kasir-checkout.js"></script>
  </head>
  <body>
    <kasir-checkout id="inline" endpoint="/api" amount="150000" currency="IDR"></kasir-checkout>
    <kasir-checkout id="modal" modal endpoint="/api" amount="99000" currency="IDR"></kasir-checkout>
  </body>
</html>`;

describe('a page with a strict Content-Security-Policy', () => {
  let kasir: Kasir;
  let browser: Browser;
  let shop: Server;
  let url: string;

  before(async () => {
    kasir = await startKasir();
    browser = await launch();
    const target = new URL(kasir.url);
    shop = createServer((req, res) => {
      if (req.url === '/') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': CSP });
        return res.end(PAGE);
      }
      if (req.url === '/favicon.ico') return res.writeHead(204).end();
      if (req.url === '/shop.css') {
        res.writeHead(200, { 'content-type': 'text/css', 'content-security-policy': CSP });
        return res.end('body { font-family: sans-serif; margin: 1rem; }');
      }
      // Everything else (the element, its chunks, /api, the logos) from the merchant backend, as the same origin.
      forward(req, res, target, { answerHeaders: { 'content-security-policy': CSP } });
    });
    const port = await sparePort();
    await new Promise<void>((resolve) => shop.listen(port, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${port}/`;
  });
  after(async () => {
    await browser?.close();
    shop?.close();
    await kasir?.stop();
  });

  /** A fresh shopper on the strict page; `problems` collects console errors, page errors and CSP violations. */
  async function shopper() {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
    page.on('pageerror', (e) => problems.push(String(e)));
    const res = await page.goto(url);
    assert.equal(res?.headers()['content-security-policy'], CSP);
    // Violations are reported as events too (a policy that only reports would not print a console error).
    await page.evaluate(() =>
      document.addEventListener('securitypolicyviolation', (e) =>
        console.error(`CSP: ${e.violatedDirective} ${e.blockedURI}`),
      ),
    );
    await waitForState(page, 'choosing');
    return { context, page, problems };
  }

  /** Chooses `code` in the inline element (opening its group when closed), pays it in the sandbox, waits for completed. */
  async function pay(page: Page, kind: string, code: string) {
    const el = page.locator('#inline');
    const method = el.locator(`[part="method"][data-method="${code}"]`);
    if (!(await method.isVisible())) await el.locator(`[part="method-group"][data-kind="${kind}"] button.kind`).click();
    await method.click();
    await page.waitForSelector('#inline[state="pending"]');
    const id = await page.evaluate(
      () => Object.entries(sessionStorage).find(([k]) => k.startsWith('kasir-checkout:') && k.includes('|150000|'))![1],
    );
    const paid = await fetch(`${url}api/sandbox/checkouts/${encodeURIComponent(id)}/pay`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(paid.status, 200, await paid.text());
    await page.waitForSelector('#inline[state="completed"]', { timeout: 20_000 });
  }

  for (const [kind, code] of [
    ['va', 'BCA_VA'],
    ['qris', 'QRIS'],
    ['crypto', 'USDC-POLYGON'],
  ] as const) {
    it(`pays by ${code} with no console error: the element's styles are constructed stylesheets, never inline`, async () => {
      const { context, page, problems } = await shopper();
      await pay(page, kind, code);
      // Styled (so its sheets applied): the completed panel is laid out as a centred grid.
      assert.equal(await page.locator('#inline [part="result"]').evaluate((e) => getComputedStyle(e).display), 'grid');
      assert.equal(
        await page.locator('#inline').evaluate((e) => e.shadowRoot!.querySelectorAll('style, [style]').length),
        0,
      );
      assert.deepEqual(problems, []);
      await context.close();
    });
  }

  it('opens the modal element, closes it on Escape, with no console error', async () => {
    const { context, page, problems } = await shopper();
    await page.evaluate(() => (document.querySelector('#modal') as HTMLElement & { open(): Promise<void> }).open());
    await page.waitForSelector('#modal[state="choosing"]');
    // Shown as a modal and holding the focus (under load that comes a moment after the state): Escape goes to it.
    await page.waitForFunction(() => {
      const root = document.querySelector('#modal')!.shadowRoot!;
      return root.querySelector('[part="dialog"]')?.matches(':modal') && root.activeElement !== null;
    });
    const dialog = page.locator('#modal [part="dialog"]');
    assert.equal(await dialog.evaluate((d) => d.matches(':modal')), true);
    assert.equal(
      await dialog.evaluate((d) => getComputedStyle(d).backgroundColor),
      'rgba(0, 0, 0, 0)',
      'styled by the sheet',
    );
    // The listener is in place before the key is sent: the key reaches the page by another way than page.evaluate,
    // and on a busy machine it could close the dialog before a listener added in the same breath.
    await page.evaluate(() => {
      const modal = document.querySelector('#modal')!;
      modal.addEventListener('kasir-close', () => modal.setAttribute('data-closed', ''), { once: true });
    });
    await page.keyboard.press('Escape');
    await page.waitForSelector('#modal[data-closed]', { state: 'attached', timeout: 10_000 });
    assert.equal(await dialog.evaluate((d) => (d as HTMLDialogElement).open), false);
    assert.deepEqual(problems, []);
    await context.close();
  });
});
