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
