// The merchant backend as its own process (the kasir-merchant command, and the demo shop built on it): the widget
// API and the webhook receiver under /api, the widget's script at /kasir-checkout.js, probes at /healthz and /readyz,
// one JSON log line per request, and a graceful stop.
import { Hono } from 'hono';
import { listen } from '../common/http-server.js';
import { createLogger, requestLogging, type Logger } from '../common/log.js';
import { kasirRoutes, type KasirApi } from './api.js';
import type { MerchantServerOptions } from './config.js';
import { errorHandler, onNotFound } from './http.js';
import { widgetScriptRoutes } from './widget-api/widget-script.js';

export type MerchantApp = Hono & { api: KasirApi; log: Logger };

/** GET /api/checkouts/:id/deposit, the widget's status poll. */
const STATUS_POLL = /^\/api\/checkouts\/[^/]+\/deposit$/;

/**
 * `/api` (createKasirApi), `/kasir-checkout.js`, `/healthz` and `/readyz` in one app; a shop may add its own routes
 * before serving it. Logs through `options.logger` (default: warnings only unless KASIR_LOG_LEVEL says).
 */
export function createMerchantApp(options: MerchantServerOptions): MerchantApp {
  const log = options.logger ?? createLogger('kasir-merchant', { fallbackLevel: 'warn' });
  const { port: _port, host: _host, ...apiOptions } = options;
  const api = kasirRoutes({ ...apiOptions, logger: log });
  const app = new Hono();
  // One line per request, except the status polls unless KASIR_LOG_LEVEL is debug: they are most of the traffic (every
  // pending shopper, every few seconds), an answered poll tells an operator nothing, and its line would cost a fifth
  // of the read's throughput. A poll that fails is still logged by the error handler.
  const logRequests = requestLogging(log);
  const logPolls = log.isLevelEnabled('debug');
  app.use('*', (c, next) =>
    !logPolls && c.req.method === 'GET' && STATUS_POLL.test(c.req.path) ? next() : logRequests(c, next),
  );
  app.onError(errorHandler(log));
  app.notFound(onNotFound);
  app.route('/', api.probes); // /healthz, /readyz: the API's own probes, at the root too
  if (api.metricsRoutes) app.route('/', api.metricsRoutes); // /metrics, where Prometheus looks by default
  app.route('/api', api);
  app.route('/', widgetScriptRoutes());
  return Object.assign(app, { api, log });
}

export interface RunningMerchant {
  app: MerchantApp;
  url: string;
  port: number;
  /**
   * Graceful: stops accepting, ends the event streams with a reconnect hint, lets in-flight requests finish (webhooks
   * included), then quits Redis or closes the state file. Calling it again returns the same promise.
   */
  stop(): Promise<void>;
}

/** Serves `app` (default: createMerchantApp(options)) on options.port (default 3000; 0 picks a free one). */
export async function startMerchant(options: MerchantServerOptions, given?: MerchantApp): Promise<RunningMerchant> {
  const app = given ?? createMerchantApp(options);
  // Connected before the first request (Redis); a shared state that does not answer yet is what /readyz reports.
  await app.api.ready().catch((err: Error) => app.log.warn({ err: err.message }, 'starting while not ready'));
  const server = await listen(app.fetch, options.port ?? 3000, {
    hostname: options.host,
    beforeClose: () => app.api.drain(),
  });
  let stopping: Promise<void> | undefined;
  const stop = () => (stopping ??= server.close().finally(() => app.api.close()));
  return { app, port: server.port, url: `http://localhost:${server.port}`, stop };
}
