// createKasirApi: the merchant backend as one Hono app to mount under /api: the widget API at its root and the
// webhook receiver at /webhooks/kasir. It talks to the payment service only over HTTP. Each feature builds its own
// routes in its folder; this file composes them, in the order their middleware must run.
import { Hono } from 'hono';
import { refuseNulBytes } from '../common/nul-guard.js';
import { createLogger, type Logger } from '../common/log.js';
import { PaymentServiceClient } from './client/client.js';
import { pooledFetch } from './client/pooled-fetch.js';
import { checkOptions, SANDBOX_REMOTE_WARNING, sandboxAgainstRemote, type CheckReport } from './check.js';
import { orderTokenMaker, type OrderTokenOptions } from './orders/order-token.js';
import { orderProofGuard } from './orders/proof.js';
import { listDepositRecords, type DepositRecord, type DepositsQuery } from './orders/records.js';
import {
  checkMerchantOptions,
  ConfigError,
  hooksOf,
  type CheckedOptions,
  type KasirApiOptions,
  type MerchantConfig,
} from './config.js';
import { idempotency } from '../common/idempotency.js';
import { eventStreams, type EventStreams } from './widget-api/events-stream.js';
import { addressLimiter, apiHeaders, boundUnknownCheckouts, clientAddressOf, limitBody } from './widget-api/guards.js';
import { chooseMethodGuards, createCheckoutRoute, sharedCheckoutRoutes } from './widget-api/checkout-routes.js';
import { errorHandler, onNotFound } from './http.js';
import { refundClaimRoutes } from './refunds/refund-claims.js';
import { checkoutRenderer, type RenderCheckoutOptions } from './widget-api/render-checkout.js';
import { MerchantService } from './widget-api/service.js';
import type { SharedState } from './state/shared-state.js';
import { openSharedState } from './state/open-state.js';
import type { WidgetCheckout } from './widget-api/views.js';
import { Warnings } from './warnings.js';
import { reconcile, type ReconcileLine, type ReconcileOptions } from './webhooks/reconcile.js';
import { webhookDelivery } from './webhooks/delivery.js';
import { countChoice, MerchantMetrics, openCheckoutCount, settlementCounter } from './observability/metrics.js';
import { healthRoutes } from './observability/probes.js';
import { metricsRoutes, requestSpans } from '../common/observability.js';
import { observedFetch, observedHooks, tracer } from './observability/tracing.js';
import type { Follower } from './webhooks/follower.js';

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
  // A library warns, once per cause and minute (warnings.ts), and logs nothing else unless asked (KASIR_LOG_LEVEL or
  // a logger).
  const log = options.logger ?? createLogger('kasir-merchant', { fallbackLevel: 'warn' });
  const warnings = new Warnings(log, now);
  warnOfUnsafeSettings(checked.settings, options, log);
  const connection = connectionAtFirstUse(checked, log, warnings);
  const config = frozenConfig(checked.settings, connection);
  const dataDirIsDefault = options.dataDir === undefined && process.env.KASIR_DATA_DIR === undefined;
  const shared = openSharedState(config, dataDirIsDefault, log);
  // Prometheus metrics in a registry of this app's own, when asked (docs/observability.md).
  const metrics = config.metrics ? new MerchantMetrics(() => openCheckoutCount(shared), hooksOf(options)) : undefined;
  const client = paymentServiceClient(connection, options, { metrics, warnings, now });
  const service = new MerchantService(client, config, shared, observedHooks(hooksOf(options), metrics), now);
  if (metrics) service.onSettled = settlementCounter(service, metrics);

  const widget = widgetApi(service, { config, options, log, warnings, metrics, now });
  const ready = readiness(widget.streams, shared);
  // Server-to-server first: no CORS and no browser headers, its own body handling; registered first so the widget
  // API's middleware never runs for it.
  const app = new Hono();
  app.use('*', requestSpans(tracer)); // a span per request (observability/tracing.ts), continuing a trace it is handed
  const webhooks = webhookDelivery(service, {
    secret: () => connection().webhookSecret,
    toleranceSeconds: config.webhookToleranceSeconds,
    followMs: config.followMs,
    now,
    log,
    warnings,
    metrics,
  });
  app.route('/webhooks/kasir', webhooks.routes);
  const probes = healthRoutes(ready, log);
  app.route('/', probes);
  const scrape = metrics && metricsRoutes(metrics.registry, config.metricsToken);
  if (scrape) app.route('/', scrape);
  app.route('/', widget.routes);
  return Object.assign(app, {
    config,
    log,
    service,
    probes,
    metricsRoutes: scrape,
    createCheckout: (order: ServerOrder) => service.createCheckoutFor(order),
    renderCheckout: checkoutRenderer((id) => service.getCheckout(id)),
    orderToken: orderTokenMaker(config.orderSecret, now),
    // The same check as kasir-merchant check's, on the options given and the environment (check.ts).
    check: () => checkOptions(options, { env: process.env, pingRedis: () => shared.ping() }),
    listDeposits: (query?: DepositsQuery) => listDepositRecords(client, (id) => service.savedCheckout(id), query),
    reconcile: (reconcileOptions?: ReconcileOptions) => reconcile(service, webhooks.hooks, reconcileOptions),
    ready,
    drain: widget.streams.drain,
    close: async () => {
      widget.streams.drain();
      await webhooks.follower.stop();
      await shared.close();
    },
    follower: webhooks.follower,
  });
}

