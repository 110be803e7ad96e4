// The script-tag build of @kasir/checkout as both servers serve it (the merchant backend at /kasir-checkout.js, the
// sandbox's hosted page at /checkout/kasir-checkout.js): the entry and the chunks it imports from beside itself,
// kasir-checkout-<name>-<hash>.js (widget/vite.config.ts). Public code, loadable from any origin. A file is read again
// when it changes on disk, so a rebuild needs no restart.
import type { Context } from 'hono';
import { readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { errorBody } from './errors.js';
import { etagOf, matchesEtag } from './etag.js';

/**
 * The installed @kasir/checkout's `kasir-checkout.js` export: the entry, its chunks in the same directory. Undefined
 * when it is not installed (an optional peer of @kasir/merchant, which then serves no script).
 */
export const WIDGET_ENTRY_FILE: string | undefined = (() => {
  try {
    // In Node the export resolves to the no-DOM module beside the entry (its `node` condition): the entry is its neighbour.
    return join(dirname(fileURLToPath(import.meta.resolve('@kasir/checkout/kasir-checkout.js'))), 'kasir-checkout.js');
  } catch {
    return undefined;
  }
})();

/** The entry's file name (and its name in a URL). */
const WIDGET_ENTRY_NAME = 'kasir-checkout.js';

/**
 * The files whose names carry no hash of their content: the entry, and each locale's words
 * (kasir-checkout-words-<locale>.js, a name a page may preload), revalidated on every use.
 */
const revalidated = (name: string) => name === WIDGET_ENTRY_NAME || name.startsWith('kasir-checkout-words-');

/** A route parameter for the entry or a chunk: a bare file name, so no other path can be asked for. */
export const WIDGET_FILE_PARAM = ':file{kasir-checkout[\\w-]*\\.js}';

/**
 * Serves `name` (the route's WIDGET_FILE_PARAM) from the widget build whose entry is the file `entry`: the entry
 * and the locales' words revalidated on every use (the entry names the chunks of its build, so it must not outlive
 * them in a cache; the words' names carry no hash), a chunk cached for a year (its name carries its content's hash);
 * all with an ETag (If-None-Match answers 304), CORS open to any origin (a module script from another origin is a
 * CORS request) and no sniffing. A missing entry is a 503
 * in the envelope on both servers, saying `notBuilt` (what to run); a missing chunk answers undefined, for the server
 * to answer as any unknown path.
 */
export function widgetFileServer() {
  const cache = new Map<string, { mtimeMs: number; size: number; body: Uint8Array<ArrayBuffer>; etag: string }>();
  return async (
    c: Context,
    entry: string | undefined,
    name: string,
    notBuilt: string,
  ): Promise<Response | undefined> => {
    const missing = () => (name === WIDGET_ENTRY_NAME ? c.json(errorBody(503, notBuilt), 503) : undefined);
    if (!entry) return missing();
    const path = name === WIDGET_ENTRY_NAME ? entry : join(dirname(entry), name);
    let info;
    try {
      info = await stat(path);
    } catch {
      cache.delete(path);
      return missing();
    }
    let file = cache.get(path);
    if (!file || file.mtimeMs !== info.mtimeMs || file.size !== info.size) {
      const body = new Uint8Array(await readFile(path));
      file = { mtimeMs: info.mtimeMs, size: info.size, body, etag: etagOf(body) };
      cache.set(path, file);
    }
    c.header('Content-Type', 'text/javascript; charset=utf-8');
    c.header('Cache-Control', revalidated(name) ? 'no-cache' : 'public, max-age=31536000, immutable');
    c.header('ETag', file.etag);
    c.header('Access-Control-Allow-Origin', '*');
    c.header('Cross-Origin-Resource-Policy', 'cross-origin');
    c.header('X-Content-Type-Options', 'nosniff');
    if (matchesEtag(c.req.header('if-none-match'), file.etag)) return c.body(null, 304);
    if (c.req.method === 'HEAD') return c.body(null);
    return c.body(file.body);
  };
}
