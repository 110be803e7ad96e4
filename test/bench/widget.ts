// `npm run bench` (widget part): the gzipped size of <kasir-checkout>'s first paint (the method list: the entry and one
// locale's words) against its 13.25 KB budget and of each full payment (that and the view's chunk) against its budget:
// 17.25 KB by QRIS or virtual account, 18 KB by e-wallet (three flows), 19 KB by crypto, with Lit as published, and what a
// modal checkout adds (its dialog's chunk, 0.75 KB); each file gzipped on its own (Node's zlib, level 9, as test/e2e/size.test.ts);
// what the browser downloads in a full QRIS and a full crypto payment, counted from the page's network; and the time
// from the payment (the sandbox's pay call) to the completed screen, with server-sent events and with polling only.
// Real `npm start`, real Chromium.
import { gzipSync } from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import { launch, showMethod, startKasir, waitForState, type Kasir } from '../e2e/harness';
import {
  FIRST_PAINT_BUDGET_BYTES,
  FLOW_BUDGET_BYTES,
  measureWidget,
  MODAL_BUDGET_BYTES,
  viewOf,
  WIDGET_DIR,
  type Download,
} from '../e2e/widget-build';

const RUNS = Number(process.env.BENCH_WIDGET_RUNS || (process.argv.includes('--quick') ? 3 : 7));

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
  await (await showMethod(page, 'QRIS')).click();
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
      el.addEventListener('kasir-completed', () => requestAnimationFrame(() => resolve(performance.now())), {
        once: true,
      }),
    );
    const start = performance.now();
    await fetch(`/api/sandbox/checkouts/${id}/pay`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
    });
    return (await done) - start;
  });
}

/** The widget's files: the entry and its chunks, as the merchant backend serves them. */
const isWidgetJs = (url: string) => /\/kasir-checkout(-[\w-]+)?\.js(\?|$)/.test(new URL(url).pathname);

/** What the browser downloads in a full payment by `code` on the demo page, each response gzipped (level 9); null when the demo does not offer it. */
async function downloads(browser: Browser, kasir: Kasir, code: string) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const seen: Array<{ url: string; type: string; gz: number; phase: 'first paint' | 'payment' }> = [];
  let phase: 'first paint' | 'payment' = 'first paint';
  const reading: Array<Promise<void>> = [];
  page.on('response', (response) => {
    const at = phase;
    reading.push(
      response.body().then(
        (body) =>
          void seen.push({
            url: response.url(),
            type: response.request().resourceType(),
            gz: gzipSync(body, { level: 9 }).length,
            phase: at,
          }),
        () => {},
      ),
    );
  });
  await page.goto(kasir.url);
  await waitForState(page, 'choosing');
  const choice = page.locator(`kasir-checkout [part="method"][data-method="${code}"]`);
  if (!(await choice.count())) {
    await context.close();
    return null;
  }
  phase = 'payment';
  await (await showMethod(page, code)).click();
  await waitForState(page, 'pending');
  await page.click('#pay');
  await waitForState(page, 'completed');
  await page.waitForTimeout(300);
  await Promise.all(reading);
  await context.close();
  const sum = (pick: (x: (typeof seen)[number]) => boolean) => seen.filter(pick).reduce((n, x) => n + x.gz, 0);
  const widget = seen.filter((x) => isWidgetJs(x.url));
  return {
    widgetFiles: widget.map((x) => `${new URL(x.url).pathname.slice(1)} (${x.phase})`),
    firstPaintJs: sum((x) => isWidgetJs(x.url) && x.phase === 'first paint'),
    widgetJs: sum((x) => isWidgetJs(x.url)),
    api: sum((x) => x.url.includes('/api/') && !x.url.includes('/sandbox/')),
    logos: sum((x) => x.type === 'image' && !x.url.includes('favicon')),
    demo: sum((x) => !x.url.includes('/api/') && !isWidgetJs(x.url) && x.type !== 'image'),
  };
}

const line = (label: string, d: Download, budget: number) =>
  `  ${label.padEnd(46)} ${kb(d.gz).padStart(9)} gzipped (${kb(d.raw)} raw; budget ${kb(budget)}: ${d.gz <= budget ? 'within' : 'OVER'})  ${d.files.join(' + ')}`;

export async function run() {
  console.log('\n<kasir-checkout> widget');
  // `npm run bench` builds first.
  const build = measureWidget();
  console.log(`  script-tag build (${WIDGET_DIR}), each file gzipped on its own (zlib level 9):`);
  console.log(line('first paint (method list): entry + one locale', build.firstPaint, FIRST_PAINT_BUDGET_BYTES));
  const flows = [
    ['qris', 'full QRIS payment'],
    ['crypto', 'full crypto payment'],
    ['va', 'full virtual account / bank transfer payment'],
    ['ewallet', 'full e-wallet payment'],
  ] as const;
  for (const [view, label] of flows) console.log(line(label, build.flows[view], FLOW_BUDGET_BYTES[view]));
  for (const [view, files] of Object.entries(build.onDemand)) {
    for (const file of files)
      console.log(
        `    on demand in ${view}: ${file} ${kb(build.files[file].gz)} gzipped (when the shopper presses its button)`,
      );
  }
  for (const file of build.entryOnDemand) {
    const { gz } = build.files[file];
    const when =
      viewOf(file) === 'modal'
        ? `with modal: its dialog, in its first paint and every payment; budget ${kb(MODAL_BUDGET_BYTES)}: ${gz <= MODAL_BUDGET_BYTES ? 'within' : 'OVER'}`
        : 'when something fails, or a payment is not as planned';
    console.log(`    on demand in the entry: ${file} ${kb(gz)} gzipped (${when})`);
  }

  const kasir = await startKasir();
  const browser = await launch();
  try {
    for (const [code, label] of [
      ['QRIS', 'QRIS'],
      ['USDC-POLYGON', 'crypto (USDC-POLYGON)'],
    ]) {
      const d = await downloads(browser, kasir, code);
      if (!d) {
        console.log(`  full ${label} payment in Chromium: the demo does not offer ${code}`);
        continue;
      }
      console.log(
        `  full ${label} payment in Chromium, widget code downloaded ${kb(d.widgetJs)} gzipped, ${kb(d.firstPaintJs)} of it before the method list`,
      );
      console.log(`    files: ${d.widgetFiles.join(', ')}`);
      console.log(
        `    plus API JSON ${kb(d.api)}, method logos ${kb(d.logos)} (gzipped); the demo page itself ${kb(d.demo)}`,
      );
    }
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