/** Settings a shop may have left on by mistake, told once at the start. */
function warnOfUnsafeSettings(settings: CheckedOptions['settings'], options: KasirApiOptions, log: Logger): void {
  if (settings.sandbox && options.priceOrder) {
    log.warn(
      'sandbox mode takes an order id alone: outside it a page opens an order only with its order-token, made with kasir.orderToken(orderId) under KASIR_ORDER_SECRET (docs/security.md)',
    );
  }
  if (settings.allowClientAmounts && !settings.sandbox) {
    log.warn(
      'allowClientAmounts is on: the page sets what an order costs, and a shopper can change it (docs/orders.md: price on the server)',
    );
  }
}

type Connection = ReturnType<CheckedOptions['connection']>;

/**
 * The connection to the payment service, read (from the options, else the environment) at its first use: creating
 * the API reads no secret, so a build with no settings present passes. A missing setting is warned of as it is
 * thrown; a live shop left in sandbox mode is told once per process (docs/going-live.md).
 */
function connectionAtFirstUse(checked: CheckedOptions, log: Logger, warnings: Warnings): () => Connection {
  let sandboxTold = !checked.settings.sandbox;
  return () => {
    try {
      const resolved = checked.connection();
      if (!sandboxTold) {
        sandboxTold = true;
        if (sandboxAgainstRemote(checked.settings.sandbox, resolved.baseUrl))
          log.warn({ baseUrl: resolved.baseUrl, check: 'KASIR_SANDBOX' }, SANDBOX_REMOTE_WARNING);
      }
      return resolved;
    } catch (err) {
      if (err instanceof ConfigError) warnings.config(err);
      throw err;
    }
  };
}

/**
 * The settings resolved once and frozen: nothing changes them after the app is built (the connection fields are read
 * through to the connection, itself resolved once at its first use).
 */
function frozenConfig(settings: CheckedOptions['settings'], connection: () => Connection): MerchantConfig {
  return Object.freeze({
    ...settings,
    allowedOrigins: Object.freeze([...settings.allowedOrigins]),
    currencies: Object.freeze([...settings.currencies]),
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
}

/** The payment-service client over the connection: each call a span carrying traceparent, timed when metrics are on. */
function paymentServiceClient(
  connection: () => Connection,
  options: KasirApiOptions,
  { metrics, warnings, now }: { metrics?: MerchantMetrics; warnings: Warnings; now: () => number },
): PaymentServiceClient {
  return new PaymentServiceClient(() => {
    const { baseUrl, checkoutUrl, clientId, clientSecret, accessToken } = connection();
    return {
      baseUrl,
      checkoutUrl,
      clientId,
      clientSecret,
      accessToken,
      fetch: observedFetch(
        () => options.fetch ?? pooledFetch,
        () => checkoutUrl,
        metrics,
      ),
      now,
      signRequest: options.signRequest,
      onFailure: (err) => warnings.paymentService(err),
    };
  });
}

interface WidgetApiParts {
  config: MerchantConfig;
  options: KasirApiOptions;
  log: Logger;
  warnings: Warnings;
  metrics?: MerchantMetrics;
  now: () => number;
}

/**
 * The widget API (widget/WIDGET-API.md) at the app's root, each request through, in this order: the headers and CORS,
 * the body bound, the NUL-byte refusal, the bound on unknown checkout ids, the order's proof; then the routes.
 */
function widgetApi(
  service: MerchantService,
  { config, options, log, warnings, metrics, now }: WidgetApiParts,
): { routes: Hono; streams: EventStreams } {
  const addressOf = clientAddressOf(config.trustProxy);
  const limiter = addressLimiter(service.shared, addressOf);
  // Idempotency-Key on the creates (docs/idempotency.md), kept in the shared state: a retried create, on any copy,
  // gets the first answer again.
  const idempotent = idempotency({ store: service.shared.idempotency });
  const api = new Hono();
  api.use('*', apiHeaders(config, warnings));
  api.on(['POST', 'PUT', 'PATCH', 'DELETE'], '*', limitBody);
  api.use('*', refuseNulBytes); // the payment service refuses them too: a 400 naming the field here
  const boundUnknown = boundUnknownCheckouts(service, { config, addressOf, now });
  api.use('/checkouts/:id', boundUnknown);
  api.use('/checkouts/:id/*', boundUnknown);
  api.route(
    '/',
    orderProofGuard((id, token) => service.checkCheckoutProof(id, token)),
  );
  api.route('/', createCheckoutRoute(service, { config, limiter, idempotent }));
  // Server-sent events (widget-api/events-stream.ts), behind the same headers, CORS and guards as the widget API.
  const { heartbeatMs, maxStreamMs } = options;
  const streams = eventStreams(service, { config, addressOf, now, log, heartbeatMs, maxStreamMs });
  api.route('/', streams.routes);
  api.route('/', chooseMethodGuards(service, { config, limiter, idempotent }));
  // Where money owed back should go (docs/refunds.md): the shop's backend takes the claims, the hosted page does not.
  api.route('/', refundClaimRoutes(service, { log, now, addressOf }));
  api.route(
    '/',
    sharedCheckoutRoutes(service, config, (chosen) => countChoice(metrics, chosen), now),
  );
  return { routes: api, streams };
}

/** Ready to serve: not shutting down, and the shared state answers. */
function readiness(streams: EventStreams, shared: SharedState): () => Promise<void> {
  return async () => {
    if (streams.draining) throw new Error('Shutting down');
    await shared.ping().catch(() => {
      throw new Error('Not ready: the shared state (Redis) does not answer');
    });
  };
}
