// The widget's status poll (GET /api/checkouts/:id/deposit, most of a shop's traffic: every pending shopper, every
// few seconds) answered ahead of Hono's routing, for a server whose app nothing is mounted in front of (the
// kasir-merchant command): the same answer the route gives (security headers, CORS, ETag and 304, the envelope),
// without a Request's Headers, the router, the middleware chain or a WHATWG Response per poll. Anything else, and
// every poll that is not a plain success (a NUL byte, a query, an error), goes to the app, which answers it as always.
import type { HttpBindings } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { matchesEtag } from '../common/etag.js';
import { depositReadBody, isCheckoutId, type WidgetDepositRead } from '../common/widget-api.js';
import { API_HEADERS, CORS_EXPOSED_HEADERS, isAllowedOrigin, type KasirApi } from './api.js';
import { isRefusedOrigin } from './origins.js';

type Fetch = (request: Request, env?: unknown) => Response | Promise<Response>;

const PREFIX = '/api/checkouts/';
const SUFFIX = '/deposit';
const NUL = '\u0000';

/** `fetch`, with the status polls of `api` (mounted at /api) answered first. */
export function answeringStatusPolls(api: KasirApi, fetch: Fetch, now: () => number = Date.now): Fetch {
  const { config, service } = api;
  // The route's headers as a flat name/value list (what Node's writeHead takes at least cost).
  const fixed = API_HEADERS.flatMap(([name, value]) => [name, name === 'Cache-Control' ? 'no-cache' : value]);
  const exposed = CORS_EXPOSED_HEADERS.join(',');
  // serverTime, made once per millisecond (a busy server answers many polls in one).
  let stampedAt = NaN;
  let stamp = '';
  const serverTime = () => {
    const t = now();
    if (t !== stampedAt) stamp = new Date((stampedAt = t)).toISOString();
    return stamp;
  };

  /** Writes the route's answer for `read` to Node's response. */
  const answer = (request: Request, incoming: IncomingMessage, outgoing: ServerResponse, read: WidgetDepositRead): Response => {
    const header = (name: string) => incoming.headers[name] as string | undefined;
    const headers = [...fixed, 'ETag', read.etag];
    const origin = header('origin');
    if (origin) {
      headers.push('Vary', 'Origin');
      if (isAllowedOrigin(origin, header('host'), request.url, config)) {
        headers.push('Access-Control-Allow-Origin', origin, 'Access-Control-Expose-Headers', exposed);
      }
    }
    if (matchesEtag(header('if-none-match'), read.etag)) {
      // As the route's c.body(null, 304) reaches the client through @hono/node-server (its default content type too).
      headers.push('Content-Type', 'text/plain; charset=UTF-8');
      outgoing.writeHead(304, headers);
      outgoing.end();
    } else {
      const body = depositReadBody(read, serverTime());
      headers.push('Content-Type', 'application/json', 'Content-Length', String(Buffer.byteLength(body)));
      outgoing.writeHead(200, headers);
      outgoing.end(body);
    }
    return RESPONSE_ALREADY_SENT;
  };

  /** The poll of checkout `id`: answered here when its deposit is known (at once when cached), else by the app. */
  const poll = (request: Request, id: string, env: unknown): Response | Promise<Response> => {
    const { incoming, outgoing } = (env ?? {}) as Partial<HttpBindings>;
    // Not served by Node (app.request), or a NUL byte anywhere (the app's to refuse: 400 naming the header).
    if (!incoming || !outgoing || incoming.rawHeaders.some((value) => value.includes(NUL))) return fetch(request, env);
    // A page on an origin not allowed: the app's refusal (403, readable by it, and a warning).
    const origin = incoming.headers.origin;
    if (isRefusedOrigin(origin, !!origin && isAllowedOrigin(origin, incoming.headers.host, request.url, config), incoming.headers['sec-fetch-site'] as string | undefined)) return fetch(request, env);
    const known = service.depositNow(id);
    if (known) return answer(request, incoming, outgoing as ServerResponse, known);
    // The app answers an error in the envelope (a failure is cached: no second upstream call).
    return service.readDeposit(id).then((read) => answer(request, incoming, outgoing as ServerResponse, read), () => fetch(request, env));
  };

  return (request, env) => {
    if (request.method === 'GET') {
      const url = request.url;
      const start = url.indexOf('/', url.indexOf(':') + 3);
      if (url.startsWith(PREFIX, start) && url.endsWith(SUFFIX) && !url.includes('?', start)) {
        const id = url.slice(start + PREFIX.length, url.length - SUFFIX.length);
        if (isCheckoutId(id)) return poll(request, id, env);
      }
    }
    return fetch(request, env);
  };
}
