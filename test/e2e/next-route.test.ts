// The Next.js route-handler example (demo/next/app/api/[...kasir]/route.ts), served the way Next's router calls it
// (each /api/* request to the export named after its method), with a plain page embedding the element: a shopper
// pays through it in Chromium, and the webhook comes back through the same route.
import { serve, type ServerType } from '@hono/node-server';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { startSandbox, type RunningSandbox } from '../../server/provider/process/main';
import { launch, showMethod, sparePort, waitForState } from './harness';

const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>next shop</title>
<script type="module" src="/kasir-checkout.js"></script></head>
<body><kasir-checkout endpoint="/api" amount="99000" currency="IDR"></kasir-checkout></body></html>`;

describe('the Next.js route handler example, end to end', () => {
  let sandbox: RunningSandbox;
  let server: ServerType;
  let browser: Browser;
  let url: string;
  let dataDir: string;
  const logged: string[] = [];
  const log = console.log;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'kasir-next-'));
    const port = await sparePort();
    url = `http://localhost:${port}`;
    sandbox = await startSandbox({
      env: {},
      port: 0,
      dataDir,
      scryptN: 2 ** 10,
      webhookUrl: `${url}/api/webhooks/kasir`,
    });
    const c = sandbox.credentials;
    Object.assign(process.env, {
      KASIR_BASE_URL: c.baseUrl,
      KASIR_CLIENT_ID: c.clientId,
      KASIR_CLIENT_SECRET: c.clientSecret,
      KASIR_ACCESS_TOKEN: c.accessToken,
      KASIR_WEBHOOK_SECRET: c.webhookSecret,
      KASIR_SANDBOX: 'true',
    });
    const { GET, POST, OPTIONS } = await import('../../demo/next/app/api/[...kasir]/route');
    const route: Record<string, typeof GET> = { GET, POST, OPTIONS };
    // The element's script and the chunks beside it, as a shop serves them (the merchant backend does it this way too).
    const widgetDir = dirname(fileURLToPath(import.meta.resolve('@kasir/checkout/kasir-checkout.js')));
    console.log = (...args: unknown[]) => {
      logged.push(args.join(' '));
    };
    server = serve({
      port,
      fetch: (request) => {
        const { pathname } = new URL(request.url);
        if (pathname.startsWith('/api/'))
          return route[request.method]?.(request) ?? new Response(null, { status: 405 });
        if (/^\/kasir-checkout[\w-]*\.js$/.test(pathname)) {
          return new Response(readFileSync(join(widgetDir, pathname.slice(1))), {
            headers: { 'content-type': 'text/javascript' },
          });
        }
        return new Response(PAGE, { headers: { 'content-type': 'text/html' } });
      },
    });
    browser = await launch();
  });
  after(async () => {
    console.log = log;
    await browser?.close();
    server?.close();
    await sandbox?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('pays a virtual account through the route handlers and runs the completion hook once', async () => {
    const page = await browser.newPage();
    await page.goto(url);
    await waitForState(page, 'choosing');
    await (await showMethod(page, 'BCA_VA')).click();
    await waitForState(page, 'pending');
    // The element remembers its checkout's id for a reload.
    const id = await page.evaluate(
      () => Object.entries(sessionStorage).find(([key]) => key.startsWith('kasir-checkout:'))?.[1],
    );
    assert.ok(id, 'the element remembered its checkout');
    const paid = await fetch(`${url}/api/sandbox/checkouts/${id}/pay`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(paid.status, 200);
    await waitForState(page, 'completed');
    const deadline = Date.now() + 10_000;
    while (!logged.some((line) => line.includes(`checkout ${id}`)) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    assert.equal(logged.filter((line) => line.includes(`checkout ${id}`) && line.includes('paid')).length, 1);
    await page.close();
  });
});
