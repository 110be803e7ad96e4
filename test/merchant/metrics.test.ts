// Metrics with a payment end to end (docs/observability.md): the merchant backend and the sandbox with metrics on,
// over real HTTP, a checkout created, its method chosen and paid; each series read from the scrape's text format moves
// as it should, on one copy and summed over two copies on one Redis. A metrics token refuses a scrape without it.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import perfHooks from 'node:perf_hooks';
import { after, before, describe, it } from 'node:test';
import type { Checkout } from '@kasir/checkout';
import { webhookHeaders } from '../../server/common/standard-webhooks';
import { createKasirApi } from '../../server/merchant/api';
import type { KasirApiOptions } from '../../server/merchant/config';
import { startMerchant, type RunningMerchant } from '../../server/merchant/server';
import { sandboxDeps, startSandbox, type RunningSandbox } from '../../server/provider/process/main';
import { testDatabaseEnv } from '../support/provider';
import { parsePrometheus, scrape, summed, type Scrape } from '../support/prometheus';
import { waitFor, type Envelope } from './support';

const redisUrl = process.env.KASIR_TEST_REDIS_URL;

interface Stack {
  provider: RunningSandbox;
  options(overrides?: Partial<KasirApiOptions>): KasirApiOptions;
  close(): Promise<void>;
}

