// One whole payment in Firefox and in WebKit, against the real `npm start` (checkout.test.ts has it in Chromium): the
// demo shop loads, the shopper chooses QRIS, the sandbox pays, the element shows it completed. playwright-core cannot
// drive Debian's browsers other than Chromium, so each one goes through its own protocol (docs/browsers.md): Firefox
// ESR through puppeteer-core (WebDriver BiDi), WebKitGTK's MiniBrowser through WebKitWebDriver (WebDriver classic,
// as plain HTTP). KASIR_BROWSERS leaves a browser out on purpose; a browser that is missing fails.
import assert from 'node:assert/strict';
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
import { startKasir, type Kasir } from './harness';

const METHOD = 'QRIS';
const method = `[part="method"][data-method="${METHOD}"]`;
const left = (browser: BrowserName) => !wantedBrowsers().includes(browser) && `KASIR_BROWSERS leaves ${browser} out`;
const missing = (browser: BrowserName) => {
  const needs = missingFor(browser);
  if (needs.length)
    throw new Error(
      `${browser} needs ${needs.map((n) => `${n.path} (Debian's ${n.pkg})`).join(', ')}: npm run test:e2e installs them as root`,
    );
};

describe('one payment in each browser', () => {
  let kasir: Kasir;
  before(async () => {
    kasir = await startKasir();
  });
  after(() => kasir?.stop());

  it('pays by QRIS in Firefox', { skip: left('firefox'), timeout: 120_000 }, async () => {
    missing('firefox');
    const browser = await puppeteer.launch(firefoxLaunchOptions());
    try {
      const page = await browser.newPage();
      await page.setViewport({ width: 390, height: 844 });
      const problems: string[] = [];
      page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
      page.on('pageerror', (e) => problems.push(String(e)));
      await page.goto(kasir.url);
      await page.waitForSelector('kasir-checkout[state="choosing"]', { timeout: 20_000 });
      // A list of more than 6 methods folds each kind into a closed group: the shopper opens QRIS's if it is closed.
      const shown = await page.$eval(
        'kasir-checkout',
        (el, selector) => el.shadowRoot!.querySelector<HTMLElement>(selector)!.checkVisibility(),
        method,
      );
      if (!shown) await page.locator(`kasir-checkout >>> [part="method-group"][data-kind="qris"] button.kind`).click();
      await page.locator(`kasir-checkout >>> ${method}`).click();
      await page.waitForSelector('kasir-checkout[state="pending"]', { timeout: 20_000 });
      assert.ok(await page.$('kasir-checkout >>> [part="qr"] svg'), 'the QR code is shown');
      await page.locator('#pay').click(); // enabled once the deposit is pending
      await page.waitForSelector('kasir-checkout[state="completed"]', { timeout: 20_000 });
      assert.match(
        await page.$eval('kasir-checkout', (el) => el.shadowRoot!.querySelector('[part="result"]')!.textContent!),
        /Payment received/,
      );
      assert.deepEqual(problems, []);
    } finally {
      await browser.close();
    }
  });

  it('pays by QRIS in WebKit', { skip: left('webkit'), timeout: 120_000 }, async () => {
    missing('webkit');
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
      // The capabilities as WebKitWebDriver reads them (the `wdio:` one is WebdriverIO's own).
      const { 'wdio:enforceWebDriverClassic': _, ...capabilities } = webkitCapabilities();
      ({ sessionId: session } = await webdriver<{ sessionId: string }>('POST', '/session', {
        capabilities: { alwaysMatch: capabilities },
      }));
      const run = <T>(script: string, ...args: unknown[]) =>
        webdriver<T>('POST', `/session/${session}/execute/sync`, { script, args });
      const until = async (what: string, script: string, timeout = 20_000) => {
        for (const end = Date.now() + timeout; !(await run<boolean>(script));) {
          if (Date.now() > end) throw new Error(`WebKit: never ${what}`);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      };
      /** A click as WebDriver makes it (scrolled into view, at the element's centre): `find` returns the element. */
      const click = async (find: string) => {
        const element = await run<Record<string, string>>(find);
        await webdriver('POST', `/session/${session}/element/${Object.values(element)[0]}/click`, {});
      };
      const checkout = `document.querySelector('kasir-checkout')`;
      const state = (s: string) => `return ${checkout}?.getAttribute('state') === '${s}'`;
      await webdriver('POST', `/session/${session}/url`, { url: kasir.url });
      // Console errors and script errors from here on (WebDriver classic has no console log to read).
      await run(`window.__problems = [];
        const error = console.error;
        console.error = (...args) => (__problems.push(args.map(String).join(' ')), error.apply(console, args));
        addEventListener('error', (e) => __problems.push(String(e.message)));
        addEventListener('unhandledrejection', (e) => __problems.push(String(e.reason)));`);
      await until('reached choosing', state('choosing'));
      if (
        !(await run<boolean>(`return ${checkout}.shadowRoot.querySelector(arguments[0]).checkVisibility()`, method))
      ) {
        await click(
          `return ${checkout}.shadowRoot.querySelector('[part="method-group"][data-kind="qris"] button.kind')`,
        );
      }
      await click(`return ${checkout}.shadowRoot.querySelector('${method}')`);
      await until('reached pending', state('pending'));
      assert.ok(
        await run<boolean>(`return !!${checkout}.shadowRoot.querySelector('[part="qr"] svg')`),
        'the QR code is shown',
      );
      await until("enabled the sandbox's pay button", `return !document.querySelector('#pay').disabled`);
      await click(`return document.querySelector('#pay')`);
      await until('reached completed', state('completed'));
      assert.match(
        await run<string>(`return ${checkout}.shadowRoot.querySelector('[part="result"]').textContent`),
        /Payment received/,
      );
      assert.deepEqual(await run<string[]>('return window.__problems'), []);
    } finally {
      if (session) await webdriver('DELETE', `/session/${session}`).catch(() => {});
      await driver.stop();
    }
  });
});
