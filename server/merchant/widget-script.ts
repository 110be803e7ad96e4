// GET /kasir-checkout.js: the script-tag build of @kasir/checkout (a dependency of this package), loadable from any
// storefront origin. Read again when the file changes (a rebuild needs no restart), with an ETag and short caching.
import { Hono } from 'hono';
import { readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { etagOf, matchesEtag } from '../common/etag.js';
import { errorBody } from './http.js';

/** Where the script is: the installed @kasir/checkout's `kasir-checkout.js` export. */
export const WIDGET_SCRIPT_FILE = fileURLToPath(import.meta.resolve('@kasir/checkout/kasir-checkout.js'));

export function widgetScriptRoutes(file: string = WIDGET_SCRIPT_FILE) {
  const app = new Hono();
  let cached: { mtimeMs: number; size: number; body: Buffer; etag: string } | undefined;
  app.on(['GET', 'HEAD'], '/kasir-checkout.js', (c) => {
    let stat;
    try {
      stat = statSync(file);
    } catch {
      return c.json(errorBody(404, 'The widget is not built: run `npm run build`'), 404);
    }
    if (!cached || cached.mtimeMs !== stat.mtimeMs || cached.size !== stat.size) {
      const body = readFileSync(file);
      cached = { mtimeMs: stat.mtimeMs, size: stat.size, body, etag: etagOf(body) };
    }
    c.header('Content-Type', 'text/javascript; charset=utf-8');
    c.header('Cache-Control', 'public, max-age=300, stale-while-revalidate=86400');
    c.header('ETag', cached.etag);
    // A module script from another origin is a CORS request: the widget is public code, anyone may load it.
    c.header('Access-Control-Allow-Origin', '*');
    c.header('Cross-Origin-Resource-Policy', 'cross-origin');
    c.header('X-Content-Type-Options', 'nosniff');
    if (matchesEtag(c.req.header('if-none-match'), cached.etag)) return c.body(null, 304);
    if (c.req.method === 'HEAD') return c.body(null);
    return c.body(new Uint8Array(cached.body));
  });
  return app;
}
