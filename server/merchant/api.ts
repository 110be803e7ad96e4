// createKasirApi: the merchant backend as one Hono app to mount under /api: the widget API at its root and the
// webhook receiver at /webhooks/kasir. It talks to the payment service only over HTTP.
import { getConnInfo } from '@hono/node-server/conninfo';
import { resolve } from 'node:path';
import { Hono, type Context } from 'hono';
import { refuseNulBytes } from '../common/nul-guard.js';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import { createMiddleware } from 'hono/factory';
import { ApiError } from '../common/errors.js';
import { lruMap } from './state/lru.js';
import { rateLimiter, type HonoConfigProps } from 'hono-rate-limiter';
import { createLogger, type Logger } from '../common/log.js';
import { PaymentServiceClient } from './client/client.js';
import { checkOptions, SANDBOX_REMOTE_WARNING, sandboxAgainstRemote, type CheckReport } from './commands/check.js';
import { isRefusedOrigin, refuseOrigin } from './widget-api/origins.js';
import { makeOrderToken, ORDER_TOKEN_HEADER, type OrderTokenOptions } from './orders/order-token.js';
import { listDepositRecords, type DepositRecord, type DepositsQuery } from './orders/records.js';
import {
  checkMerchantOptions,
  ConfigError,
  hooksOf,
  merchantStateFile,
  type KasirApiOptions,
  type MerchantConfig,
} from './config.js';
import { isCheckoutId, jsonBody, ok, stateChanging, widgetApiRoutes } from '../common/widget-api.js';
import { IDEMPOTENCY_HEADER, idempotency, REPLAYED_HEADER } from '../common/idempotency.js';
import { eventStreams } from './widget-api/events-stream.js';
import { errorBody, errorHandler, onNotFound } from './http.js';
import { RedisState } from './state/redis-state.js';
import { refundClaimRoutes } from './refunds/refund-claims.js';
import { checkoutRenderer, type RenderCheckoutOptions } from './widget-api/render-checkout.js';
import { MerchantService } from './widget-api/service.js';
import { LocalState, type SharedState } from './state/shared-state.js';
import type { WidgetCheckout } from './widget-api/views.js';
import { Warnings } from './warnings.js';
import { reconcile, type ReconcileLine, type ReconcileOptions } from './webhooks/reconcile.js';
import { deliveryHooks, webhookRoutes } from './webhooks/receiver.js';
import { countChoice, MerchantMetrics, openCheckoutCount, settlementCounter } from './observability/metrics.js';
import { metricsRoutes, requestSpans } from '../common/observability.js';
import { observedFetch, observedHooks, tracer } from './observability/tracing.js';
import { createFollower, type Follower } from './webhooks/follower.js';

/** What a shop's server passes to `createCheckout`: an order it priced itself. */
export interface ServerOrder {
  /** What the order costs, a decimal string (or a number with no more decimals than the currency has). */
  amount: string | number;
  /** The order's currency (default the first of `currencies`, IDR). */
  currency?: string;
  /**
   * The shop's own order id, handed to every hook of its checkout. With one, the order keeps one checkout
   * (docs/orders.md): calling createCheckout again for it (a reload, another device) answers the same checkout.
   */
  orderId?: string;
}

