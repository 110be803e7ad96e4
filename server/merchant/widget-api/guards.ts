// What stands in front of every widget API route: the fixed headers and CORS of each answer, the body bound, who a
// request comes from, and the per-address limits (on new checkouts, bank transfers, and ids that are not checkouts).
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import { createMiddleware } from 'hono/factory';
import { rateLimiter, type HonoConfigProps } from 'hono-rate-limiter';
import { ApiError } from '../../common/errors.js';
import { REPLAYED_HEADER, IDEMPOTENCY_HEADER } from '../../common/idempotency.js';
import type { MerchantConfig } from '../config.js';
import { errorBody } from '../http.js';
import { ORDER_TOKEN_HEADER } from '../orders/order-token.js';
import { lruMap } from '../state/lru.js';
import type { SharedState } from '../state/shared-state.js';
import type { Warnings } from '../warnings.js';
import { isRefusedOrigin, refuseOrigin } from './origins.js';
import type { MerchantService } from './service.js';

/** Who a request comes from: the first X-Forwarded-For address behind a trusted proxy, else the socket's. */
export type AddressOf = (c: Context) => string;

const MAX_BODY_BYTES = 16 * 1024;

/** Security headers of the JSON API (no document: nothing may be framed, run or embedded). */
const API_HEADERS: ReadonlyArray<[string, string]> = [
  ['Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'"],
  ['X-Content-Type-Options', 'nosniff'],
  ['X-Frame-Options', 'DENY'],
  ['Referrer-Policy', 'no-referrer'],
  ['Cross-Origin-Resource-Policy', 'cross-origin'],
  ['Cache-Control', 'no-store'],
];

/** What a cross-origin page may read of an answer. */
const CORS_EXPOSED_HEADERS = ['ETag', 'RateLimit', 'RateLimit-Policy', 'Retry-After', REPLAYED_HEADER] as const;

/**
 * One middleware for the fixed headers of every /api answer and CORS (each layer costs the hot read a step). Set
 * before the handler builds its response (handlers may override Cache-Control); touching c.res.headers afterwards
 * would force @hono/node-server off its fast response path.
 */
export function apiHeaders(config: MerchantConfig, warnings: Warnings): MiddlewareHandler {
  // Preflights go through hono's cors. On the actual requests hono's cors writes to c.res.headers, which
  // makes every answer a full WHATWG Response (a cost on the hot status read), so the two headers a
  // cross-origin answer needs are prepared with c.header() instead, and only when there is an Origin.
  // Any origin's preflight is answered, so that a refused page's request itself comes and gets a refusal it can read
  // (widget-api/origins.ts: a 403 before any route runs).
  const preflight = cors({
    origin: (origin) => origin || null,
    allowMethods: ['GET', 'POST', 'OPTIONS'],
    allowHeaders: ['Content-Type', 'If-None-Match', 'Last-Event-ID', IDEMPOTENCY_HEADER, ORDER_TOKEN_HEADER],
    exposeHeaders: [...CORS_EXPOSED_HEADERS],
    maxAge: 600,
  });
  const exposedHeaders = CORS_EXPOSED_HEADERS.join(',');
  return async (c, next) => {
    for (const [name, value] of API_HEADERS) c.header(name, value);
    if (c.req.method === 'OPTIONS') return preflight(c, next);
    const origin = c.req.header('origin');
    if (origin) {
      c.header('Vary', 'Origin');
      const allowed = isAllowedOrigin(origin, c.req.header('host'), c.req.url, config);
      if (allowed) {
        c.header('Access-Control-Allow-Origin', origin);
        c.header('Access-Control-Expose-Headers', exposedHeaders);
      } else if (isRefusedOrigin(origin, allowed, c.req.header('sec-fetch-site')))
        return refuseOrigin(c, origin, config, warnings);
    }
    await next();
  };
}

/** The configured storefront origins, plus the backend's own (the demo), however it is addressed (`host`, `url`). */
function isAllowedOrigin(origin: string, host: string | undefined, url: string, config: MerchantConfig): boolean {
  if (!origin) return false;
  if (config.allowedOrigins.includes(origin)) return true;
  if (!host) return false;
  return origin === `${url.startsWith('https:') ? 'https:' : 'http:'}//${host}`;
}

/** A request body larger than the widget API ever sends is refused in the envelope. */
export const limitBody = bodyLimit({
  maxSize: MAX_BODY_BYTES,
  onError: (c) => c.json(errorBody(413, `Request body is larger than ${MAX_BODY_BYTES / 1024} KB`), 413),
});

export function clientAddressOf(trustProxy: boolean): AddressOf {
  return (c) => {
    if (trustProxy) {
      const forwarded = c.req.header('x-forwarded-for')?.split(',')[0]?.trim();
      if (forwarded) return forwarded;
    }
    try {
      return getConnInfo(c).remote.address ?? 'unknown';
    } catch {
      return 'unknown'; // app.request() in tests: no socket
    }
  };
}

/**
 * A limit per client address, counted in Redis when copies share it (so a limit is the shop's, not each copy's). The
 * limiter has already set Retry-After (and RateLimit) from the window's reset when it refuses: the same number of
 * seconds.
 */
export type AddressLimiter = (
  name: string,
  windowMs: number,
  limit: number,
  refusal: string,
  only?: Pick<HonoConfigProps, 'skip' | 'skipFailedRequests' | 'skipSuccessfulRequests'>,
) => MiddlewareHandler;

export function addressLimiter(shared: SharedState, addressOf: AddressOf): AddressLimiter {
  return (name, windowMs, limit, refusal, only) =>
    rateLimiter({
      windowMs,
      limit,
      standardHeaders: 'draft-7',
      keyGenerator: addressOf,
      store: shared.rateLimitStore(`ratelimit:${name}:`),
      handler: (c) => c.json(errorBody(429, refusal), 429),
      ...only,
    });
}

/**
 * Ids this copy does not know as checkouts may each cost a call to the payment service: a bound per client address
 * and copy on the misses (404s) only, checked before the lookup; a known checkout's reads pass untouched, and
 * concurrent first reads of a real checkout are never refused.
 */
export function boundUnknownCheckouts(
  service: MerchantService,
  { config, addressOf, now }: { config: MerchantConfig; addressOf: AddressOf; now: () => number },
): MiddlewareHandler {
  const misses = lruMap<{ count: number; resetAt: number }>(100_000);
  return createMiddleware(async (c, next) => {
    if (service.checkouts.peek(c.req.param('id') ?? '') === true) return next();
    const address = addressOf(c);
    const t = now();
    const entry = misses.get(address);
    if (entry && entry.resetAt > t && entry.count >= config.unknownCheckoutRateLimit) {
      c.header('Retry-After', String(Math.ceil((entry.resetAt - t) / 1000)));
      return c.json(errorBody(429, 'Too many unknown checkouts from this address; try again in a minute'), 429);
    }
    const miss = () => {
      const current = misses.get(address);
      if (current && current.resetAt > t) current.count++;
      else misses.set(address, { count: 1, resetAt: t + 60_000 });
    };
    try {
      await next();
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) miss();
      throw err;
    }
    if (c.res.status === 404) miss();
  });
}
