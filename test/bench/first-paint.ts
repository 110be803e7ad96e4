// `npm run bench` (first-paint part): the shopper's first paint on a mid-range phone over a mobile
// network, as Lighthouse's mobile profile judges a page: Chromium with a 4x CPU slowdown (CDP
// Emulation.setCPUThrottlingRate) and slow 4G (Network.emulateNetworkConditions: 1.6 Mbit/s down, 750 kbit/s up,
// 150 ms round trip; each CORS preflight, which the emulation does not slow, held as long by a proxy in front of the
// backend), 390 px wide, the element on a plain page of another origin (a shop) loading the script and the
// widget API from `npm start`'s merchant backend (dist/server/start.js). Each run is a fresh browser context (cold
// cache, no remembered method). Measured in the page: navigation to the method list painted, the tap on QRIS to its QR
// painted, and the layout shifts (CLS, shifts within 500 ms of an input excluded, as the metric does). Targets: method
// list <= 1.0 s (800 ms for a checkout the shop's server made), tap to QR <= 350 ms, CLS 0. Then the same with what a shop can add to its page to cut a round trip:
// a preconnect to the API's origin, a modulepreload of the script, a checkout created by the shop's server and passed
// in as `checkout-id`, all three, and the script and /api served from the shop's own origin. The yardstick in the same run: the plain page with no element, its first
// contentful paint under the same throttling. Last, a checkout the shop's server made on a page of the shop's origin,
// without and with the element rendered with the page (kasir.renderCheckout, docs/server-rendering.md): for that one
// the target is the method list within 50 ms of the page's first contentful paint.
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Browser, BrowserContext } from 'playwright-core';
import { createKasirApi, type KasirApi } from '../../server/merchant/index';
import { launch, showMethod, sparePort, startKasir, type Kasir } from '../e2e/harness';
import { forward } from '../support/forward';

const QUICK = process.argv.includes('--quick');
const RUNS = Number(process.env.BENCH_FIRST_PAINT_RUNS || (QUICK ? 3 : 7));
/** A run slower than this is reported as not finished, with what it measured (a stalled page, a starved machine). */
const RUN_TIMEOUT_MS = 30_000;

/** Slow 4G as Lighthouse's mobile profile gives it: bytes per second, milliseconds. */
const NETWORK = {
  offline: false,
  latency: 150,
  downloadThroughput: (1.6 * 1024 * 1024) / 8,
  uploadThroughput: (750 * 1024) / 8,
};
const CPU_SLOWDOWN = 4;

/**
 * The method list: 1 s for a page-priced checkout, 800 ms for one the shop's server made (docs/design.md, "The
 * shopper's choice, on any device"); tap to QR.
 */
const TARGETS = { list: 1000, serverList: 800, qr: 350, listAfterFcp: 50 };

/** What the shop's page adds before the element (the variants measured). */
interface Variant {
  label: string;
  preconnect?: boolean;
  modulepreload?: boolean;
  serverCheckout?: boolean;
  /** The page preloads the server-made checkout's GET and its language's words (docs/orders.md), beside the script. */
  preloadCheckout?: boolean;
  bare?: boolean;
  sameOrigin?: boolean;
  /** The shop's server renders the element with the page (kasir.renderCheckout): the list is in its HTML. */
  rendered?: boolean;
}
export const VARIANTS: Variant[] = [
  { label: 'plain page, no element (yardstick: its first contentful paint)', bare: true },
  { label: 'as installed (README: script tag, amount + currency)' },
  { label: '+ <link rel="preconnect"> to the API origin', preconnect: true },
  { label: '+ <link rel="modulepreload"> of the script', modulepreload: true },
  { label: "checkout created on the shop's server (checkout-id)", serverCheckout: true },
  {
    label: 'checkout-id + preloads of it and the words (docs/orders.md)',
    serverCheckout: true,
    preloadCheckout: true,
  },
  { label: 'all three', preconnect: true, modulepreload: true, serverCheckout: true },
  { label: "script and /api on the shop's own origin (no CORS)", sameOrigin: true },
  { label: "checkout-id, script and /api on the shop's origin (no SSR)", serverCheckout: true, sameOrigin: true },
  {
    label: 'the same, rendered with the page (renderCheckout)',
    serverCheckout: true,
    sameOrigin: true,
    rendered: true,
  },
];
/** `BENCH_FIRST_PAINT_VARIANTS=0,8,9` measures only those (by their place above); all by default. */
const ONLY = process.env.BENCH_FIRST_PAINT_VARIANTS?.split(',').map(Number);

