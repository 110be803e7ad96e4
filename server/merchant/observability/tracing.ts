// The merchant backend's traces and the metrics taken on the same paths (docs/observability.md): each call to the
// payment service a client span carrying W3C `traceparent` to the service, timed by operation and status; each of the
// shop's hooks a span, counted by outcome. Only @opentelemetry/api: with no SDK registered nothing is recorded.
import { context, propagation, SpanKind, SpanStatusCode, trace, isSpanContextValid } from '@opentelemetry/api';
import { failed, inSpan, tracerOf } from '../../common/observability.js';
import type { ServiceFetch } from '../client/pooled-fetch.js';
import type { MerchantHooks } from '../hooks.js';
import type { MerchantMetrics } from './metrics.js';

export const tracer = tracerOf('kasir-merchant');

/** The interface's fixed path segments; any other segment is an id (`/v1/deposit/:id`), so operations stay few. */
const PATH_WORDS = new Set([
  'v1',
  'auth',
  'login',
  'register',
  'verify-login',
  'banks',
  'checkout',
  'deposit',
  'convert-estimation',
  'crypto',
  'fiat',
  'payment-method',
  'cancel',
  'payments',
  'recipient',
  'reference',
  'cryptos',
  'currencies',
  'session',
]);

/**
 * A call's operation: its method and the interface's path with ids as `:id` (`GET /v1/deposit/:id`); a call to the
 * hosted checkout's session API under `checkoutUrl` as `/checkout/...` wherever that is.
 */
function operationOf(method: string, url: URL, checkoutUrl: string | undefined): string {
  let path = url.pathname;
  if (checkoutUrl && url.href.startsWith(`${checkoutUrl}/`))
    path = `/checkout${url.pathname.slice(new URL(checkoutUrl).pathname.replace(/\/+$/, '').length)}`;
  const template = path
    .split('/')
    .map((segment) => (segment === '' || PATH_WORDS.has(segment) ? segment : ':id'))
    .join('/');
  return `${method.toUpperCase()} ${template}`;
}

/**
 * The fetch the payment-service client uses, each call a client span (its `traceparent` sent to the service) and, with
 * metrics, timed into kasir_service_request_duration_seconds. `base` is asked per call (the shop's fetch, else the
 * client's keep-alive pool, client/pooled-fetch.ts); `checkoutUrl` is asked per call too (the connection is read at the first request).
 */
export function observedFetch(
  base: () => ServiceFetch,
  checkoutUrl: () => string | undefined,
  metrics: MerchantMetrics | undefined,
): ServiceFetch {
  return async (url, init) => {
    const method = init.method ?? 'GET';
    const operation = operationOf(method, url, checkoutUrl());
    const span = tracer().startSpan(operation, {
      kind: SpanKind.CLIENT,
      attributes: { 'http.request.method': method.toUpperCase(), 'server.address': url.hostname },
    });
    // The service continues the trace (a non-recording span's context too, when the SDK's sampler left it out).
    if (isSpanContextValid(span.spanContext())) {
      const headers: Record<string, string> = { ...(init.headers as Record<string, string> | undefined) };
      propagation.inject(trace.setSpan(context.active(), span), headers);
      init = { ...init, headers };
    }
    const started = performance.now();
    const done = (status: string) => metrics?.serviceCall(operation, status, (performance.now() - started) / 1000);
    try {
      const res = await base()(url, init);
      done(String(res.status));
      span.setAttribute('http.response.status_code', res.status);
      if (res.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      return res;
    } catch (err) {
      done('error');
      failed(span, err);
      throw err;
    } finally {
      span.end();
    }
  };
}

/**
 * The shop's hooks, each run in a span (`hook onDepositCompleted`) and, with metrics, counted in kasir_hooks_total by
 * outcome; with metrics, onCheckoutCreated also counts kasir_checkouts_created_total (the service's one place a
 * checkout is created calls it). A hook the shop did not pass stays absent.
 */
export function observedHooks(hooks: MerchantHooks, metrics: MerchantMetrics | undefined): MerchantHooks {
  const observed: Record<string, unknown> = {};
  for (const [name, hook] of Object.entries(hooks) as Array<[string, ((...args: never[]) => unknown) | undefined]>) {
    if (typeof hook !== 'function') continue;
    observed[name] = (...args: never[]) =>
      inSpan(tracer, `hook ${name}`, async () => {
        try {
          const answer = await hook(...args);
          metrics?.hookRun(name, 'ok');
          return answer;
        } catch (err) {
          metrics?.hookRun(name, 'error');
          throw err;
        }
      });
  }
  if (metrics) {
    const shops = observed.onCheckoutCreated as MerchantHooks['onCheckoutCreated'];
    observed.onCheckoutCreated = async (checkout: Parameters<NonNullable<MerchantHooks['onCheckoutCreated']>>[0]) => {
      metrics.checkoutCreated();
      await shops?.(checkout);
    };
  }
  return observed as MerchantHooks;
}
