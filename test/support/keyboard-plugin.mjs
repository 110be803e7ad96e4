// A server command for the widget tests, press-chord: a chord of keys (e.g. Shift+Tab) in any of the three browsers.
// @web/test-runner-commands' sendKeys takes Playwright's 'Shift+Tab' in Chromium only, and has no down/up for
// WebDriver; this presses the keys down in order and lets them up, as a person does.

/** The keys a chord may name (each one known to Playwright, puppeteer and WebdriverIO by this name). */
const knownKeys = ['Shift', 'Control', 'Alt', 'Meta', 'Tab', 'Enter', 'Escape', 'Space'];

export function keyboardPlugin() {
  return {
    name: 'keyboard',
    async executeCommand({ command, payload, session }) {
      if (command !== 'press-chord') return undefined;
      const keys = payload?.keys;
      if (!Array.isArray(keys) || keys.length === 0 || !keys.every((k) => knownKeys.includes(k))) {
        throw new Error(`press-chord takes {keys: [...]} of ${knownKeys.join(', ')}`);
      }
      const { browser } = session;
      if (browser.type === 'playwright') {
        await browser.getPage(session.id).keyboard.press(keys.map((k) => (k === 'Space' ? ' ' : k)).join('+'));
      } else if (browser.type === 'puppeteer') {
        const keyboard = browser.getPage(session.id).keyboard;
        const names = keys.map((k) => (k === 'Space' ? ' ' : k));
        for (const key of names) await keyboard.down(key);
        for (const key of names.reverse()) await keyboard.up(key);
      } else if (browser.type === 'webdriver') {
        // WebdriverIO's keys() presses every key of its list down, then lets them all up: a chord.
        await browser.sendKeys(session.id, keys);
      } else {
        throw new Error(`press-chord does not know the browser type ${browser.type}`);
      }
      return true;
    },
  };
}
