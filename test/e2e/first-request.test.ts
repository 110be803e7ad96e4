// The element's first request for a checkout the shop's server made (docs/orders.md, "First paint"), in Chromium, on a
// page of another origin: a plain GET that needs no CORS preflight, and one the page's
// `<link rel="preload" as="fetch" crossorigin>` serves, so the checkout downloads beside the script and is asked for
// once. Every request reaching the merchant backend is counted by a proxy in front of it (a preflight is an OPTIONS
// request the page cannot see); a header added to that GET, or another fetch mode, would show here as a preflight or
// a second GET. Once the list is shown the element asks the preflight of the method's choice (its POST to
// /checkouts/:id/deposit) ahead, so the tap's POST goes without one.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { forward } from '../support/forward';
import { launch, showMethod, sparePort, startKasir, waitForState, type Kasir } from './harness';

describe("a checkout the shop's server made: the element's first request (Chromium)", { timeout: 120_000 }, () => {
  let kasir: Kasir;
  let browser: Browser;
  let api: Server;
  let shop: Server;
  let apiUrl: string;
  let shopUrl: string;
  /** Each request the browser sent to the merchant backend: "METHOD /path", a preflight's "OPTIONS /path (POST)". */
  const seen: string[] = [];

  before(async () => {
    const [apiPort, shopPort] = [await sparePort(), await sparePort()];
    apiUrl = `http://127.0.0.1:${apiPort}`;
    shopUrl = `http://localhost:${shopPort}`;
    kasir = await startKasir({ KASIR_ALLOWED_ORIGINS: shopUrl });
    const upstream = new URL(kasir.url);
    api = createServer((req, res) => {
      const preflightOf = req.headers['access-control-request-method'];
      seen.push(`${req.method} ${req.url}${preflightOf ? ` (${preflightOf})` : ''}`);
      forward(req, res, upstream, { keepHost: true });
    });
    shop = createServer((req, res) => {
      // The shop's server makes the checkout while it renders the page (server to server, as kasir.createCheckout).
      const preload = req.url?.includes('preload');
      fetch(`${kasir.url}/api/checkouts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ amount: '150000', currency: 'IDR' }),
      })
        .then((r) => r.json() as Promise<{ data: { id: string } }>)
        .then(({ data: { id } }) => {
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
          res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Order</title>
            ${preload ? `<link rel="preload" as="fetch" crossorigin href="${apiUrl}/api/checkouts/${id}">` : ''}
            <script type="module" src="${apiUrl}/kasir-checkout.js"></script></head>
            <body><kasir-checkout endpoint="${apiUrl}/api" checkout-id="${id}"></kasir-checkout></body></html>`);
        })
        .catch(() => res.writeHead(502).end());
    });
    await Promise.all([
      new Promise<void>((resolve) => api.listen(apiPort, '127.0.0.1', resolve)),
      new Promise<void>((resolve) => shop.listen(shopPort, '127.0.0.1', resolve)),
    ]);
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    api?.close();
    shop?.close();
    await kasir?.stop();
  });

  /** The choice's preflight asked ahead: an OPTIONS request, and its own preflight. */
  const choicePreflight = /^OPTIONS \/api\/checkouts\/[\w-]+\/deposit( \(OPTIONS\))?$/;

  /**
   * Opens the shop's page in a fresh context and answers the requests its element made to /api for the checkout until
   * the list (the choice's preflight asked ahead is the last test's).
   */
  async function visit(path: string) {
    seen.length = 0;
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    try {
      const page = await context.newPage();
      await page.goto(`${shopUrl}${path}`);
      await waitForState(page, 'choosing');
      return seen.filter((line) => line.includes('/api/') && !choicePreflight.test(line));
    } finally {
      await context.close();
    }
  }

  it('is one GET and no preflight', async () => {
    const requests = await visit('/order');
    assert.equal(requests.length, 1, requests.join('\n'));
    assert.match(requests[0], /^GET \/api\/checkouts\/[\w-]+$/);
  });

  it("is served by the page's preload: the checkout is asked for once", async () => {
    const requests = await visit('/order?preload');
    assert.deepEqual(
      requests.map((line) => line.replace(/[\w-]+$/, ':id')),
      ['GET /api/checkouts/:id'],
      requests.join('\n'),
    );
  });

  it("asks the choice's preflight while the list is read: the tap's POST needs none of its own", async () => {
    seen.length = 0;
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    try {
      const page = await context.newPage();
      await page.goto(`${shopUrl}/order`);
      await waitForState(page, 'choosing');
      // The OPTIONS request itself follows its preflight's answer, which the browser then holds.
      const asked = () => seen.some((line) => /^OPTIONS \/api\/checkouts\/[\w-]+\/deposit$/.test(line));
      for (let waited = 0; !asked() && waited < 10_000; waited += 50) await page.waitForTimeout(50);
      assert.ok(asked(), `no preflight of the choice asked before the tap:\n${seen.join('\n')}`);
      const before = seen.length;
      await (await showMethod(page, 'QRIS')).click();
      await waitForState(page, 'pending');
      const afterTap = seen.slice(before);
      assert.ok(
        afterTap.some((line) => /^POST \/api\/checkouts\/[\w-]+\/deposit$/.test(line)),
        afterTap.join('\n'),
      );
      assert.deepEqual(
        afterTap.filter((line) => line.startsWith('OPTIONS')),
        [],
        afterTap.join('\n'),
      );
    } finally {
      await context.close();
    }
  });
});