/** The sandbox with metrics on (fresh data, cheap scrypt), and the merchant options for its seeded merchant. */
async function startStack(): Promise<Stack> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kasir-metrics-test-'));
  const database = await testDatabaseEnv();
  const provider = await startSandbox({
    env: { KASIR_DATA_DIR: dataDir, ...database.env },
    port: 0,
    scryptN: 2 ** 10,
    sweepIntervalMs: 60_000,
    metrics: true,
  });
  const c = provider.credentials;
  return {
    provider,
    options: (overrides = {}) => ({
      baseUrl: c.baseUrl,
      checkoutUrl: c.checkoutUrl,
      clientId: c.clientId,
      clientSecret: c.clientSecret,
      accessToken: c.accessToken,
      webhookSecret: c.webhookSecret,
      sandbox: true,
      metrics: true,
      ...overrides,
    }),
    async close() {
      await provider.stop();
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function post<T>(url: string, body: unknown = {}): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as Envelope<T>;
  assert.ok(res.ok, `${url}: ${res.status} ${JSON.stringify(json)}`);
  return json.data;
}

/** Points the sandbox merchant's webhooks at a running backend. */
async function routeWebhooksTo(provider: RunningSandbox, url: string) {
  await sandboxDeps(provider)
    .db.updateTable('merchants')
    .set({ webhook_url: `${url}/api/webhooks/kasir` })
    .execute();
}

/** The changes of the merchant's series that a paid QRIS checkout makes, between two scrapes (or sums of copies'). */
function assertPaidQris(before: (name: string, labels?: Record<string, string>) => number, now: typeof before) {
  const moved = (name: string, labels?: Record<string, string>) => now(name, labels) - before(name, labels);
  assert.equal(moved('kasir_checkouts_created_total'), 1, 'checkouts created');
  assert.equal(moved('kasir_methods_chosen_total', { kind: 'qris' }), 1, 'QRIS chosen');
  assert.equal(moved('kasir_methods_chosen_total'), 1, 'no other kind chosen');
  assert.equal(moved('kasir_deposits_settled_total', { kind: 'qris', status: 'completed' }), 1, 'QRIS completed');
  assert.equal(moved('kasir_deposits_settled_total'), 1, 'settled once');
  assert.equal(moved('kasir_time_to_pay_seconds_count', { kind: 'qris' }), 1, 'time to pay observed');
  assert.equal(moved('kasir_time_to_pay_seconds_bucket', { kind: 'qris', le: '+Inf' }), 1);
  assert.equal(moved('kasir_webhooks_received_total', { outcome: 'ok' }), 1, 'webhook ok');
  assert.equal(moved('kasir_hooks_total', { hook: 'onDepositCompleted', outcome: 'ok' }), 1, 'hook ok');
  assert.equal(moved('kasir_hooks_total', { outcome: 'error' }), 0);
  assert.equal(
    moved('kasir_service_request_duration_seconds_count', { operation: 'POST /v1/checkout', status: '200' }) +
      moved('kasir_service_request_duration_seconds_count', { operation: 'POST /v1/checkout', status: '201' }),
    1,
    'one checkout created at the service',
  );
  assert.equal(
    moved('kasir_service_request_duration_seconds_count', { operation: 'POST /checkout/:id/deposit' }),
    1,
    'the choice went to the session API',
  );
  assert.equal(
    moved('kasir_service_request_duration_seconds_count', { operation: 'POST /v1/deposit/:id/payments' }),
    1,
  );
}

describe('metrics: a payment end to end', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(async () => {
    await stack.close();
  });

  describe('one copy', () => {
    let merchant: RunningMerchant;
    const completed: string[] = [];
    before(async () => {
      merchant = await startMerchant({
        ...stack.options({ onDepositCompleted: async (e) => void completed.push(e.checkoutId) }),
        port: 0,
      });
      await routeWebhooksTo(stack.provider, merchant.url);
    });
    after(async () => {
      await merchant.stop();
    });

    it('moves every series of the funnel, the webhooks, the hooks and the service calls', async () => {
      const metricsUrl = `${merchant.url}/api/metrics`;
      const first = await scrape(metricsUrl);
      const sandboxFirst = await scrape(`${stack.provider.url}/metrics`);
      assert.equal(first.types.get('kasir_checkouts_created_total'), 'counter');
      assert.equal(first.types.get('kasir_time_to_pay_seconds'), 'histogram');
      assert.equal(first.types.get('kasir_service_request_duration_seconds'), 'histogram');
      assert.equal(first.types.get('kasir_open_checkouts'), 'gauge');
      assert.ok(first.has('process_cpu_user_seconds_total'), 'the default process metrics');
      assert.ok(first.has('nodejs_eventloop_lag_seconds'));

      const checkout = await post<Checkout>(`${merchant.url}/api/checkouts`, { amount: '150000', currency: 'IDR' });
      const open = await scrape(metricsUrl);
      assert.equal(open.value('kasir_open_checkouts') - first.value('kasir_open_checkouts'), 1, 'open once created');
      await post(`${merchant.url}/api/checkouts/${checkout.id}/deposit`, { method: 'QRIS' });
      await post(`${merchant.url}/api/sandbox/checkouts/${checkout.id}/pay`);
      await waitFor(() => completed.includes(checkout.id));
      // The hook runs before the webhook is acknowledged (and counted): the scrape after the answer.
      const paid = await waitFor<Scrape>(async () => {
        const s = await scrape(metricsUrl);
        const answered =
          s.value('kasir_webhooks_received_total', { outcome: 'ok' }) >
          first.value('kasir_webhooks_received_total', { outcome: 'ok' });
        return (answered && s) as Scrape;
      });
      assertPaidQris(first.value, paid.value);
      assert.equal(paid.value('kasir_open_checkouts'), first.value('kasir_open_checkouts'), 'settled: no longer open');

      // The sandbox's side: one deposit created and completed, its webhook delivered (and timed) and none left.
      const sandbox = await waitFor<Scrape>(async () => {
        const s = await scrape(`${stack.provider.url}/metrics`);
        const delivered =
          s.value('kasir_sandbox_webhook_delivery_seconds_count') >
          sandboxFirst.value('kasir_sandbox_webhook_delivery_seconds_count');
        return (delivered && s) as Scrape;
      });
      const movedSandbox = (name: string, labels?: Record<string, string>) =>
        sandbox.value(name, labels) - sandboxFirst.value(name, labels);
      assert.equal(movedSandbox('kasir_sandbox_deposits_total', { status: 'created' }), 1);
      assert.equal(movedSandbox('kasir_sandbox_deposits_total', { status: 'completed' }), 1);
      assert.equal(movedSandbox('kasir_sandbox_deposits_total', { status: 'expired' }), 0);
      assert.equal(movedSandbox('kasir_sandbox_webhook_deliveries_total', { outcome: 'ok' }), 1);
      assert.equal(movedSandbox('kasir_sandbox_webhook_delivery_seconds_count'), 1);
      assert.equal(sandbox.types.get('kasir_sandbox_outbox_pending'), 'gauge');
      assert.equal(sandbox.value('kasir_sandbox_outbox_pending'), 0);
      assert.ok(!sandbox.has('process_resident_memory_bytes'), "the sandbox's own series, no process metrics");
    });

    it('counts a repeated delivery as a duplicate and a forged one as bad_signature, and settles nothing again', async () => {
      const before = await scrape(`${merchant.url}/api/metrics`);
      const [row] = await sandboxDeps(stack.provider)
        .db.selectFrom('webhook_deliveries')
        .select(['id', 'payload'])
        .where('event_type', '=', 'deposit.completed')
        .execute();
      assert.ok(row);
      const deliver = (secret: string) =>
        fetch(`${merchant.url}/api/webhooks/kasir`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...webhookHeaders(secret, row.id, row.payload) },
          body: row.payload,
        });
      assert.equal((await deliver(stack.provider.credentials.webhookSecret)).status, 200);
      const forged = `whsec_${Buffer.from(randomUUID()).toString('base64')}`;
      assert.equal((await deliver(forged)).status, 401);
      const now = await scrape(`${merchant.url}/api/metrics`);
      const moved = (name: string, labels?: Record<string, string>) =>
        now.value(name, labels) - before.value(name, labels);
      assert.equal(moved('kasir_webhooks_received_total', { outcome: 'duplicate' }), 1);
      assert.equal(moved('kasir_webhooks_received_total', { outcome: 'bad_signature' }), 1);
      assert.equal(moved('kasir_webhooks_received_total', { outcome: 'ok' }), 0);
      assert.equal(moved('kasir_deposits_settled_total'), 0);
    });

    it('the Grafana dashboard parses, and every series it queries is in the scrapes', async () => {
      const dashboard = JSON.parse(readFileSync(new URL('../../docs/grafana/kasir.json', import.meta.url), 'utf8')) as {
        panels: Array<{ title: string; targets?: Array<{ expr: string }> }>;
      };
      const queries = dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr));
      assert.ok(queries.length >= 10, `the dashboard's queries were read: ${queries.length}`);
      const exposed = new Set(
        [await scrape(`${merchant.url}/api/metrics`), await scrape(`${stack.provider.url}/metrics`)].flatMap((s) =>
          s.samples.map((sample) => sample.name),
        ),
      );
      const named = new Set(queries.flatMap((query) => query.match(/\b(?:kasir|nodejs|process)_[a-z0-9_]+/g) ?? []));
      for (const name of [
        'kasir_checkouts_created_total',
        'kasir_time_to_pay_seconds_bucket',
        'kasir_webhooks_received_total',
      ])
        assert.ok(named.has(name), `the dashboard queries ${name}`);
      const missing = [...named].filter((name) => !exposed.has(name));
      assert.deepEqual(missing, [], 'every series the dashboard queries is exposed');
    });

    it('serves the same scrape at the root of kasir-merchant, where Prometheus looks by default', async () => {
      const root = await scrape(`${merchant.url}/metrics`);
      assert.ok(root.has('kasir_checkouts_created_total'));
    });
  });

  describe(
    'two copies on one Redis',
    { skip: !redisUrl && 'KASIR_TEST_REDIS_URL is not set (run through test/support/with-redis.sh)' },
    () => {
      let a: RunningMerchant;
      let b: RunningMerchant;
      const completed: string[] = [];
      before(async () => {
        const shared = stack.options({
          redisUrl,
          redisPrefix: `kasir-test-${randomUUID()}:`,
          onDepositCompleted: async (e) => void completed.push(e.checkoutId),
        });
        a = await startMerchant({ ...shared, port: 0 });
        b = await startMerchant({ ...shared, port: 0 });
        await routeWebhooksTo(stack.provider, b.url); // the webhook reaches copy B only
      });
      after(async () => {
        await a.stop();
        await b.stop();
      });

      it('each copy counts its own, and their sum is the one payment', async () => {
        const copies = () => Promise.all([scrape(`${a.url}/metrics`), scrape(`${b.url}/metrics`)]);
        const first = await copies();
        // Created on copy A, chosen on copy B, paid on copy A: each step counted on the copy that took it.
        const checkout = await post<Checkout>(`${a.url}/api/checkouts`, { amount: '99000', currency: 'IDR' });
        await post(`${b.url}/api/checkouts/${checkout.id}/deposit`, { method: 'QRIS' });
        await post(`${a.url}/api/sandbox/checkouts/${checkout.id}/pay`);
        await waitFor(() => completed.includes(checkout.id));
        // The hook runs before the webhook is acknowledged (and counted): the scrapes after the answer.
        const paid = await waitFor<Scrape[]>(async () => {
          const scrapes = await copies();
          const answered =
            summed(scrapes, 'kasir_webhooks_received_total', { outcome: 'ok' }) >
            summed(first, 'kasir_webhooks_received_total', { outcome: 'ok' });
          return (answered && scrapes) as Scrape[];
        });
        assertPaidQris(
          (name, labels) => summed(first, name, labels),
          (name, labels) => summed(paid, name, labels),
        );
        const [aNow, bNow] = paid;
        const [aFirst, bFirst] = first;
        assert.equal(aNow!.value('kasir_checkouts_created_total') - aFirst!.value('kasir_checkouts_created_total'), 1);
        assert.equal(
          bNow!.value('kasir_methods_chosen_total', { kind: 'qris' }) -
            bFirst!.value('kasir_methods_chosen_total', { kind: 'qris' }),
          1,
        );
        assert.equal(
          bNow!.value('kasir_webhooks_received_total', { outcome: 'ok' }) -
            bFirst!.value('kasir_webhooks_received_total', { outcome: 'ok' }),
          1,
        );
        // The open checkouts are the shop's, the same on both copies (a dashboard takes max, not sum).
        assert.equal(aNow!.value('kasir_open_checkouts'), bNow!.value('kasir_open_checkouts'));

        // The same completion told to copy A as well (a resend with a new webhook id): not settled twice in all.
        const [row] = await sandboxDeps(stack.provider)
          .db.selectFrom('webhook_deliveries')
          .select(['payload'])
          .where('deposit_id', '=', checkout.id)
          .where('event_type', '=', 'deposit.completed')
          .execute();
        const resent = await fetch(`${a.url}/api/webhooks/kasir`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...webhookHeaders(stack.provider.credentials.webhookSecret, `msg_resend_${checkout.id}`, row!.payload),
          },
          body: row!.payload,
        });
        assert.equal(resent.status, 200);
        const later = await copies();
        assert.equal(summed(later, 'kasir_deposits_settled_total') - summed(first, 'kasir_deposits_settled_total'), 1);
        assert.equal(
          summed(later, 'kasir_webhooks_received_total', { outcome: 'ok' }) -
            summed(first, 'kasir_webhooks_received_total', { outcome: 'ok' }),
          2,
        );
      });
    },
  );
});

