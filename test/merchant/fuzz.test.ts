// Property-based test of the widget API: malformed bodies, ids, queries and headers (NUL bytes, huge numbers, wrong
// types) at every /api route of the merchant backend (the webhook receiver, probes and event stream included; a test
// fails when a route is not fuzzed here), against a real sandbox on SQLite or (test:server:pg) PostgreSQL. Never a 5xx,
// always the envelope, and never a secret in any answer.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { assertEnvelope } from '../support/envelope';
import type { Checkout } from '@kasir/checkout';
import { WIDGET_FILE_PARAM } from '../../server/common/widget-files';
import { testDatabaseUrl } from '../support/provider';
import { createMerchantApp, type MerchantApp } from '../../server/merchant/server';
import { call, startUpstream, type Envelope, type Upstream } from './support';

/** A route: how to reach it with a fuzzed id, and (when its path is a pattern) the route as the app declares it. */
interface Route {
  method: string;
  path: (id: string) => string;
  fields?: string[];
  route?: string;
}

const ROUTES: Route[] = [
  { method: 'POST', path: () => '/api/checkouts', fields: ['amount', 'currency', 'orderId'] },
  { method: 'GET', path: (id) => `/api/checkouts/${id}` },
  { method: 'POST', path: (id) => `/api/checkouts/${id}/deposit`, fields: ['method'] },
  { method: 'GET', path: (id) => `/api/checkouts/${id}/deposit` },
  { method: 'POST', path: (id) => `/api/checkouts/${id}/cancel` },
  { method: 'POST', path: (id) => `/api/sandbox/checkouts/${id}/pay` },
  { method: 'POST', path: (id) => `/api/sandbox/checkouts/${id}/expire` },
  { method: 'GET', path: (id) => `/api/checkouts/${id}/refund-claim` },
  {
    method: 'POST',
    path: (id) => `/api/checkouts/${id}/refund-claim`,
    fields: ['bankCode', 'accountNumber', 'accountName', 'email', 'address', 'city', 'postCode', 'memo', 'amount'],
  },
  {
    method: 'POST',
    path: () => '/api/webhooks/kasir',
    fields: ['type', 'orderId', 'depositId', 'status', 'data', 'timestamp'],
  },
  { method: 'PUT', path: (id) => `/api/checkouts/${id}` },
  { method: 'GET', path: (id) => `/api/checkouts/${id}/events` },
  { method: 'GET', path: () => '/api/healthz' },
  { method: 'GET', path: () => '/api/readyz' },
  { method: 'GET', path: () => '/healthz' },
  { method: 'GET', path: () => '/readyz' },
  // The widget's script and chunks (WIDGET_FILE_PARAM): a fuzzed name, and one that fits the pattern.
  {
    method: 'GET',
    path: (id) => (id.length % 2 ? `/kasir-checkout-${id}.js` : `/${id}`),
    route: `GET /${WIDGET_FILE_PARAM}`,
  },
  { method: 'HEAD', path: (id) => `/kasir-checkout-${id}.js`, route: `HEAD /${WIDGET_FILE_PARAM}` },
];

const nasty = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.constantFrom(
    '\u0000',
    'a\u0000b',
    '1.797e308',
    '1e300',
    '',
    ' ',
    '0',
    '-1',
    '1e309',
    'NaN',
    '150000',
    '150000.5',
    '0.1',
    '9007199254740993',
    'IDR',
    'idr',
    'USD',
    'BCA_VA',
    'QRIS',
    'OVO',
    '%',
    '../',
    'é漢字',
    '<script>',
    "' OR 1=1 --",
  ),
);
const anyValue = fc.oneof(
  fc.jsonValue(),
  nasty,
  fc.double(),
  fc.constantFrom(null, true, [], {}, -5, 150000, 1e308, 1.7976931348623157e308, 1e30, 2 ** 53 + 2, 'a\u0000b'),
);

function bodyArb(fields: string[] | undefined) {
  const structured = fields
    ? fc.dictionary(fc.constantFrom(...fields), anyValue, { maxKeys: fields.length })
    : fc.constant({});
  return fc.oneof(
    structured.map((o) => JSON.stringify(o)),
    fc.jsonValue().map((v) => JSON.stringify(v)),
    fc.string({ maxLength: 40 }),
    fc.constantFrom(
      '',
      '{',
      'null',
      '[]',
      '{"amount":1e999}',
      '{"amount":1.797e308}',
      '{"method":"a\\u0000"}',
      '{"a\\u0000":1}',
      '{"__proto__":{"x":1}}',
      'x'.repeat(70_000),
    ),
  );
}

