// Firefox ESR for web-test-runner, through puppeteer-core (WebDriver BiDi): a launcher of the runner's documented
// BrowserLauncher shape, with a fresh tab for each test file. (@web/test-runner-chrome's launcher reuses one tab,
// and in Firefox a Tab past a page's last control moves the keyboard focus to the browser's toolbar, where it stays
// in that tab: every later file's page then has no focus, and a key does not do what it does, e.g. Enter clicks
// nothing. A new tab has the focus in its page.)
import puppeteer from 'puppeteer-core';
import { firefoxLaunchOptions } from './browsers.mjs';

export class FirefoxLauncher {
  name = 'Firefox';
  /** puppeteer's, so @web/test-runner-commands (sendKeys, setViewport, ...) drive its pages through getPage. */
  type = 'puppeteer';
  #browser;
  #pages = new Map();

  async initialize() {}

  async startSession(sessionId, url) {
    this.#browser ??= puppeteer.launch(firefoxLaunchOptions());
    const page = await (await this.#browser).newPage();
    this.#pages.set(sessionId, page);
    await page.setViewport({ width: 800, height: 600 });
    await page.goto(url);
  }

  isActive(sessionId) {
    return this.#pages.has(sessionId);
  }

  getBrowserUrl(sessionId) {
    return this.getPage(sessionId).url();
  }

  getPage(sessionId) {
    const page = this.#pages.get(sessionId);
    if (!page) throw new Error(`no Firefox page for test session ${sessionId}`);
    return page;
  }

  async startDebugSession() {
    throw new Error('debugging in Firefox is not set up here: debug in Chromium (KASIR_BROWSERS=chromium)');
  }

  async stopSession(sessionId) {
    const page = this.getPage(sessionId);
    this.#pages.delete(sessionId);
    await page.close();
    return {};
  }

  async stop() {
    await (await this.#browser)?.close();
  }
}
