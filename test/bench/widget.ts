// `npm run bench` (widget part): the gzipped size of <kasir-checkout> against its 16 KB budget, everything a
// shopper downloads in a full QRIS payment, and the time from the payment (the sandbox's pay call) to the
// completed screen, with server-sent events and with polling only. Real `npm start`, real Chromium.
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import { launch, startKasir, waitForState, WIDGET_BUDGET_BYTES as BUDGET_BYTES, type Kasir } from '../e2e/harness';

const RUNS = Number(process.env.BENCH_WIDGET_RUNS || 7);

const kb = (bytes: number) => `${(bytes / 1024).toFixed(2)} KB`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Opens the demo, chooses QRIS, and returns the page (optionally with the event stream hidden from the element). */
async function qrisPending(browser: Browser, kasir: Kasir, pollingOnly: boolean) {
  const context = await browser.newContext();
  const page = await context.newPage();
  if (pollingOnly) {
    // The same backend, but the element is told there is no event stream: it polls.
    await page.route(/\/api\/checkouts(\/[^/]+)?$/, async (route) => {
      const response = await route.fetch();
      const body = await response.json();
      if (body?.data?.capabilities) body.data.capabilities.events = false;
      await route.fulfill({ response, json: body });
    });
  }
  await page.goto(kasir.url);
  await waitForState(page, 'choosing');
  await page.locator('kasir-checkout [part="method"][data-method="QRIS"]').click();
  await waitForState(page, 'pending');
  // Let a poll cycle or the stream settle, so the payment lands at a random point of the cycle.
  await page.waitForTimeout(500 + Math.random() * 3000);
  return { context, page };
}

/** Milliseconds from the start of the pay call to the completed screen being rendered. */
async function payToCompleted(page: Page) {
  return page.evaluate(async () => {
    const el = document.querySelector('kasir-checkout')!;
    const id = (el as unknown as { checkout: { id: string } }).checkout.id;
    const done = new Promise<number>((resolve) =>
      el.addEventListener('kasir-completed', () => requestAnimationFrame(() => resolve(performance.now())), { once: true }),
    );
    const start = performance.now();
    await fetch(`/api/sandbox/checkouts/${id}/pay`, { method: 'POST' });
    return (await done) - start;
  });
}

async function downloads(browser: Browser, kasir: Kasir) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const seen: Array<{ url: string; type: string; gz: number }> = [];
  page.on('response', async (response) => {
    const body = await response.body().catch(() => null);
    if (!body) return;
    seen.push({ url: response.url(), type: response.request().resourceType(), gz: gzipSync(body).length });
  });
  await page.goto(kasir.url);
  await waitForState(page, 'choosing');
  await page.locator('kasir-checkout [part="method"][data-method="QRIS"]').click();
  await waitForState(page, 'pending');
  await page.click('#pay');
  await waitForState(page, 'completed');
  await page.waitForTimeout(300);
  await context.close();
  const sum = (pick: (x: (typeof seen)[number]) => boolean) => seen.filter(pick).reduce((n, x) => n + x.gz, 0);
  return {
    widgetJs: sum((x) => x.url.endsWith('/kasir-checkout.js')),
    api: sum((x) => x.url.includes('/api/') && !x.url.includes('/sandbox/')),
    logos: sum((x) => x.type === 'image' && !x.url.includes('favicon')),
    demo: sum((x) => !x.url.includes('/api/') && !x.url.endsWith('/kasir-checkout.js') && x.type !== 'image'),
  };
}

export async function run() {
  console.log('\n<kasir-checkout> widget');
  // `npm run bench` builds first.
  const widget = readFileSync('widget/dist/browser/kasir-checkout.js');
  const gz = gzipSync(widget, { level: 9 }).length;
  console.log(`  widget module (widget/dist/browser/kasir-checkout.js)     ${kb(widget.length)} raw, ${kb(gz)} gzipped (budget ${kb(BUDGET_BYTES)}: ${gz <= BUDGET_BYTES ? 'within' : 'OVER'})`);

  const kasir = await startKasir();
  const browser = await launch();
  try {
    const d = await downloads(browser, kasir);
    console.log(`  full QRIS payment, code the shopper downloads     ${kb(d.widgetJs)} gzipped (the one module; nothing lazy-loaded)`);
    console.log(`    plus API JSON ${kb(d.api)}, method logos ${kb(d.logos)} (gzipped); the demo page itself ${kb(d.demo)}`);
    for (const mode of ['SSE', 'polling only'] as const) {
      const times: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const { context, page } = await qrisPending(browser, kasir, mode !== 'SSE');
        times.push(await payToCompleted(page));
        await context.close();
      }
      console.log(
        `  payment to completed screen, ${mode.padEnd(13)}      median ${median(times).toFixed(0)} ms, ` +
          `min ${Math.min(...times).toFixed(0)} ms, max ${Math.max(...times).toFixed(0)} ms (${RUNS} runs)`,
      );
    }
  } finally {
    await browser.close();
    await kasir.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