/** The page's own figures, recorded in the page (an init script): times from navigation start, in ms. */
const RECORDER = `(() => {
  const fp = (window.__fp = { cls: 0 });
  new PerformanceObserver((list) => { for (const e of list.getEntries()) if (!e.hadRecentInput) fp.cls += e.value; })
    .observe({ type: 'layout-shift', buffered: true });
  new PerformanceObserver((list) => { for (const e of list.getEntries()) if (e.name === 'first-contentful-paint') fp.fcp = e.startTime; })
    .observe({ type: 'paint', buffered: true });
  // The tap: the click that reached the QRIS button (its event time), once armed.
  addEventListener('click', (e) => { if (fp.armed && fp.tap === undefined) fp.tap = e.timeStamp; }, true);
  // Each frame, what the element shows (its shadow root is not seen by a MutationObserver on the document).
  const frame = () => {
    const root = document.querySelector('kasir-checkout')?.shadowRoot;
    if (fp.list === undefined && root?.querySelector('[part="method"]')) fp.list = performance.now();
    if (fp.tap !== undefined && fp.qr === undefined && root?.querySelector('[part="qr"] svg')) fp.qr = performance.now();
    if (fp.qr === undefined) requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
})();`;

interface Figures {
  list?: number;
  tap?: number;
  qr?: number;
  fcp?: number;
  cls: number;
}

