// What both servers share to be seen live (docs/observability.md): the Prometheus scrape route of a registry of their
// own, behind an optional bearer token, and one OpenTelemetry span per request that continues a trace it is handed.
// Only @opentelemetry/api is used: with no SDK registered its tracer records nothing and a request pays for one
// non-recording span.
import { createHash, timingSafeEqual } from 'node:crypto';
import {
  context,
  defaultTextMapGetter,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context as TraceContext,
  type Span,
  type TextMapGetter,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api';
import type { HttpBindings } from '@hono/node-server';
import { Hono, type Context, type MiddlewareHandler, type Next } from 'hono';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { errorBody } from './errors.js';

/**
 * The tracer of a server (`kasir-merchant`, `kasir-sandbox`): the API's no-op one until a shop registers an SDK. Asked
 * of the registered provider at each use (kept while it stays the same), so an SDK registered later, or through
 * another copy of the API in node_modules, is the one used.
 */
export function tracerOf(name: string): () => Tracer {
  let provider: TracerProvider | undefined;
  let tracer: Tracer | undefined;
  return () => {
    const current = trace.getTracerProvider();
    if (current !== provider || !tracer) {
      provider = current;
      tracer = current.getTracer(name);
    }
    return tracer;
  };
}

/**
 * How often the process metrics sample the event loop's delay, in ms. Each sample is a timer that wakes the process:
 * at prom-client's default (10 ms) a server waiting for its next request wakes a hundred times a second for it alone.
 * At this rate a scrape interval still holds hundreds of samples, and a stall is as likely to be sampled at any rate.
 */
const EVENT_LOOP_SAMPLE_MS = 50;

/**
 * A registry of one app's own (never prom-client's global one: several apps in one process keep apart). With
 * `processMetrics`, prom-client's default Node.js process metrics too (CPU, memory, event loop lag, GC): the merchant
 * backend's. Their GC observer runs at every collection, about 3 % of the CPU of the sandbox's signed read
 * (docs/benchmarks.md), so the sandbox, whose series are its deposits and deliveries, keeps to those.
 */
export function metricsRegistry({ processMetrics }: { processMetrics: boolean }): Registry {
  const registry = new Registry();
  if (processMetrics) collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  return registry;
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/** Whether `header` is `Bearer <token>`, compared in constant time (over digests, so the length tells nothing either). */
function bearerMatches(header: string | undefined, token: string): boolean {
  const given = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1] ?? '';
  return timingSafeEqual(digest(given), digest(token)) && given.length > 0;
}

/** GET /metrics: the registry in Prometheus' text format; with a token, only for `Authorization: Bearer <token>`. */
export function metricsRoutes(registry: Registry, token: string | undefined): Hono {
  const app = new Hono();
  app.get('/metrics', async (c) => {
    c.header('Cache-Control', 'no-store');
    if (token !== undefined && !bearerMatches(c.req.header('authorization'), token)) {
      c.header('WWW-Authenticate', 'Bearer realm="metrics"');
      return c.json(errorBody(401, 'Metrics need Authorization: Bearer <token> (KASIR_METRICS_TOKEN)'), 401);
    }
    const text = await registry.metrics();
    return c.body(text, 200, { 'Content-Type': registry.contentType });
  });
  return app;
}

/** Reads a propagator's fields from a request's headers. */
const headerGetter: TextMapGetter<Headers> = {
  get: (headers, key) => headers.get(key) ?? undefined,
  keys: (headers) => {
    const names: string[] = [];
    headers.forEach((_, name) => names.push(name));
    return names;
  },
};

/**
 * The trace context a request carries (W3C `traceparent`, with the SDK's propagator), else none. Served by
 * @hono/node-server its fields are read off Node's parsed headers (`c.env.incoming`): asking for `c.req.raw.headers`
 * there builds a whole Headers object for every request, traced or not.
 */
function incomingContext(c: Context): TraceContext {
  const { incoming } = (c.env ?? {}) as Partial<HttpBindings>;
  return incoming
    ? propagation.extract(ROOT_CONTEXT, incoming.headers, defaultTextMapGetter)
    : propagation.extract(ROOT_CONTEXT, c.req.raw.headers, headerGetter);
}

/**
 * One server span per request, named by its method and route (`GET /checkouts/:id/deposit`), continuing the trace the
 * request carries; what runs for it (calls out, hooks) is its child. With no SDK the span records nothing and the
 * request runs as it would without this.
 */
export function requestSpans(tracer: () => Tracer): MiddlewareHandler {
  // Not async itself: without an SDK the request goes on at once, with no promise of this layer's own.
  return (c, next) => {
    const parent = incomingContext(c);
    const span = tracer().startSpan(c.req.method, { kind: SpanKind.SERVER }, parent);
    return span.isRecording() ? traced(c, next, parent, span) : next();
  };
}

/** The request run in its span: named by its route once the handler ran (ids left out, so spans group by route). */
async function traced(c: Context, next: Next, parent: TraceContext, span: Span): Promise<void> {
  span.setAttributes({ 'http.request.method': c.req.method, 'url.path': c.req.path });
  try {
    await context.with(trace.setSpan(parent, span), next);
  } catch (err) {
    failed(span, err);
    throw err;
  } finally {
    span.updateName(`${c.req.method} ${c.req.routePath}`);
    span.setAttribute('http.route', c.req.routePath);
    if (c.res) {
      span.setAttribute('http.response.status_code', c.res.status);
      if (c.res.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end();
  }
}

/** Marks a span failed with the error (its message only: nothing of a request's body). */
export function failed(span: Span, err: unknown): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
  if (err instanceof Error) span.recordException({ name: err.name, message: err.message });
}

/** Runs `work` in a child span of the current one named `name`, ended (and marked failed when it throws) when it settles. */
export async function inSpan<T>(tracer: () => Tracer, name: string, work: () => Promise<T>): Promise<T> {
  const span = tracer().startSpan(name);
  if (!span.isRecording()) return work();
  try {
    return await context.with(trace.setSpan(context.active(), span), work);
  } catch (err) {
    failed(span, err);
    throw err;
  } finally {
    span.end();
  }
}
