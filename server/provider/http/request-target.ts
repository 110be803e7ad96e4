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
  const incoming = (c.env as { incoming?: { headers?: Record<string, string | string[] | undefined> } } | undefined)?.incoming;
  if (!incoming?.headers) return c.req.header(name);
  const value = incoming.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
}