export type KasirApi = Hono & {
  /** The checked settings the API runs on. */
  readonly config: MerchantConfig;
  /** Where it logs (`options.logger`, else warnings only unless KASIR_LOG_LEVEL says). */
  readonly log: Logger;
  /** The backend's logic behind the routes (status cache, payment-service client). */
  readonly service: MerchantService;
  /**
   * Creates a checkout from the shop's own server (a "server-created checkout"): render
   * `<kasir-checkout endpoint=".../api" checkout-id=${checkout.id}>` with it. Throws an HTTPException (400) for an
   * amount or currency the shop does not accept.
   */
  createCheckout(order: ServerOrder): Promise<WidgetCheckout>;
  /**
   * The markup of `<kasir-checkout>` for a checkout, its method list in a declarative shadow root (Lit's server
   * rendering of @kasir/checkout, which must be installed), to put in the page's HTML: the list paints with the page,
   * and the element's script takes over from the data it holds without asking for the checkout again
   * (docs/server-rendering.md). Throws an HTTPException: 404 for an unknown checkout, 400 naming a bad option.
   */
  renderCheckout(checkoutId: string, options?: RenderCheckoutOptions): Promise<string>;
  /**
   * Catches up on hooks whose webhooks never arrived (docs/orders.md): reads from the payment service every checkout
   * this backend holds that is not settled (or settled at or after `since`) and runs each hook whose event it missed,
   * once, under the same claims as the webhooks. Safe to run on a timer and on every copy at once.
   */
  reconcile(options?: ReconcileOptions): Promise<ReconcileLine[]>;
  /**
   * The token that lets a page open the shop's order `orderId` (docs/security.md): render it beside the order id,
   * `<kasir-checkout order-id=... order-token=...>`. An HMAC-SHA256 under the `orderSecret` option
   * (KASIR_ORDER_SECRET), good for `expiresIn` seconds (default 24 hours). Throws a ConfigError without a secret.
   */
  orderToken(orderId: string, options?: OrderTokenOptions): string;
  /** GET /healthz and GET /readyz, mounted in this app and, by the merchant server, at its root. */
  readonly probes: Hono;
  /**
   * Checks the configuration against the payment service (and Redis): one result per check, a failing one naming the
   * setting to fix; `ok` when all pass (docs/going-live.md). `kasir-merchant check` prints the same.
   */
  check(): Promise<CheckReport>;
  /** The service's deposits, newest first, each with its orderId where this backend knows it (docs/going-live.md). */
  listDeposits(query?: DepositsQuery): Promise<DepositRecord[]>;
  /** Resolves when the shared state (Redis) answers; throws otherwise (what /readyz tells). */
  ready(): Promise<void>;
  /** GET /metrics when metrics are on (docs/observability.md), mounted in this app and, by the merchant server, at its root. */
  readonly metricsRoutes?: Hono;
  /**
   * Ends the open event streams with a reconnect hint (EventSource then reconnects, to another copy behind a load
   * balancer) and refuses new ones; /readyz answers 503 from then on. Call it when the server stops accepting.
   */
  drain(): void;
  /** drain(), stops the follower, then lets go of the shared state (quits Redis, closes the state file). */
  close(): Promise<void>;
  /** Reads every open checkout again at a pace and runs the hooks of what changed (docs/orders.md); started at once. */
  readonly follower: Follower;
};

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

/**
 * The widget API (widget/WIDGET-API.md) and the webhook receiver, as a Hono app to mount under `/api`:
 * `app.route('/api', createKasirApi(options))`. Its `.fetch` is a plain fetch handler (Next.js route handlers,
 * Bun, Deno). Throws a ConfigError naming every unknown, wrong or malformed option at once; the connection settings
 * not passed are read from the environment (KASIR_BASE_URL, ...) at the first request, so creating it reads no secret.
 */
export function createKasirApi(options: KasirApiOptions = {}): KasirApi {
  const app = kasirRoutes(options);
  // Errors and unknown paths in the envelope wherever a shop mounts it (a mounted app's notFound is not used, so a
  // last catch-all answers them).
  app.onError(errorHandler(app.log));
  app.notFound(onNotFound);
  app.all('*', onNotFound);
  return app;
}

/**
 * createKasirApi's routes without an error handler of their own, for an app whose onError is already the merchant
 * backend's (createMerchantApp): Hono wraps every route of a mounted app that has its own handler once more, and this
 * keeps the hot status read one layer shallower.
 */
