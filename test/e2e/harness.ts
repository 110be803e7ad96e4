// End-to-end harness: the real `npm start` (payment-service sandbox + merchant backend + demo) on spare ports with
// a fresh data dir, and Debian's Chromium driven by playwright-core.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import { chromiumArgs, chromiumPath } from '../support/chromium';

/**
 * The size budget: at most 17 KB gzipped for all the code a shopper downloads in a full QRIS payment (Lit as
 * published; the measured sizes: docs/benchmarks.md, "Where the targets stand").
 */
export const WIDGET_BUDGET_BYTES = 17 * 1024;

export interface Kasir {
  url: string;
  providerUrl: string;
  /** Its data dir (sandbox.json: the service's credentials). */
  dataDir: string;
  /** Everything it wrote so far (the demo's hooks log one JSON line each). */
  output(): string;
  stop(): Promise<void>;
}

export async function sparePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts `npm start`'s compiled server, dist/server/start.js (`npm test` builds it first: `npm run build`), of the
 * checkout at `root` (the bench runs an earlier commit's build beside this one).
 */
export async function startKasir(env: Record<string, string> = {}, root = '.'): Promise<Kasir> {
  const [port, providerPort] = [await sparePort(), await sparePort()];
  const dataDir = mkdtempSync(join(tmpdir(), 'kasir-e2e-'));
  const child: ChildProcess = spawn(process.execPath, ['dist/server/start.js'], {
    cwd: root,
    env: { ...process.env, PORT: String(port), PROVIDER_PORT: String(providerPort), KASIR_DATA_DIR: dataDir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const started = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`kasir did not start in 60 s:\n${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk;
      if (output.includes('demo shop on http')) {
        clearTimeout(timer);
        resolve();
      }
      if (output.includes('[merchant] not started')) {
        clearTimeout(timer);
        reject(new Error(`the merchant backend did not start:\n${output}`));
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`kasir exited with ${code}:\n${output}`));
    });
  });
  try {
    await started;
  } catch (err) {
    // A server that did not start is not left running: the test file would otherwise never end.
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  return {
    url: `http://localhost:${port}`,
    providerUrl: `http://localhost:${providerPort}`,
    dataDir,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
        if (child.exitCode === null) child.kill('SIGKILL');
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export function launch(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath, args: chromiumArgs, headless: true });
}

/** The element's phase, as its reflected `state` attribute says. */
export async function waitForState(page: Page, state: string, timeout = 20_000) {
  await page.waitForSelector(`kasir-checkout[state="${state}"]`, { timeout });
}

/** A fresh shopper (own context and sessionStorage) on the demo page with the methods on screen; `problems` collects console errors. */
export async function openShopper(
  browser: Browser,
  url: string,
  options: BrowserContextOptions = {},
): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, ...options });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
  page.on('pageerror', (e) => problems.push(String(e)));
  await page.goto(url);
  await waitForState(page, 'choosing');
  return { context, page, problems };
}

/**
 * A method's button, shown: a list of more than 6 methods folds each kind into a closed group (docs/design.md, "The
 * shopper's choice, on any device"), opened here by a click on its group's button, as a shopper would.
 */
export async function showMethod(page: Page, code: string) {
  const method = page.locator(`kasir-checkout [part="method"][data-method="${code}"]`);
  if (!(await method.isVisible())) {
    const kind = await method.evaluate((e) => e.closest<HTMLElement>('[part="method-group"]')?.dataset.kind);
    await page.locator(`kasir-checkout [part="method-group"][data-kind="${kind}"] button.kind`).click();
  }
  return method;
}

/** Picks a method by its data-method (opening its group) and waits for the pending deposit. */
export async function chooseMethod(page: Page, code: string) {
  await (await showMethod(page, code)).click();
  await waitForState(page, 'pending');
}
