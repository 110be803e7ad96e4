// The method list in the page's own HTML (docs/server-rendering.md), in Chromium, Firefox and WebKit, against the real
// `npm start`: the demo shop's server-made payment page (/pay/:checkoutId, kasir.renderCheckout) with the element's
// script held back by a proxy in front of the server (which also counts every request the browser makes). The list is
// there before any script runs; once the script runs the element takes over without asking for the checkout again,
// the list is on screen at every animation frame and nothing in it moves or changes its text (and in Chromium, whose
// layout-shift entries the others lack, CLS <= 0.01); a tap on QRIS then reaches its QR code.
// Drivers as in every-browser.test.ts: playwright-core for Chromium, puppeteer-core (WebDriver BiDi) for Firefox,
// WebKitWebDriver over plain HTTP for WebKit (page load strategy `none`: the page does not finish loading while its
// script is held).
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import puppeteer from 'puppeteer-core';
import {
  firefoxLaunchOptions,
  missingFor,
  startWebKitDriver,
  wantedBrowsers,
  webkitCapabilities,
  type BrowserName,
} from '../support/browsers.mjs';
import { forward } from '../support/forward';
import { launch, sparePort, startKasir, type Kasir } from './harness';

const left = (browser: BrowserName) => !wantedBrowsers().includes(browser) && `KASIR_BROWSERS leaves ${browser} out`;

/** Runs a function body in the page (`return ...`), answering its value: the one thing each driver is asked. */
type Run = <T>(body: string) => Promise<T>;

const ELEMENT = `document.querySelector('kasir-checkout')`;

/**
 * Watches the element at every animation frame until told to stop: how many frames had no method button, and each
 * distinct look of the list (its buttons' boxes, the element's height, the list's and the total's rendered text).
 */
const WATCH = `
  const el = ${ELEMENT};
  const watch = (window.__watch = { frames: 0, missing: 0, looks: [] });
  // The text as rendered (the server's templates keep the source's whitespace between tags, which renders as nothing).
  const text = (root, selector) => (root.querySelector(selector)?.innerText || '').replace(/\\s+/g, ' ').trim();
  const look = () => {
    const root = el.shadowRoot;
    const buttons = root ? [...root.querySelectorAll('[part="method"]')] : [];
    if (!buttons.length) return '';
    const boxes = buttons.map((b) => { const r = b.getBoundingClientRect(); return [r.x, r.y, r.width, r.height].map(Math.round).join(','); });
    return [boxes.join(' '), Math.round(el.getBoundingClientRect().height), text(root, 'ul.methods'), text(root, '[part="amount"]')].join(' | ');
  };
  const frame = () => {
    if (watch.stop) return;
    const now = look();
    watch.frames++;
    if (!now) watch.missing++;
    if (watch.looks[watch.looks.length - 1] !== now) watch.looks.push(now);
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
  return true;`;

interface Watched {
  frames: number;
  missing: number;
  looks: string[];
}