describe('metrics: the token and the switch', () => {
  const options: KasirApiOptions = {
    baseUrl: 'http://127.0.0.1:9',
    clientId: 'client',
    clientSecret: 'secret',
    accessToken: 'token',
    webhookSecret: `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`,
  };

  it('answers 401 without the bearer token, or with another one, and 200 with it', async () => {
    const api = createKasirApi({ ...options, metrics: true, metricsToken: 'scrape-me' });
    try {
      const without = await api.request('/metrics');
      assert.equal(without.status, 401);
      assert.equal(without.headers.get('www-authenticate'), 'Bearer realm="metrics"');
      const body = (await without.json()) as { statusCode: number; message: string };
      assert.equal(body.statusCode, 401);
      assert.doesNotMatch(body.message, /scrape-me/);
      assert.equal((await api.request('/metrics', { headers: { authorization: 'Bearer scrape-mf' } })).status, 401);
      assert.equal((await api.request('/metrics', { headers: { authorization: 'Basic scrape-me' } })).status, 401);
      const ok = await api.request('/metrics', { headers: { authorization: 'Bearer scrape-me' } });
      assert.equal(ok.status, 200);
      assert.ok(parsePrometheus(await ok.text()).has('kasir_checkouts_created_total'));
    } finally {
      await api.close();
    }
  });

  it('reads KASIR_METRICS and KASIR_METRICS_TOKEN from the environment', async () => {
    const saved = { m: process.env.KASIR_METRICS, t: process.env.KASIR_METRICS_TOKEN };
    process.env.KASIR_METRICS = 'true';
    process.env.KASIR_METRICS_TOKEN = 'from-env';
    try {
      const api = createKasirApi(options);
      assert.equal((await api.request('/metrics')).status, 401);
      assert.equal((await api.request('/metrics', { headers: { authorization: 'Bearer from-env' } })).status, 200);
      await api.close();
    } finally {
      for (const [name, value] of [
        ['KASIR_METRICS', saved.m],
        ['KASIR_METRICS_TOKEN', saved.t],
      ] as const)
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
    }
  });

  it('serves no /metrics unless metrics are on, and two apps in one process keep their own counts', async () => {
    const off = createKasirApi(options);
    assert.equal((await off.request('/metrics')).status, 404);
    await off.close();
    const one = createKasirApi({ ...options, metrics: true });
    const two = createKasirApi({ ...options, metrics: true });
    try {
      // A forged webhook on app one only.
      await one.request('/webhooks/kasir', {
        method: 'POST',
        body: '{}',
        headers: { 'content-type': 'application/json' },
      });
      const read = async (api: typeof one) => parsePrometheus(await (await api.request('/metrics')).text());
      assert.equal((await read(one)).value('kasir_webhooks_received_total', { outcome: 'bad_signature' }), 1);
      assert.equal((await read(two)).value('kasir_webhooks_received_total', { outcome: 'bad_signature' }), 0);
    } finally {
      await one.close();
      await two.close();
    }
  });

  it('kasir.check() says whether metrics are on and protected', async () => {
    const lineOf = async (extra: Partial<KasirApiOptions>) => {
      const api = createKasirApi({ ...options, ...extra });
      try {
        const report = await api.check();
        const line = report.checks.find((check) => check.name === 'metrics');
        assert.ok(line?.ok, JSON.stringify(line));
        return line.message;
      } finally {
        await api.close();
      }
    };
    assert.match(await lineOf({}), /^off/);
    assert.match(await lineOf({ metrics: true }), /not protected: .*KASIR_METRICS_TOKEN/);
    assert.match(
      await lineOf({ metrics: true, metricsToken: 'scrape-me-0123456789' }),
      /protected by KASIR_METRICS_TOKEN \(metricsToken\)$/,
    );
    assert.match(
      await lineOf({ metrics: true, metricsToken: 'scrape-me' }),
      /of 9 bytes, which can be guessed: use at least 16/,
    );
  });

  it('the process metrics wake an idle server at most 20 times a second to sample its event loop', async (t) => {
    // Each sample of the event loop's delay is a timer that wakes the process, whether or not a request came.
    const monitor = t.mock.method(perfHooks, 'monitorEventLoopDelay');
    const api = createKasirApi({ ...options, metrics: true });
    try {
      assert.equal(monitor.mock.callCount(), 1);
      const [sampling] = monitor.mock.calls[0]!.arguments;
      assert.ok((sampling?.resolution ?? 10) >= 50, `sampled every ${sampling?.resolution ?? 10} ms`);
      assert.ok(parsePrometheus(await (await api.request('/metrics')).text()).has('nodejs_eventloop_lag_p99_seconds'));
    } finally {
      await api.close();
    }
  });

  it('the sandbox answers 401 without its token', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'kasir-metrics-token-'));
    const provider = await startSandbox({
      env: { KASIR_DATA_DIR: dataDir, KASIR_METRICS: 'true', KASIR_METRICS_TOKEN: 'sandbox-scrape' },
      port: 0,
      scryptN: 2 ** 10,
    });
    try {
      assert.equal((await fetch(`${provider.url}/metrics`)).status, 401);
      const s = await scrape(`${provider.url}/metrics`, 'sandbox-scrape');
      assert.ok(s.has('kasir_sandbox_outbox_pending'));
    } finally {
      await provider.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
