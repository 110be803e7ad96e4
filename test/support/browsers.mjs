// The three browsers the tests drive (docs/browsers.md): Debian's Chromium, Debian's Firefox ESR (WebDriver BiDi,
// through puppeteer) and WebKitGTK's MiniBrowser (WebDriver classic, through WebKitWebDriver, on an X display of its
// own made by Xvfb). Test tools cannot download browsers here, so each one is a Debian package.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';

export const chromiumPath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
export const firefoxPath = process.env.FIREFOX_PATH || '/usr/bin/firefox-esr';
export const webkitDriverPath = process.env.WEBKIT_DRIVER_PATH || '/usr/bin/WebKitWebDriver';
export const miniBrowserPath = process.env.MINIBROWSER_PATH || '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';
const xvfbPath = '/usr/bin/Xvfb';

/** What each browser needs on the machine, and the Debian package that brings it. */
export const browserNeeds = {
  chromium: [{ path: chromiumPath, pkg: 'chromium' }],
  firefox: [{ path: firefoxPath, pkg: 'firefox-esr' }],
  webkit: [
    { path: webkitDriverPath, pkg: 'webkit2gtk-driver' },
    { path: miniBrowserPath, pkg: 'webkit2gtk-driver' },
    { path: xvfbPath, pkg: 'xvfb', unlessDisplay: true },
  ],
};

export const allBrowsers = /** @type {const} */ (['chromium', 'firefox', 'webkit']);

/**
 * The browsers asked for by KASIR_BROWSERS (a comma list of chromium, firefox, webkit), or `fallback`; an unknown
 * name is an error, never quietly dropped.
 */
export function wantedBrowsers(fallback = allBrowsers) {
  const raw = process.env.KASIR_BROWSERS?.trim();
  if (!raw) return [...fallback];
  const names = raw
    .split(',')
    .map((n) => n.trim().toLowerCase())
    .filter(Boolean);
  const unknown = names.filter((n) => !allBrowsers.includes(n));
  if (unknown.length)
    throw new Error(`KASIR_BROWSERS names ${unknown.join(', ')}: the browsers are ${allBrowsers.join(', ')}`);
  return names;
}

/** The files `browser` needs that are not on this machine (Xvfb only when there is no DISPLAY to use). */
export function missingFor(browser) {
  return browserNeeds[browser].filter((need) => !(need.unlessDisplay && process.env.DISPLAY) && !existsSync(need.path));
}

/** The Chrome DevTools / BiDi launch options of Firefox ESR for puppeteer (and @web/test-runner-chrome). */
export const firefoxLaunchOptions = () => ({ browser: 'firefox', executablePath: firefoxPath, headless: true });

/**
 * WebKitWebDriver's session capabilities for MiniBrowser. Its window is at least 447 px wide: a narrower layout
 * needs a width of its own (an iframe) in the page.
 */
export const webkitCapabilities = () => ({
  browserName: 'MiniBrowser',
  'wdio:enforceWebDriverClassic': true,
  'webkitgtk:browserOptions': { binary: miniBrowserPath, args: ['--automation'] },
});

export async function sparePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
      server.close(() => resolve(port));
    });
  });
}

/** Stops a child process: SIGTERM, then SIGKILL if it is still there after 3 s. */
async function stopChild(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
  await exited;
  clearTimeout(timer);
}

/** Xvfb on a display number of its own choice (-displayfd: no clash with another Xvfb on the machine). */
async function startXvfb() {
  const child = spawn(xvfbPath, ['-displayfd', '3', '-screen', '0', '1280x1024x24', '-nolisten', 'tcp'], {
    stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
  });
  let errors = '';
  child.stderr.on('data', (chunk) => (errors += chunk));
  const display = await new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`Xvfb gave no display in 10 s:\n${errors}`)), 10_000);
    child.stdio[3].on('data', (chunk) => {
      out += chunk;
      if (out.includes('\n')) {
        clearTimeout(timer);
        resolve(`:${out.trim()}`);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`Xvfb exited with ${code}:\n${errors}`));
    });
  });
  return { display, stop: () => stopChild(child) };
}

/**
 * WebKitWebDriver on a spare port, on this machine's DISPLAY or on an Xvfb started for it; `stop()` ends both.
 * Fails with the missing package named when a binary is not installed.
 */
export async function startWebKitDriver() {
  const missing = missingFor('webkit');
  if (missing.length) {
    throw new Error(
      `WebKit needs ${missing.map((m) => `${m.path} (Debian's ${m.pkg})`).join(', ')}: apt-get install ${[...new Set(missing.map((m) => m.pkg))].join(' ')}`,
    );
  }
  const xvfb = process.env.DISPLAY ? undefined : await startXvfb();
  const port = await sparePort();
  const driver = spawn(webkitDriverPath, [`--port=${port}`], {
    env: { ...process.env, DISPLAY: xvfb?.display ?? process.env.DISPLAY },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let errors = '';
  driver.stderr.on('data', (chunk) => (errors += chunk));
  const stop = async () => {
    await stopChild(driver);
    await xvfb?.stop();
  };
  const deadline = Date.now() + 15_000;
  for (;;) {
    try {
      const status = await fetch(`http://127.0.0.1:${port}/status`);
      if (status.ok) break;
    } catch {
      // not listening yet
    }
    if (driver.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`WebKitWebDriver did not answer on port ${port}:\n${errors}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { port, url: `http://127.0.0.1:${port}`, stop };
}