/** The shop's page of `variant`, the element's API on `api` (another origin) unless the variant has it on the shop's. */
export function page(api: string, variant: Variant, checkoutId?: string, rendered?: string): string {
  const origin = variant.sameOrigin ? '' : api;
  const script = `${origin}/kasir-checkout.js`;
  const head = [
    variant.preconnect ? `<link rel="preconnect" href="${api}" crossorigin>` : '',
    variant.modulepreload ? `<link rel="modulepreload" href="${script}">` : '',
    variant.preloadCheckout && checkoutId
      ? `<link rel="preload" as="fetch" crossorigin href="${origin}/api/checkouts/${checkoutId}">` +
        `<link rel="modulepreload" href="${origin}/kasir-checkout-words-en.js">`
      : '',
    variant.bare ? '' : `<script type="module" src="${script}"></script>`,
  ].join('');
  const element = variant.bare
    ? ''
    : rendered
      ? rendered
      : checkoutId
        ? `<kasir-checkout endpoint="${origin}/api" checkout-id="${checkoutId}"></kasir-checkout>`
        : `<kasir-checkout endpoint="${origin}/api" amount="150000" currency="IDR"></kasir-checkout>`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>A shop</title>${head}<style>body{font-family:sans-serif;margin:16px}</style></head>
<body><h1>Your order</h1><p>1 x Kopi susu, Rp 150.000</p>${element}</body></html>`;
}

/** One shopper's visit: a fresh context, throttled, the page opened; the QRIS tap when the page has the element. */
export async function visit(
  browser: Browser,
  url: string,
  withElement: boolean,
): Promise<{ figures: Figures; finished: boolean }> {
  const context: BrowserContext = await browser.newContext({ viewport: { width: 390, height: 844 } });
  try {
    await context.addInitScript(RECORDER);
    const tab = await context.newPage();
    const cdp = await context.newCDPSession(tab);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', NETWORK);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: CPU_SLOWDOWN });
    const read = () => tab.evaluate(() => (window as unknown as { __fp: Figures }).__fp);
    try {
      await tab.goto(url, { timeout: RUN_TIMEOUT_MS });
      if (!withElement) {
        await tab.waitForFunction(() => (window as unknown as { __fp: Figures }).__fp.fcp !== undefined, undefined, {
          timeout: RUN_TIMEOUT_MS,
          polling: 50,
        });
        return { figures: await read(), finished: true };
      }
      await tab.waitForFunction(() => (window as unknown as { __fp: Figures }).__fp.list !== undefined, undefined, {
        timeout: RUN_TIMEOUT_MS,
        polling: 50,
      });
      const qris = await showMethod(tab, 'QRIS'); // opens its group first when the list is folded (not the tap timed)
      await tab.evaluate(() => void ((window as unknown as { __fp: { armed: boolean } }).__fp.armed = true));
      await qris.click();
      await tab.waitForFunction(() => (window as unknown as { __fp: Figures }).__fp.qr !== undefined, undefined, {
        timeout: RUN_TIMEOUT_MS,
        polling: 50,
      });
      await tab.waitForTimeout(300); // a late shift after the QR would count
      return { figures: await read(), finished: true };
    } catch {
      return { figures: await read().catch((): Figures => ({ cls: Number.NaN })), finished: false };
    }
  } finally {
    await context.close();
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : Number.NaN;
};
const ms = (x: number) => (Number.isFinite(x) ? `${Math.round(x)} ms` : 'n/a');

/** What renders the element with the page: a shop's `createKasirApi` (of this build, or of an earlier one's). */
export type Renderer = Pick<KasirApi, 'renderCheckout' | 'close'>;

/**
 * The shop's own server mounting createKasirApi (README, "Any server"), for renderCheckout: on the same payment service
 * as npm start's merchant backend (its data dir's sandbox.json), which serves the page's /api through the shop's
 * origin. `create` is the createKasirApi of the build measured.
 */
export function shopRenderer(kasir: Kasir, create: typeof createKasirApi = createKasirApi): Renderer {
  const credentials = JSON.parse(readFileSync(join(kasir.dataDir, 'sandbox.json'), 'utf8'));
  return create({
    baseUrl: credentials.baseUrl,
    checkoutUrl: credentials.checkoutUrl,
    clientId: credentials.clientId,
    clientSecret: credentials.clientSecret,
    accessToken: credentials.accessToken,
    webhookSecret: credentials.webhookSecret,
    sandbox: true,
  });
}

/** The shop's server and the API's origin its pages name. */
export interface Shop {
  /** The merchant backend as a page of another origin reaches it. */
  api: string;
  close(): void;
}

/**
 * The shop's server on `port`: each variant's page at `/?v=<its place in VARIANTS>`, everything else forwarded to
 * kasir's merchant backend (the script, its chunks and /api on the shop's own origin). Without `renderer` the rendered
 * variant is answered 404. A page of another origin reaches the backend through a proxy of its own that holds each
 * CORS preflight for the emulated round trip: DevTools' emulation slows the page's requests but not the preflights
 * Chromium makes for them (here a cross-origin JSON POST took about 20 ms more than a simple GET, not a round trip),
 * where on a real network each is one.
 */
export async function startShop(port: number, kasir: Kasir, renderer?: Renderer): Promise<Shop> {
  const shop = `http://127.0.0.1:${port}`;
  const upstream = new URL(kasir.url);
  const server = createServer((req, res) => {
    // The element's script, its chunks and /api through the shop's own origin: what mounting createKasirApi in the
    // shop's server (README, "Any server") gives.
    if (req.url !== '/' && !req.url?.startsWith('/?')) return forward(req, res, upstream);
    const n = Number(new URL(req.url ?? '/', shop).searchParams.get('v'));
    const variant = VARIANTS[n];
    if (!variant || (variant.rendered && !renderer)) return void res.writeHead(404).end();
    // Gzipped, as any shop's server or CDN sends its HTML (the rendered element included).
    const answer = (checkoutId?: string, rendered?: string) => {
      res.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
        'content-encoding': 'gzip',
      });
      res.end(gzipSync(page(api, variant, checkoutId, rendered)));
    };
    if (!variant.serverCheckout) return answer();
    // The shop's server creates the checkout before it answers the page (server to server: no CORS, no shopper's
    // round trip); in a shop that mounts createKasirApi this is an in-process kasir.createCheckout().
    fetch(`${kasir.url}/api/checkouts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ amount: '150000', currency: 'IDR' }),
    })
      .then((r) => r.json() as Promise<{ data: { id: string } }>)
      .then(async ({ data }) =>
        answer(data.id, variant.rendered ? await renderer!.renderCheckout(data.id, { locale: 'en' }) : undefined),
      )
      .catch(() => res.writeHead(502).end());
  });
  const apiProxy = createServer((req, res) =>
    forward(req, res, upstream, { delayMs: req.headers['access-control-request-method'] ? NETWORK.latency : 0 }),
  );
  const apiPort = await sparePort();
  // localhost: another origin than the shop's 127.0.0.1, as npm start's backend was before.
  const api = `http://localhost:${apiPort}`;
  await Promise.all([
    new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve)),
    new Promise<void>((resolve) => apiProxy.listen(apiPort, resolve)),
  ]);
  return {
    api,
    close() {
      server.close();
      apiProxy.close();
    },
  };
}

