// Traces across the three parts (docs/observability.md): with an OpenTelemetry SDK registered by the test (an
// in-memory exporter, AsyncLocalStorage contexts, the W3C propagator), one sandbox payment asked through the widget
// API is one trace: the widget API request, its call to the payment service (which received the same trace id in
// `traceparent` and continued it), and the webhook that followed with the hook it ran.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type * as OpenTelemetryApi from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import type { Checkout } from '@kasir/checkout';
import { startMerchant, type RunningMerchant } from '../../server/merchant/server';
import { sandboxDeps, startSandbox, type RunningSandbox } from '../../server/provider/process/main';
import { testDatabaseEnv } from '../support/provider';
import { waitFor, type Envelope } from './support';

// The servers' own copy of the API: an SDK is registered through the API the application uses.
const otel = createRequire(new URL('../../server/merchant/package.json', import.meta.url))(
  '@opentelemetry/api',
) as typeof OpenTelemetryApi;

const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

describe('traces: a payment is one trace from the widget API request to the hook', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const contextManager = new AsyncLocalStorageContextManager();
  /** The traceparent header of every call the merchant backend made to the service, by path. */
  const sent: Array<{ path: string; traceparent: string | null }> = [];
  let sandbox: RunningSandbox;
  let merchant: RunningMerchant;
  let dataDir: string;
  let database: Awaited<ReturnType<typeof testDatabaseEnv>>;
  const completed: string[] = [];

  before(async () => {
    otel.context.setGlobalContextManager(contextManager.enable());
    otel.propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    otel.trace.setGlobalTracerProvider(provider);
    dataDir = mkdtempSync(join(tmpdir(), 'kasir-tracing-test-'));
    database = await testDatabaseEnv();
    sandbox = await startSandbox({
      env: { KASIR_DATA_DIR: dataDir, ...database.env },
      port: 0,
      scryptN: 2 ** 10,
      sweepIntervalMs: 60_000,
    });
    const c = sandbox.credentials;
    merchant = await startMerchant({
      baseUrl: c.baseUrl,
      checkoutUrl: c.checkoutUrl,
      clientId: c.clientId,
      clientSecret: c.clientSecret,
      accessToken: c.accessToken,
      webhookSecret: c.webhookSecret,
      sandbox: true,
      port: 0,
      fetch: (input, init) => {
        const headers = new Headers(init?.headers);
        sent.push({ path: new URL(String(input)).pathname, traceparent: headers.get('traceparent') });
        return fetch(input, init);
      },
      onDepositCompleted: async (event) => {
        completed.push(event.checkoutId);
      },
    });
    await sandboxDeps(sandbox)
      .db.updateTable('merchants')
      .set({ webhook_url: `${merchant.url}/api/webhooks/kasir` })
      .execute();
  });
  after(async () => {
    await merchant.stop();
    await sandbox.stop();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
    otel.trace.disable();
    otel.propagation.disable();
    otel.context.disable();
    await provider.shutdown();
  });

  const post = async <T>(path: string, body: unknown = {}) => {
    const res = await fetch(`${merchant.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    assert.ok(res.ok, `${path}: ${res.status}`);
    return ((await res.json()) as Envelope<T>).data;
  };

  it('holds the request, the service call the sandbox continued, and the webhook with its hook', async () => {
    const checkout = await post<Checkout>('/api/checkouts', { amount: '150000', currency: 'IDR' });
    await post(`/api/checkouts/${checkout.id}/deposit`, { method: 'QRIS' });
    exporter.reset();
    sent.length = 0;
    await post(`/api/sandbox/checkouts/${checkout.id}/pay`);
    await waitFor(() => completed.includes(checkout.id));
    const spans = await waitFor<ReadableSpan[]>(() => {
      const finished = exporter.getFinishedSpans();
      return (finished.some((s) => s.name === 'POST /api/webhooks/kasir') && finished) as ReadableSpan[];
    });
    const named = (name: string) => {
      const span = spans.find((s) => s.name === name);
      assert.ok(span, `no span ${name} among ${spans.map((s) => s.name).join(', ')}`);
      return span;
    };

    const request = named('POST /api/sandbox/checkouts/:id/pay');
    const traceId = request.spanContext().traceId;
    assert.equal(request.kind, otel.SpanKind.SERVER);
    assert.equal(request.attributes['http.route'], '/api/sandbox/checkouts/:id/pay');
    assert.equal(request.attributes['http.response.status_code'], 200);

    // The call to the service: the request's child, and what the service got in traceparent is its own context.
    const call = named('POST /v1/deposit/:id/payments');
    assert.equal(call.kind, otel.SpanKind.CLIENT);
    assert.equal(call.spanContext().traceId, traceId);
    assert.equal(parentOf(call), request.spanContext().spanId);
    const header = sent.find((s) => s.path.endsWith('/payments'))?.traceparent;
    assert.equal(header, `00-${traceId}-${call.spanContext().spanId}-01`);

    // The sandbox continued it: its span of that request is the call's child, in the same trace.
    const served = spans.find((s) => s.name === 'POST /v1/deposit/:depositId/payments');
    assert.ok(served, `the sandbox's span; spans: ${spans.map((s) => s.name).join(', ')}`);
    assert.equal(served.spanContext().traceId, traceId);
    assert.equal(parentOf(served), call.spanContext().spanId);

    // The webhook the change sent, received in the same trace (the sandbox's span its parent), and its hook inside it.
    const webhook = named('POST /api/webhooks/kasir');
    assert.equal(webhook.spanContext().traceId, traceId);
    assert.equal(parentOf(webhook), served.spanContext().spanId);
    const hook = named('hook onDepositCompleted');
    assert.equal(hook.spanContext().traceId, traceId);
    assert.equal(parentOf(hook), webhook.spanContext().spanId);
  });
});