const headersArb = fc.record(
  {
    'content-type': fc.constantFrom('application/json', 'text/plain', ''),
    'if-none-match': fc.constantFrom('', '*', 'W/"x"', '"', 'garbage'),
    origin: fc.constantFrom('', 'https://evil.example', 'null'),
    'webhook-id': fc.constantFrom('', 'msg_1', 'msg_' + 'x'.repeat(300)),
    'webhook-timestamp': fc.constantFrom('', '0', '-1', 'NaN', String(Math.floor(Date.now() / 1000)), '99999999999999'),
    'webhook-signature': fc.constantFrom('', 'v1,', 'v1,AAAA', 'v2,abc', 'garbage'),
  },
  { requiredKeys: [] },
);

describe('merchant backend fuzz: never a 5xx, always the envelope, never a secret', () => {
  let up: Upstream;
  let app: MerchantApp;
  let realIds: string[];
  before(async () => {
    up = await startUpstream();
    // The whole kasir-merchant app: /api (createKasirApi), the widget script and the probes.
    app = createMerchantApp({ ...up.config({ checkoutRateLimit: 100_000 }), fetch: up.countingFetch });
    const created = await call<Envelope<Checkout>>(app, 'POST', '/api/checkouts', {
      amount: '150000',
      currency: 'IDR',
    });
    const chosen = await call<Envelope<Checkout>>(app, 'POST', '/api/checkouts', { amount: '250000', currency: 'IDR' });
    await call(app, 'POST', `/api/checkouts/${chosen.json.data.id}/deposit`, { method: 'QRIS' });
    realIds = [created.json.data.id, chosen.json.data.id];
  });
  let requests = 0;
  after(async () => {
    console.log(
      `merchant fuzz: ${requests} requests, the payment service on ${testDatabaseUrl ? 'PostgreSQL' : 'SQLite'}`,
    );
    await up.close();
  });

  it('covers every route of the merchant app', () => {
    const fuzzed = new Set(ROUTES.map((r) => r.route ?? `${r.method} ${r.path(':id')}`));
    const routes = app.routes
      .filter((r) => r.method !== 'ALL' && !r.path.endsWith('/*'))
      .map((r) => `${r.method} ${r.path}`);
    assert.deepEqual(
      [...new Set(routes)].filter((r) => !fuzzed.has(r)),
      [],
    );
  });

  for (const route of ROUTES) {
    it(`${route.method} ${route.path(':id')}`, async () => {
      const secrets = [
        up.provider.credentials.clientSecret,
        up.provider.credentials.accessToken,
        up.provider.credentials.webhookSecret,
      ];
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            nasty.map((s) => encodeURIComponent(s) || 'x'),
            fc.constantFrom(...realIds),
          ),
          bodyArb(route.fields),
          headersArb,
          async (id, body, headers) => {
            const target = route.path(id);
            const hasBody = route.method !== 'GET';
            const cleaned = Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== ''));
            let res: Response;
            try {
              requests++;
              res = await app.request(`http://localhost${target}`, {
                method: route.method,
                headers: cleaned,
                body: hasBody && body ? body : undefined,
              });
            } catch (err) {
              if (err instanceof TypeError) return; // refused by the client before reaching the app
              throw err;
            }
            if (res.headers.get('content-type')?.startsWith('text/event-stream')) {
              await res.body?.cancel(); // a real checkout's stream stays open
              assert.equal(res.status, 200);
              return;
            }
            const text = await res.text();
            assert.ok(
              res.status < 500,
              `${route.method} ${target} ${JSON.stringify(body).slice(0, 200)} -> ${res.status} ${text}`,
            );
            for (const secret of secrets)
              assert.ok(!text.includes(secret), `${route.method} ${target} leaked a secret`);
            if (res.status === 304 || route.method === 'HEAD') return; // no body to check
            if (res.status < 400 && !/json/.test(res.headers.get('content-type') ?? '')) return; // the widget's script
            assertEnvelope(res.status, text);
          },
        ),
        { numRuns: Number(process.env.FUZZ_RUNS || 200) },
      );
    });
  }
});