describe('the server-rendered method list, in every browser', { timeout: 300_000 }, () => {
  let kasir: Kasir;
  let proxy: Server;
  let proxyUrl: string;
  /** Each request the browser made: "METHOD /path". */
  const seen: string[] = [];
  /** Lets the held script through. */
  let release: () => void = () => {};

  before(async () => {
    kasir = await startKasir();
    const upstream = new URL(kasir.url);
    const port = await sparePort();
    proxyUrl = `http://localhost:${port}`;
    proxy = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      const pass = () => forward(req, res, upstream, { keepHost: true });
      // The element's script waits until the test lets it through (each test holds it anew).
      if (req.url === '/kasir-checkout.js') held.then(pass);
      else pass();
    });
    await new Promise<void>((resolve) => proxy.listen(port, '127.0.0.1', resolve));
  });
  after(async () => {
    release();
    proxy?.close();
    await kasir?.stop();
  });

  let held: Promise<void> = Promise.resolve();
  const hold = () => (held = new Promise<void>((resolve) => (release = resolve)));

  /** A server-made checkout (the demo shop's order endpoint, kasir.createCheckout) and its payment page. */
  const payPage = async () => {
    const res = await fetch(`${kasir.url}/shop/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ items: [{ sku: 'kopi', quantity: 1 }] }),
    });
    const { checkoutId } = (await res.json()) as { checkoutId: string };
    return { checkoutId, url: `${proxyUrl}/pay/${checkoutId}` };
  };

  /** Polls `body` (a function body answering a boolean) until true. */
  const until = async (run: Run, what: string, body: string, timeout = 30_000) => {
    for (const end = Date.now() + timeout; ;) {
      if (await run<boolean>(body).catch(() => false)) return;
      if (Date.now() > end) throw new Error(`never ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  /** The whole visit, the same in each browser: `open` navigates without waiting for the page to finish loading. */
  const visit = async (run: Run, open: (url: string) => Promise<void>) => {
    const { checkoutId, url } = await payPage();
    seen.length = 0;
    hold();
    await open(url);
    // Before any script: the declarative shadow root holds the list, on screen, and the element is not defined yet.
    await until(
      run,
      'showed the list before the script',
      `return !!${ELEMENT}?.shadowRoot?.querySelector('[part="method"]')`,
    );
    assert.equal(await run<boolean>(`return !!customElements.get('kasir-checkout')`), false, 'the script ran early');
    assert.ok(
      await run<number>(
        `return [...${ELEMENT}.shadowRoot.querySelectorAll('[part="method-group"]')].filter((g) => g.getBoundingClientRect().height > 0).length`,
      ),
      'the method groups are shown',
    );
    assert.equal(await run<string>(`return ${ELEMENT}.getAttribute('state')`), 'choosing');
    await run(WATCH);
    await until(run, 'watched a few frames', `return window.__watch.frames >= 3`);
    release();
    // The script runs and the element takes over; then a few more frames are watched.
    await until(run, 'took over', `return !!customElements.get('kasir-checkout') && ${ELEMENT}.hasUpdated`);
    await run(`window.__watch.after = window.__watch.frames; return true`);
    await until(run, 'watched frames after', `return window.__watch.frames >= window.__watch.after + 5`);
    const watched = await run<Watched>(`window.__watch.stop = true; return window.__watch`);
    assert.equal(watched.missing, 0, 'the list was missing from a frame');
    assert.equal(watched.looks.length, 1, `the list changed:\n${watched.looks.join('\n')}`);
    // A tap on QRIS (its group opened first when the list is folded) reaches the QR.
    await run(`const root = ${ELEMENT}.shadowRoot;
      const qris = root.querySelector('[part="method"][data-method="QRIS"]');
      if (!qris.checkVisibility()) root.querySelector('[part="method-group"][data-kind="qris"] button.kind').click();
      qris.click(); return true`);
    await until(run, 'showed the QR', `return !!${ELEMENT}.shadowRoot.querySelector('[part="qr"] svg')`);
    assert.equal(await run<string>(`return ${ELEMENT}.getAttribute('state')`), 'pending');
    // The checkout is not asked for again (the page held it).
    assert.deepEqual(
      seen.filter((r) => r === `GET /api/checkouts/${checkoutId}`),
      [],
      seen.join('\n'),
    );
    assert.ok(seen.includes(`POST /api/checkouts/${checkoutId}/deposit`), seen.join('\n'));
  };

  it('Chromium', { skip: left('chromium') }, async () => {
    const browser = await launch();
    try {
      const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
      page.on('pageerror', (e) => problems.push(String(e)));
      await page.addInitScript(`window.__cls = 0;
        new PerformanceObserver((list) => { for (const e of list.getEntries()) if (!e.hadRecentInput) window.__cls += e.value; })
          .observe({ type: 'layout-shift', buffered: true });`);
      const run: Run = (body) => page.evaluate(`(() => {${body}})()`);
      await visit(run, async (url) => void (await page.goto(url, { waitUntil: 'commit' })));
      const cls = await run<number>('return window.__cls');
      assert.ok(cls <= 0.01, `CLS ${cls}`);
      assert.deepEqual(problems, []);
    } finally {
      await browser.close();
    }
  });

  it('Firefox', { skip: left('firefox') }, async () => {
    assert.deepEqual(missingFor('firefox'), [], 'Firefox is not installed');
    const browser = await puppeteer.launch(firefoxLaunchOptions());
    try {
      const page = await browser.newPage();
      await page.setViewport({ width: 390, height: 844 });
      const problems: string[] = [];
      page.on('pageerror', (e) => problems.push(String(e)));
      const run: Run = (body) => page.evaluate(`(() => {${body}})()`) as Promise<never>;
      await visit(run, async (url) => void page.goto(url, { timeout: 120_000 }).catch(() => {}));
      assert.deepEqual(problems, []);
    } finally {
      await browser.close();
    }
  });

  it('WebKit', { skip: left('webkit') }, async () => {
    assert.deepEqual(missingFor('webkit'), [], 'WebKitWebDriver or MiniBrowser is not installed');
    const driver = await startWebKitDriver();
    const webdriver = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
      const response = await fetch(`${driver.url}${path}`, {
        method,
        headers: { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const { value } = (await response.json()) as { value: T & { error?: string; message?: string } };
      if (!response.ok) throw new Error(`WebKitWebDriver ${method} ${path}: ${value.error} ${value.message}`);
      return value;
    };
    let session: string | undefined;
    try {
      const { 'wdio:enforceWebDriverClassic': _, ...capabilities } = webkitCapabilities();
      ({ sessionId: session } = await webdriver<{ sessionId: string }>('POST', '/session', {
        capabilities: { alwaysMatch: { ...capabilities, pageLoadStrategy: 'none' } },
      }));
      const run: Run = (body) => webdriver('POST', `/session/${session}/execute/sync`, { script: body, args: [] });
      await visit(run, async (url) => void (await webdriver('POST', `/session/${session}/url`, { url })));
    } finally {
      if (session) await webdriver('DELETE', `/session/${session}`).catch(() => {});
      await driver.stop();
    }
  });
});