export function kasirRoutes(options: KasirApiOptions): KasirApi {
  const checked = checkMerchantOptions(options);
  const now = options.now ?? Date.now;
  // A library warns (docs/design.md, "Seeing and testing an integration") and logs nothing else unless asked
  // (KASIR_LOG_LEVEL or a logger).
  const log = options.logger ?? createLogger('kasir-merchant', { fallbackLevel: 'warn' });
  const warnings = new Warnings(log, now);
  if (checked.settings.sandbox && options.priceOrder) {
    log.warn(
      'sandbox mode takes an order id alone: outside it a page opens an order only with its order-token, made with kasir.orderToken(orderId) under KASIR_ORDER_SECRET (docs/security.md)',
    );
  }
  if (checked.settings.allowClientAmounts && !checked.settings.sandbox) {
    log.warn(
      'allowClientAmounts is on: the page sets what an order costs, and a shopper can change it (docs/orders.md: price on the server)',
    );
  }
  // The connection to the payment service, read (from the options, else the environment) at its first use: creating
  // the API reads no secret, so a build with no settings present passes.
  let sandboxTold = !checked.settings.sandbox;
  const connection = () => {
    try {
      const resolved = checked.connection();
      if (!sandboxTold) {
        sandboxTold = true; // once per process: a live shop left in sandbox mode (docs/going-live.md)
        if (sandboxAgainstRemote(checked.settings.sandbox, resolved.baseUrl))
          log.warn({ baseUrl: resolved.baseUrl, check: 'KASIR_SANDBOX' }, SANDBOX_REMOTE_WARNING);
      }
      return resolved;
    } catch (err) {
      if (err instanceof ConfigError) warnings.config(err);
      throw err;
    }
  };
  // Resolved once and frozen: nothing changes it after the app is built (the connection fields are read through to
  // the connection, itself resolved once at its first use).
  const config: MerchantConfig = Object.freeze({
    ...checked.settings,
    allowedOrigins: Object.freeze([...checked.settings.allowedOrigins]),
    currencies: Object.freeze([...checked.settings.currencies]),
    get baseUrl() {
      return connection().baseUrl;
    },
    get checkoutUrl() {
      return connection().checkoutUrl;
    },
    get clientId() {
      return connection().clientId;
    },
    get clientSecret() {
      return connection().clientSecret;
    },
    get accessToken() {
      return connection().accessToken;
    },
    get webhookSecret() {
      return connection().webhookSecret;
    },
  });
  const shared: SharedState = config.redisUrl
    ? new RedisState({ url: config.redisUrl, prefix: config.redisPrefix, timeoutMs: config.redisTimeoutMs }, (err) =>
        log.error({ err: err.message }, 'redis'),
      )
    : localState(config.dataDir, options.dataDir === undefined && process.env.KASIR_DATA_DIR === undefined, log);
  // Prometheus metrics in a registry of this app's own, when asked (docs/observability.md).
  const metrics = config.metrics ? new MerchantMetrics(() => openCheckoutCount(shared), hooksOf(options)) : undefined;
  const client = new PaymentServiceClient(() => {
    const { baseUrl, checkoutUrl, clientId, clientSecret, accessToken } = connection();
    return {
      baseUrl,
      checkoutUrl,
      clientId,
      clientSecret,
      accessToken,
      // Each call a span carrying traceparent, and timed when metrics are on (observability/tracing.ts).
      fetch: observedFetch(
        () => options.fetch ?? globalThis.fetch,
        () => checkoutUrl,
        metrics,
      ),
      now,
      signRequest: options.signRequest,
      onFailure: (err) => warnings.paymentService(err),
    };
  });
  const service = new MerchantService(client, config, shared, observedHooks(hooksOf(options), metrics), now);
  if (metrics) service.onSettled = settlementCounter(service, metrics);

  const addressOf = (c: Context) => clientAddressOf(c, config.trustProxy);
  const api = new Hono();
  // Preflights go through hono's cors. On the actual requests hono's cors writes to c.res.headers, which
  // makes every answer a full WHATWG Response (a third of a status read's cost), so the two headers a
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
  // One middleware for the fixed headers of every /api answer and CORS (each layer costs the hot read a step).
  // Set before the handler builds its response (handlers may override Cache-Control); touching c.res.headers
  // afterwards would force @hono/node-server off its fast response path.
  api.use('*', async (c, next) => {
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
  });
  const limitBody = bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: (c) => c.json(errorBody(413, `Request body is larger than ${MAX_BODY_BYTES / 1024} KB`), 413),
  });
  api.on(['POST', 'PUT', 'PATCH', 'DELETE'], '*', limitBody);
  api.use('*', refuseNulBytes); // the payment service refuses them too: a 400 naming the field here

  // Per client address, counted in Redis when copies share it (so a limit is the shop's, not each copy's). The limiter
  // has already set Retry-After (and RateLimit) from the window's reset when it refuses: the same number of seconds.
  const limiter = (
    name: string,
    windowMs: number,
    limit: number,
    refusal: string,
    only?: Pick<HonoConfigProps, 'skip' | 'skipFailedRequests' | 'skipSuccessfulRequests'>,
  ) =>
    rateLimiter({
      windowMs,
      limit,
      standardHeaders: 'draft-7',
      keyGenerator: addressOf,
      store: shared.rateLimitStore(`ratelimit:${name}:`),
      handler: (c) => c.json(errorBody(429, refusal), 429),
      ...only,
    });
  const checkoutLimit = limiter(
    'checkouts',
    60_000,
    config.checkoutRateLimit,
    'Too many checkouts from this address; try again in a minute',
  );

  // Idempotency-Key on the creates (docs/idempotency.md), kept in the shared state: a retried create, on any copy,
  // gets the first answer again.
  const idempotent = idempotency({ store: shared.idempotency });
  // Ids this copy does not know as checkouts may each cost a call to the payment service: a bound per client address
  // and copy on the misses (404s) only, checked before the lookup; a known checkout's reads pass untouched, and
  // concurrent first reads of a real checkout are never refused.
  const misses = lruMap<{ count: number; resetAt: number }>(100_000);
  const boundUnknown = createMiddleware(async (c, next) => {
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
  api.use('/checkouts/:id', boundUnknown);
  api.use('/checkouts/:id/*', boundUnknown);
  // Acting on a checkout a page opened for an order (choosing, switching, cancelling, a refund claim) takes the
  // order's token (docs/security.md): its header, or `orderToken` in the JSON body; checked before anything is done.
  api.on('POST', ['/checkouts/:id/*', '/sandbox/checkouts/:id/*'], async (c, next) => {
    const id = c.req.param('id') ?? '';
    if (isCheckoutId(id)) {
      const body = (await c.req.json().catch(() => null)) as { orderToken?: unknown } | null;
      await service.checkCheckoutProof(id, c.req.header(ORDER_TOKEN_HEADER) ?? body?.orderToken);
    }
    await next();
  });

  // Every POST of the widget API (here and in widgetApiRoutes) is application/json, so a cross-site one is preflighted.
  api.post('/checkouts', stateChanging, checkoutLimit, idempotent, async (c) =>
    ok(c, await service.createCheckout(await jsonBody(c), c.req.raw), 201, 'Checkout created'),
  );

  // Server-sent events (widget-api/events-stream.ts), behind the same headers, CORS and guards as the widget API.
  const streams = eventStreams(service, {
    config,
    addressOf,
    now,
    log,
    heartbeatMs: options.heartbeatMs,
    maxStreamMs: options.maxStreamMs,
  });
  api.route('/', streams.routes);

  // A pending bank transfer holds one of the shop's unique codes until it is paid or expires: a bound per client
  // address keeps one anonymous shopper from holding them all (when none is left the service answers 409, "choose
  // another method", which passes through). Refused choices do not count.
  const transferLimit = limiter(
    'transfers',
    3600_000,
    config.transferRateLimit,
    'Too many bank transfers from this address; choose another method',
    {
      skip: async (c) => {
        const id = c.req.param('id') ?? '';
        const body = (await c.req.json().catch(() => null)) as { method?: unknown } | null;
        return (
          !isCheckoutId(id) || typeof body?.method !== 'string' || !(await service.isBankTransfer(id, body.method))
        );
      },
      skipFailedRequests: true,
    },
  );
  api.post('/checkouts/:id/deposit', transferLimit, idempotent);

  // Where money owed back should go (docs/refunds.md): the shop's backend takes the claims, the hosted page does not.
  api.route('/', refundClaimRoutes(service, { log, now, addressOf }));

  // The routes the hosted checkout page serves too (server/common/widget-api.ts), over this backend's service.
  api.route(
    '/',
    widgetApiRoutes(
      {
        getCheckout: (id) => service.getCheckout(id),
        chooseMethod: async (id, method, wallet) =>
          countChoice(metrics, await service.chooseMethod(id, method, wallet)),
        // A page of an allowed origin or of the shop's own return page's (which then wins: widget-api/service.ts).
        isReturnPage: (url) =>
          config.allowedOrigins.includes(url.origin) ||
          (config.returnUrl !== undefined && new URL(config.returnUrl).origin === url.origin),
        readDeposit: (id) => service.readDeposit(id),
        depositNow: (id) => service.depositNow(id),
        cancel: (id) => service.cancel(id),
        sandboxSet: config.sandbox ? (id, status) => service.sandboxSet(id, status) : undefined,
        sandboxPay: config.sandbox ? (id, amount) => service.sandboxPay(id, amount) : undefined,
      },
      now,
    ),
  );

  // Ready to serve: not shutting down, and the shared state answers.
  const ready = async () => {
    if (streams.draining) throw new Error('Shutting down');
    await shared.ping().catch(() => {
      throw new Error('Not ready: the shared state (Redis) does not answer');
    });
  };
  // Server-to-server: no CORS and no browser headers, its own body handling; registered first so the widget
  // API's middleware never runs for it.
  const app = new Hono();
  app.use('*', requestSpans(tracer)); // a span per request (observability/tracing.ts), continuing a trace it is handed
  const hookRunner = deliveryHooks(service, { warnings });
  // Every open checkout read again at a pace, whatever happens to webhooks (webhooks/follower.ts).
  const follower = createFollower(service, hookRunner, {
    followMs: config.followMs,
    log,
    webhookUrlHint:
      'it must reach /webhooks/kasir where this API is mounted, e.g. https://shop.example/api/webhooks/kasir',
  });
  service.onOpened = (id) => follower.add(id);
  follower.start();
  app.route(
    '/webhooks/kasir',
    webhookRoutes(
      service,
      {
        secret: () => connection().webhookSecret,
        toleranceSeconds: config.webhookToleranceSeconds,
        now,
        log,
        warnings,
        metrics,
      },
      hookRunner,
    ),
  );
  // Probes for a load balancer or an orchestrator, wherever the API is mounted (/api/healthz, /api/readyz); the
  // merchant server mounts the same routes at its root too (server.ts).
  const probes = healthRoutes(ready, log);
  app.route('/', probes);
  const scrape = metrics && metricsRoutes(metrics.registry, config.metricsToken);
  if (scrape) app.route('/', scrape);
  app.route('/', api);
  return Object.assign(app, {
    config,
    log,
    service,
    probes,
    metricsRoutes: scrape,
    createCheckout: (order: ServerOrder) => service.createCheckoutFor(order),
    renderCheckout: checkoutRenderer((id) => service.getCheckout(id)),
    orderToken: (orderId: string, tokenOptions?: OrderTokenOptions) => {
      if (!config.orderSecret)
        throw new ConfigError(
          'kasir.orderToken needs the orderSecret option (or KASIR_ORDER_SECRET): at least 32 bytes, e.g. openssl rand -base64 32',
        );
      return makeOrderToken(config.orderSecret, orderId, now(), tokenOptions);
    },
    // The same check as kasir-merchant check's, on the options given and the environment (commands/check.ts).
    check: () => checkOptions(options, { env: process.env, pingRedis: () => shared.ping() }),
    listDeposits: (query?: DepositsQuery) => listDepositRecords(client, (id) => service.savedCheckout(id), query),
    reconcile: (reconcileOptions?: ReconcileOptions) => reconcile(service, hookRunner, reconcileOptions),
    ready,
    drain: streams.drain,
    close: async () => {
      streams.drain();
      await follower.stop();
      await shared.close();
    },
    follower,
  });
}

/**
 * One process's state: in `dataDir` (memory when false). The default directory, when it cannot be written (a
 * read-only file system), falls back to memory with a warning instead of failing at start; `check` then says so.
 */
function localState(dataDir: string | false, isDefault: boolean, log: Logger): LocalState {
  if (!dataDir) return new LocalState();
  try {
    return new LocalState(merchantStateFile(resolve(dataDir))); // where it was at the start, whatever the cwd later
  } catch (err) {
    if (!isDefault) throw err;
    log.warn(
      { dataDir, err: err instanceof Error ? err.message : String(err), check: ['KASIR_DATA_DIR', 'REDIS_URL'] },
      `the state cannot be kept in ${dataDir}: it is kept in memory and lost on restart (orders behind pending payments with it); set KASIR_DATA_DIR to a writable directory, or REDIS_URL`,
    );
    return new LocalState();
  }
}

/** GET /healthz (the process answers) and GET /readyz (it can serve: the shared state answers), in the envelope. */
function healthRoutes(ready: () => Promise<void>, log: Logger): Hono {
  const app = new Hono();
  app.get('/healthz', (c) => c.json({ statusCode: 200, message: 'OK' }, 200));
  app.get('/readyz', async (c) => {
    try {
      await ready();
      return c.json({ statusCode: 200, message: 'Ready' }, 200);
    } catch (err) {
      const message = err instanceof Error ? err.message : 'Not ready';
      log.warn({ reason: message }, 'not ready');
      return c.json(errorBody(503, message), 503);
    }
  });
  return app;
}

/** What a cross-origin page may read of an answer. */
const CORS_EXPOSED_HEADERS = ['ETag', 'RateLimit', 'RateLimit-Policy', 'Retry-After', REPLAYED_HEADER] as const;

/** The configured storefront origins, plus the backend's own (the demo), however it is addressed (`host`, `url`). */
function isAllowedOrigin(origin: string, host: string | undefined, url: string, config: MerchantConfig): boolean {
  if (!origin) return false;
  if (config.allowedOrigins.includes(origin)) return true;
  if (!host) return false;
  return origin === `${url.startsWith('https:') ? 'https:' : 'http:'}//${host}`;
}

function clientAddressOf(c: Context, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = c.req.header('x-forwarded-for')?.split(',')[0]?.trim();
    if (forwarded) return forwarded;
  }
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    return 'unknown'; // app.request() in tests: no socket
  }
}
