// What the signature check and the body limit read off the raw request, without building what they do not need.
import type { Context } from 'hono';

/**
 * The path and query exactly as on the request line. Under @hono/node-server that is the raw
 * `incoming.url` (the URL parser would normalise escapes and break signatures); under app.request()
 * the URL's own path and query.
 */
export function requestTarget(c: Context): string {
  const raw = (c.env as { incoming?: { url?: string } } | undefined)?.incoming?.url;
  if (raw && raw.startsWith('/')) return raw;
  const url = new URL(c.req.url);
  return url.pathname + url.search;
}

/**
 * A request header, read from Node's own parsed headers when running under @hono/node-server: touching
 * `c.req.raw.headers` there builds a full WHATWG Headers object, which dominates the cost of a hot read.
 */
export function rawHeader(c: Context, name: string): string | undefined {
  const incoming = (c.env as { incoming?: { headers?: Record<string, string | string[] | undefined> } } | undefined)
    ?.incoming;
  if (!incoming?.headers) return c.req.header(name);
  const value = incoming.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** A GET or HEAD without Content-Length or Transfer-Encoding: no body to read, limit or hash. */
export function isBodiless(c: Context): boolean {
  return (
    (c.req.method === 'GET' || c.req.method === 'HEAD') &&
    !rawHeader(c, 'content-length') &&
    !rawHeader(c, 'transfer-encoding')
  );
}
