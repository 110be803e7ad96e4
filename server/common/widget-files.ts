// The script-tag build of @kasir/checkout as both servers serve it (the merchant backend at /kasir-checkout.js, the
// sandbox's hosted page at /checkout/kasir-checkout.js): the entry and the chunks it imports from beside itself,
// kasir-checkout-<name>-<hash>.js (widget/vite.config.ts). Public code, loadable from any origin. Each file is served
// in the encoding the browser takes, brotli or gzip, from the build's precompressed copies beside it (<file>.br,
// <file>.gz). A file is read again when it changes on disk, so a rebuild needs no restart.
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

/** The encodings the build precompresses each file in (<file>.br, <file>.gz), in the order they are preferred. */
const ENCODINGS = [
  ['br', '.br'],
  ['gzip', '.gz'],
] as const;
type Encoding = (typeof ENCODINGS)[number][0] | 'identity';

/**
 * The encodings an Accept-Encoding header takes (RFC 9110 12.5.3): each coding listed with a weight above 0, and `*`
 * for any not listed. None: identity only.
 */
function accepted(header: string | undefined): (encoding: Encoding) => boolean {
  const weights = new Map<string, number>();
  for (const part of (header ?? '').split(',')) {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    if (!coding) continue;
    const q = params.map((p) => /^\s*q\s*=\s*([\d.]+)\s*$/.exec(p)?.[1]).find(Boolean);
    weights.set(coding, q === undefined ? 1 : Number(q));
  }
  return (encoding) => (weights.get(encoding) ?? weights.get('*') ?? 0) > 0;
}

/** One file of the build in one encoding. */
interface Served {
  mtimeMs: number;
  size: number;
  body: Uint8Array<ArrayBuffer>;
  etag: string;
}

/** A route parameter for the entry or a chunk: a bare file name, so no other path can be asked for. */
export const WIDGET_FILE_PARAM = ':file{kasir-checkout[\\w-]*\\.js}';

/**
 * Serves `name` (the route's WIDGET_FILE_PARAM) from the widget build whose entry is the file `entry`, in brotli or
 * gzip when the browser takes it and the build has that copy (`Vary: Accept-Encoding`; each encoding its own ETag and
 * Content-Length): the entry
 * and the locales' words revalidated on every use (the entry names the chunks of its build, so it must not outlive
 * them in a cache; the words' names carry no hash), a chunk cached for a year (its name carries its content's hash);
 * all with an ETag (If-None-Match answers 304), CORS open to any origin (a module script from another origin is a
 * CORS request) and no sniffing. A missing entry is a 503
 * in the envelope on both servers, saying `notBuilt` (what to run); a missing chunk answers undefined, for the server
 * to answer as any unknown path.
 */
export function widgetFileServer() {
  const cache = new Map<string, Served>();
  /** The file at `path` as it is on disk now (read again when it changed), or undefined when there is none. */
  const read = async (path: string): Promise<Served | undefined> => {
    let info;
    try {
      info = await stat(path);
    } catch {
      cache.delete(path);
      return undefined;
    }
    let file = cache.get(path);
    if (!file || file.mtimeMs !== info.mtimeMs || file.size !== info.size) {
      const body = new Uint8Array(await readFile(path));
      file = { mtimeMs: info.mtimeMs, size: info.size, body, etag: etagOf(body) };
      cache.set(path, file);
    }
    return file;
  };
  return async (
    c: Context,
    entry: string | undefined,
    name: string,
    notBuilt: string,
  ): Promise<Response | undefined> => {
    const missing = () => (name === WIDGET_ENTRY_NAME ? c.json(errorBody(503, notBuilt), 503) : undefined);
    if (!entry) return missing();
    const path = name === WIDGET_ENTRY_NAME ? entry : join(dirname(entry), name);
    const plain = await read(path);
    if (!plain) return missing();
    // The first encoding the browser takes whose copy is there (and no older than the file); else the file itself.
    const takes = accepted(c.req.header('accept-encoding'));
    let file = plain;
    for (const [encoding, suffix] of ENCODINGS) {
      if (!takes(encoding)) continue;
      const encoded = await read(path + suffix);
      if (!encoded || encoded.mtimeMs < plain.mtimeMs) continue;
      file = encoded;
      c.header('Content-Encoding', encoding);
      break;
    }
    c.header('Vary', 'Accept-Encoding');
    c.header('Content-Type', 'text/javascript; charset=utf-8');
    c.header('Cache-Control', revalidated(name) ? 'no-cache' : 'public, max-age=31536000, immutable');
    c.header('ETag', file.etag);
    c.header('Access-Control-Allow-Origin', '*');
    c.header('Cross-Origin-Resource-Policy', 'cross-origin');
    c.header('X-Content-Type-Options', 'nosniff');
    if (matchesEtag(c.req.header('if-none-match'), file.etag)) return c.body(null, 304);
    c.header('Content-Length', String(file.body.length));
    if (c.req.method === 'HEAD') return c.body(null);
    return c.body(file.body);
  };
}
