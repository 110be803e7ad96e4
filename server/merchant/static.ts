// The built widget at /kasir-checkout.js (one ES module, loadable from any storefront origin) and the demo
// storefront at / from dist/demo (a fallback page when it has not been built). Strict CSP: no inline script.
import { serveStatic } from '@hono/node-server/serve-static';
import { Hono } from 'hono';
import { secureHeaders } from 'hono/secure-headers';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { MerchantConfig } from './config.js';
import { errorBody } from './http.js';

export function staticRoutes(config: MerchantConfig) {
  const app = new Hono();
  const dist = resolve(config.distDir);
  const widgetFile = join(dist, 'widget', 'kasir-checkout.js');
  const demoDir = join(dist, 'demo');

  // The widget: read per change of the file (a rebuild needs no restart), ETag, short shared caching.
  let cached: { mtimeMs: number; size: number; body: Buffer; etag: string } | undefined;
  app.on(['GET', 'HEAD'], '/kasir-checkout.js', (c) => {
    let stat;
    try {
      stat = statSync(widgetFile);
    } catch {
      return c.json(errorBody(404, 'The widget is not built: run `npm run build:widget`'), 404);
    }
    if (!cached || cached.mtimeMs !== stat.mtimeMs || cached.size !== stat.size) {
      const body = readFileSync(widgetFile);
      cached = { mtimeMs: stat.mtimeMs, size: stat.size, body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
    }
    c.header('Content-Type', 'text/javascript; charset=utf-8');
    c.header('Cache-Control', 'public, max-age=300, stale-while-revalidate=86400');
    c.header('ETag', cached.etag);
    // A module script from another origin is a CORS request: the widget is public code, anyone may load it.
    c.header('Access-Control-Allow-Origin', '*');
    c.header('Cross-Origin-Resource-Policy', 'cross-origin');
    c.header('X-Content-Type-Options', 'nosniff');
    const inm = c.req.header('if-none-match');
    if (inm && inm.split(',').some((t) => t.trim().replace(/^W\//, '') === cached!.etag)) return c.body(null, 304);
    if (c.req.method === 'HEAD') return c.body(null);
    return c.body(new Uint8Array(cached.body));
  });

  // The demo storefront.
  let providerOrigin = '';
  try {
    providerOrigin = new URL(config.baseUrl).origin;
  } catch { /* validated by config */ }
  app.use('*', secureHeaders({
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
  }));
  app.use('*', async (c, next) => {
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') return next();
    if (!existsSync(join(demoDir, 'index.html'))) {
      if (c.req.path === '/' || c.req.path === '/index.html') return c.html(FALLBACK);
      return next();
    }
    return serveStatic({ root: relative(process.cwd(), demoDir) || '.' })(c, next);
  });
  return app;
}

const FALLBACK = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>kasir: demo not built</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;color:#222}code{background:#f3f3f3;padding:.1em .3em;border-radius:3px}</style>
</head><body>
<h1>kasir merchant backend</h1>
<p>The backend is running: the widget API is at <code>/api</code> and the widget at <code>/kasir-checkout.js</code>.</p>
<p>The demo storefront has not been built. Run <code>npm run build:widget</code> (or <code>npm start</code>, which builds it) and reload.</p>
</body></html>
`;