export async function run(): Promise<void> {
  const shopPort = await sparePort();
  const shop = `http://127.0.0.1:${shopPort}`; // the merchant backend is on localhost: another origin
  const kasir = await startKasir({ KASIR_ALLOWED_ORIGINS: shop, KASIR_CHECKOUT_RATE_LIMIT: '100000' });
  const shopApi = shopRenderer(kasir);
  let server: Shop | undefined;
  const browser = await launch();
  try {
    server = await startShop(shopPort, kasir, shopApi);
    // Warm-up: the servers' JIT and caches, Chromium's first start (not counted).
    const measured = (i: number) => !ONLY || ONLY.includes(i);
    for (let i = 0; i < VARIANTS.length; i++)
      if (measured(i)) await visit(browser, `${shop}/?v=${i}`, !VARIANTS[i].bare);

    console.log(
      `\nshopper's first paint: Chromium, ${CPU_SLOWDOWN}x CPU slowdown, slow 4G (1.6 Mbit/s down, 750 kbit/s up, 150 ms RTT, DevTools` +
        ` emulation), 390 px, the element on a page of another origin, npm start's servers; median of ${RUNS} cold visits`,
    );
    const results: Array<{
      variant: Variant;
      list: number[];
      qr: number[];
      fcp: number[];
      /** Each visit's method list after its first contentful paint. */
      afterFcp: number[];
      cls: number[];
      unfinished: number;
    }> = VARIANTS.map((variant) => ({ variant, list: [], qr: [], fcp: [], afterFcp: [], cls: [], unfinished: 0 }));
    // In alternation, so a burst of other work on the shared machine falls on every variant alike.
    for (let r = 0; r < RUNS; r++) {
      for (const [i, result] of results.entries()) {
        if (!measured(i)) continue;
        const { figures, finished } = await visit(browser, `${shop}/?v=${i}`, !result.variant.bare);
        if (!finished) result.unfinished++;
        if (figures.fcp !== undefined) result.fcp.push(figures.fcp);
        if (figures.list !== undefined) result.list.push(figures.list);
        if (figures.list !== undefined && figures.fcp !== undefined) result.afterFcp.push(figures.list - figures.fcp);
        if (figures.tap !== undefined && figures.qr !== undefined) result.qr.push(figures.qr - figures.tap);
        if (finished) result.cls.push(figures.cls);
      }
    }
    const baseline = median(results[0].fcp.length ? results[0].fcp : results.flatMap((r) => r.fcp));
    for (const { variant, list, qr, fcp, afterFcp, cls, unfinished } of results) {
      if (!fcp.length) continue; // not measured
      const cut = unfinished
        ? `; ${unfinished} of ${RUNS} visits did not finish in ${RUN_TIMEOUT_MS / 1000} s (figures of those that did)`
        : '';
      if (variant.bare) {
        console.log(`  ${variant.label.padEnd(62)} first contentful paint ${ms(median(fcp))}${cut}`);
        continue;
      }
      const l = median(list);
      const q = median(qr);
      const listTarget = variant.serverCheckout ? TARGETS.serverList : TARGETS.list;
      const worstCls = cls.length ? Math.max(...cls) : Number.NaN;
      console.log(
        `  ${variant.label.padEnd(62)} method list ${ms(l)} (${(l / baseline).toFixed(1)}x the plain page; target <= ${listTarget.toLocaleString('en')} ms: ` +
          `${l <= listTarget ? 'met' : 'NOT met'}), tap to QR ${ms(q)} (target <= ${TARGETS.qr} ms: ${q <= TARGETS.qr ? 'met' : 'NOT met'}), ` +
          `CLS ${Number.isFinite(worstCls) ? worstCls.toFixed(3) : 'n/a'} (worst run; target 0: ${worstCls === 0 ? 'met' : 'NOT met'})` +
          `   [list ${Math.round(Math.min(...list))}-${Math.round(Math.max(...list))}, QR ${Math.round(Math.min(...qr))}-${Math.round(Math.max(...qr))}]${cut}`,
      );
      const after = median(afterFcp);
      console.log(
        `  ${''.padEnd(62)} first contentful paint ${ms(median(fcp))} [${Math.round(Math.min(...fcp))}-${Math.round(Math.max(...fcp))}], ` +
          `method list ${ms(after)} after it [${Math.round(Math.min(...afterFcp))}-${Math.round(Math.max(...afterFcp))}]` +
          (variant.rendered
            ? ` (target <= ${TARGETS.listAfterFcp} ms: ${after <= TARGETS.listAfterFcp ? 'met' : 'NOT met'})`
            : ''),
      );
    }
  } finally {
    await browser.close();
    server?.close();
    await shopApi.close();
    await kasir.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
