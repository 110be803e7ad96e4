// The demo shop's server: @kasir/merchant's app (the widget API under /api, the widget at /kasir-checkout.js) plus
// what a shop of its own would add: its order endpoint (a server-created checkout for the React and Vue shops) and its
// pages (dist/demo at /, dist/demo-react at /react/, dist/demo-vue at /vue/), under a strict CSP.
import { serveStatic } from '@hono/node-server/serve-static';
import { createMerchantApp, type MerchantApp, type MerchantServerOptions } from '@kasir/merchant';
import { Hono, type Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { secureHeaders } from 'hono/secure-headers';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

/** The shop's catalogue: prices in IDR, decided here and never taken from the page. */
export const PRODUCTS: Readonly<Record<string, { name: string; price: number }>> = {
  kopi: { name: 'Gayo Arabica, single origin, 250 g', price: 135_000 },
  teh: { name: 'Java black tea, 100 g', price: 48_000 },
  gula: { name: 'Palm sugar, 500 g', price: 22_000 },
};
export const SHIPPING = 15_000;

export interface StorefrontOptions extends MerchantServerOptions {
  /** Where the built pages are (dist/demo, dist/demo-react, dist/demo-vue; default ./dist). */
  distDir?: string;
}

const errorBody = (status: number, message: string) => ({
  statusCode: status,
  error: status === 404 ? 'Not Found' : 'Bad Request',
  message,
});

export function createStorefront(options: StorefrontOptions): MerchantApp {
  const { distDir, ...merchantOptions } = options;
  const app = createMerchantApp(merchantOptions);
  const dist = resolve(distDir ?? 'dist');

  // POST /shop/orders {items: [{sku, quantity}]}: the shop prices the order and creates its checkout on the server.
  const shop = new Hono();
  shop.get('/products', (c) => c.json({ products: PRODUCTS, shipping: SHIPPING, currency: 'IDR' }));
  shop.post('/orders', async (c) => {
    const body = (await c.req.json().catch(() => null)) as { items?: unknown } | null;
    const items: unknown[] = Array.isArray(body?.items) ? body.items : [];
    if (!items.length || items.length > 20)
      return c.json(errorBody(400, 'items: send 1 to 20 items as {sku, quantity}'), 400);
    let amount = SHIPPING;
    for (const item of items) {
      // Each item an object (null, a string or a list is a bad order, not a failure of the shop).
      if (!item || typeof item !== 'object' || Array.isArray(item))
        return c.json(errorBody(400, 'items: each item is {sku, quantity}'), 400);
      const { sku, quantity } = item as { sku?: unknown; quantity?: unknown };
      // Own keys only: "constructor" or "__proto__" is no product.
      const product = typeof sku === 'string' && Object.hasOwn(PRODUCTS, sku) ? PRODUCTS[sku] : undefined;
      if (!product) return c.json(errorBody(400, `items: unknown sku ${JSON.stringify(sku)}`), 400);
      if (!Number.isInteger(quantity) || (quantity as number) < 1 || (quantity as number) > 10)
        return c.json(errorBody(400, 'items: quantity is a whole number from 1 to 10'), 400);
      amount += product.price * (quantity as number);
    }
    // A real shop stores the order (and the checkout id beside it) in its database; the demo hands the id to kasir,
    // which gives it back to onDepositCompleted.
    const orderId = `order_${randomUUID()}`;
    const checkout = await app.api.createCheckout({ amount: String(amount), currency: 'IDR', orderId });
    return c.json({ orderId, checkoutId: checkout.id, amount: String(amount), currency: 'IDR' }, 201);
  });
  shop.onError((err, c) => {
    if (err instanceof HTTPException) return c.json(errorBody(err.status, err.message), err.status);
    console.error('[demo] order failed:', err instanceof Error ? err.message : err);
    return c.json({ statusCode: 502, error: 'Bad Gateway', message: 'The order could not be created' }, 502);
  });
  app.route('/shop', shop);

  let providerOrigin = '';
  try {
    providerOrigin = new URL(app.api.config.baseUrl).origin;
  } catch {
    /* checked by createMerchantApp */
  }
  const pages = new Hono();
  pages.use(
    '*',
    secureHeaders({
      contentSecurityPolicy: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:', ...(providerOrigin ? [providerOrigin] : [])],
        connectSrc: ["'self'"],
        fontSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
      },
      referrerPolicy: 'strict-origin-when-cross-origin',
    }),
  );
  // GET /pay/:checkoutId (?lang=id): the order's payment page made on the shop's server (the checkout id from
  // POST /shop/orders), the method list in its HTML (renderCheckout: docs/server-rendering.md), so it paints with the
  // page; the element's script takes over.
  pages.get('/pay/:checkoutId', async (c) => {
    const locale = c.req.query('lang') === 'id' ? 'id' : 'en';
    const checkout = await app.api.renderCheckout(c.req.param('checkoutId'), { locale });
    c.header('Cache-Control', 'no-store');
    return c.html(payPage(locale, checkout));
  });
  // The single-page shops: their files, else their index.html (client-side routes).
  for (const [prefix, folder] of [
    ['/react', 'demo-react'],
    ['/vue', 'demo-vue'],
  ] as const) {
    const root = join(dist, folder);
    pages.get(prefix, (c) => c.redirect(`${prefix}/`, 301));
    const files = (c: Context, next: () => Promise<void>) =>
      existsSync(root)
        ? serveStatic({ root: relativeTo(root), rewriteRequestPath: (path) => path.slice(prefix.length) })(c, next)
        : next();
    pages.get(`${prefix}/*`, files, (c) => spaIndex(c, root));
  }
  pages.use('*', async (c, next) => {
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') return next();
    const root = join(dist, 'demo');
    if (!existsSync(join(root, 'index.html'))) {
      if (c.req.path === '/' || c.req.path === '/index.html') return c.html(NOT_BUILT);
      return next();
    }
    return serveStatic({ root: relativeTo(root) })(c, next);
  });
  app.route('/', pages);
  return app;
}

/** The server-made payment page: the element's script in the head, its markup (renderCheckout's) in the body. */
const payPage = (locale: string, checkout: string) => `<!doctype html>
<html lang="${locale}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>kasir demo: pay your order</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<script type="module" src="/kasir-checkout.js"></script>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:30rem;margin:1rem auto;padding:0 1rem;color:#222}</style>
</head><body>
<h1>${locale === 'id' ? 'Bayar pesanan Anda' : 'Pay your order'}</h1>
${checkout}
</body></html>
`;

/** serveStatic takes a root relative to the working directory. */
const relativeTo = (dir: string) => relative(process.cwd(), dir) || '.';

function spaIndex(c: Context, root: string) {
  const index = join(root, 'index.html');
  if (!existsSync(index)) return c.html(NOT_BUILT, 404);
  return c.html(readFileSync(index, 'utf8'));
}

const NOT_BUILT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>kasir: demo not built</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;color:#222}code{background:#f3f3f3;padding:.1em .3em;border-radius:3px}</style>
</head><body>
<h1>kasir merchant backend</h1>
<p>The backend is running: the widget API is at <code>/api</code> and the widget at <code>/kasir-checkout.js</code>.</p>
<p>The demo storefront has not been built. Run <code>npm run build</code> (or <code>npm start</code>, which builds it) and reload.</p>
</body></html>
`;
