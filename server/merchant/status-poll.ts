// The widget's status poll (GET /api/checkouts/:id/deposit, most of a shop's traffic: every pending shopper, every
// few seconds) answered ahead of Hono's routing, for a server whose app nothing is mounted in front of (the
// kasir-merchant command): the same answer the route gives (security headers, CORS, ETag and 304, the envelope),
// without a Request's Headers, the router, the middleware chain or a WHATWG Response per poll. Anything else, and
// every poll that is not a plain success (a NUL byte, a query, an error), goes to the app, which answers it as always.
import type { HttpBindings } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { ServerResponse } from 'node:http';
import { matchesEtag } from '../common/etag.js';
import { isCheckoutId } from '../common/widget-api.js';
import { API_HEADERS, CORS_EXPOSED_HEADERS, isAllowedOrigin, type KasirApi } from './api.js';

type Fetch = (request: Request, env?: unknown) => Response | Promise<Response>;

const PREFIX = '/api/checkouts/';
const SUFFIX = '/deposit';
const NUL = '\u0000';

/** `fetch`, with the status polls of `api` (mounted at /api) answered first. */
export function answeringStatusPolls(api: KasirApi, fetch: Fetch, now: () => number = Date.now): Fetch {
  const { config, service } = api;
  const fixed: Record<string, string> = Object.fromEntries(API_HEADERS);
  fixed['Cache-Control'] = 'no-cache';
  const exposed = CORS_EXPOSED_HEADERS.join(',');

  const poll = async (request: Request, id: string, bindings: Partial<HttpBindings> | undefined): Promise<Response | undefined> => {
    const raw = bindings?.incoming?.rawHeaders;
    // A NUL byte anywhere is the app's to refuse (400 naming the header).
    if (raw?.some((value) => value.includes(NUL))) return undefined;
    const header = raw ? (name: string) => bindings!.incoming!.headers[name] as string | undefined : (name: string) => request.headers.get(name) ?? undefined;
    let read;
    try {
      read = await service.readDeposit(id);
    } catch {
      return undefined; // the app answers the error in the envelope (the failure is cached: no second upstream call)
    }
    const headers: Record<string, string> = { ...fixed, ETag: read.etag };
    const origin = header('origin');
    if (origin) {
      headers.Vary = 'Origin';
      if (isAllowedOrigin(origin, header('host'), request.url, config)) {
        headers['Access-Control-Allow-Origin'] = origin;
        headers['Access-Control-Expose-Headers'] = exposed;
      }
    }
    const outgoing = bindings?.outgoing as ServerResponse | undefined;
    if (matchesEtag(header('if-none-match'), read.etag)) {
      // As the route's c.body(null, 304) reaches the client through @hono/node-server (its default content type too).
      headers['content-type'] = 'text/plain; charset=UTF-8';
      if (!outgoing) return new Response(null, { status: 304, headers });
      outgoing.writeHead(304, headers);
      outgoing.end();
      return RESPONSE_ALREADY_SENT;
    }
    headers['Content-Type'] = 'application/json';
    const body = `{"statusCode":200,"message":"Success","data":${read.jsonHead},"serverTime":"${new Date(now()).toISOString()}"}}`;
    return new Response(body, { status: 200, headers });
  };

  return (request, env) => {
    if (request.method === 'GET') {
      const url = request.url;
      const start = url.indexOf('/', url.indexOf(':') + 3);
      if (url.startsWith(PREFIX, start) && url.endsWith(SUFFIX) && !url.includes('?', start)) {
        const id = url.slice(start + PREFIX.length, url.length - SUFFIX.length);
        if (isCheckoutId(id)) {
          return poll(request, id, env as Partial<HttpBindings> | undefined).then((answer) => answer ?? fetch(request, env));
        }
      }
    }
    return fetch(request, env);
  };
}
