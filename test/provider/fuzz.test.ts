// Property-based test: malformed bodies, queries, path parameters and headers (NUL bytes, huge numbers, wrong types)
// thrown at every route of the payment service, on SQLite or (test:server:pg) PostgreSQL. Never a 5xx, always the
// envelope; a test fails when a route is added without being fuzzed here.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { assertEnvelope, dataOf } from '../support/envelope';
import { createTestProvider, signHeaders, testDatabaseUrl, type TestProvider } from '../support/provider';
import { createFiat } from './deposit-helpers';

type Auth = 'none' | 'bearer' | 'signed' | 'garbage';
/**
 * One route: its method and path as the app declares it (`:param` filled by the fuzzed segment), and what it reads.
 * `page`: a browser page, whose errors are pages too (HTML); its 5xx are still failures.
 */
interface Endpoint {
  method: string;
  route: string;
  auth: Auth[];
  fields?: string[];
  query?: string[];
  page?: true;
}

const S: Auth[] = ['signed', 'none', 'garbage'];
const A: Auth[] = ['bearer', 'none', 'garbage'];
const AS: Auth[] = ['bearer', 'signed', 'none', 'garbage'];
const N: Auth[] = ['none', 'garbage'];

/** Every route of the app (a test below checks that none is missing). */
const ENDPOINTS: Endpoint[] = [
  { method: 'GET', route: '/healthz', auth: N },
  { method: 'GET', route: '/readyz', auth: N },
  { method: 'GET', route: '/v1/deposit', auth: S, query: ['limit', 'page', 'sort', 'status', 'depositType'] },
  { method: 'GET', route: '/v1/deposit/payment-method', auth: A, query: ['currency'] },
  { method: 'GET', route: '/v1/deposit/:depositIdOrReference', auth: S },
  {
    method: 'POST',
    route: '/v1/deposit/fiat',
    auth: A,
    fields: [
      'inputCurrency',
      'inputAmount',
      'outputCurrency',
      'outputAmount',
      'balanceType',
      'paymentMethod',
      'reference',
      'note',
      'quoteId',
    ],
  },
  {
    method: 'POST',
    route: '/v1/deposit/crypto',
    auth: A,
    fields: ['inputCurrency', 'inputAmount', 'outputCurrency', 'reference', 'note', 'quoteId'],
  },
  {
    method: 'POST',
    route: '/v1/deposit/convert-estimation',
    auth: AS,
    fields: ['inputCurrency', 'outputCurrency', 'inputAmount', 'outputAmount', 'paymentMethod'],
  },
  { method: 'GET', route: '/v1/banks', auth: AS, query: ['currency', 'country'] },
  { method: 'PATCH', route: '/v1/deposit/:depositId/cancel', auth: A },
  { method: 'PATCH', route: '/v1/deposit/:depositIdOrReference', auth: AS, fields: ['status'] },
  { method: 'POST', route: '/v1/deposit/:depositId/payments', auth: AS, fields: ['amount'] },
  { method: 'POST', route: '/v1/deposit/:depositId/attempts', auth: AS, fields: ['outcome'] },
  { method: 'GET', route: '/v1/reference/currencies', auth: N },
  { method: 'GET', route: '/v1/reference/cryptos', auth: N, query: ['useSmartContract', 'blockchainType'] },
  { method: 'GET', route: '/static/logos/:file', auth: N },
  {
    method: 'POST',
    route: '/v1/checkout',
    auth: S,
    fields: ['inputCurrency', 'inputAmount', 'outputAmount', 'outputCurrency'],
  },
  { method: 'GET', route: '/checkout/:file{kasir-checkout[\\w-]*\\.js}', auth: N, page: true },
  { method: 'GET', route: '/checkout/:id', auth: N, page: true },
  { method: 'GET', route: '/checkout/sandbox-panel.js', auth: N, page: true },
  { method: 'GET', route: '/checkout/:id/session', auth: N },
  { method: 'POST', route: '/checkout/:id/deposit', auth: N, fields: ['paymentMethod'] },
  { method: 'GET', route: '/checkout/api/checkouts/:id', auth: N },
  { method: 'POST', route: '/checkout/api/checkouts/:id/deposit', auth: N, fields: ['method'] },
  { method: 'GET', route: '/checkout/api/checkouts/:id/deposit', auth: N },
  { method: 'POST', route: '/checkout/api/checkouts/:id/cancel', auth: N },
  { method: 'POST', route: '/checkout/api/sandbox/checkouts/:id/pay', auth: N },
  { method: 'POST', route: '/checkout/api/sandbox/checkouts/:id/expire', auth: N },
  { method: 'GET', route: '/checkout/api/checkouts/:id/refund-claim', auth: N },
  {
    method: 'POST',
    route: '/v1/auth/register',
    auth: N,
    fields: ['email', 'password', 'fullName', 'nationalID', 'country', 'countryCode'],
  },
  { method: 'POST', route: '/v1/auth/login', auth: N, fields: ['email', 'password'] },
  { method: 'POST', route: '/v1/auth/verify-login', auth: N, fields: ['verificationToken', 'otp', 'isDisableExpire'] },
  { method: 'GET', route: '/v1/recipient', auth: S, query: ['limit', 'page', 'sort', 'search', 'country', 'currency'] },
  { method: 'GET', route: '/v1/recipient/:id', auth: S },
  {
    method: 'POST',
    route: '/v1/recipient',
    auth: S,
    fields: ['name', 'email', 'address', 'city', 'postCode', 'recipientType', 'organizationId', 'reference', 'bank'],
  },
  { method: 'PATCH', route: '/v1/recipient', auth: S, fields: ['name', 'email', 'bank'], query: ['id'] },
  { method: 'DELETE', route: '/v1/recipient', auth: S, query: ['id'] },
  { method: 'GET', route: '/dashboard', auth: N },
  { method: 'GET', route: '/dashboard/', auth: N },
  { method: 'GET', route: '/dashboard/dashboard.js', auth: N },
  { method: 'GET', route: '/dashboard/dashboard.css', auth: N },
  { method: 'GET', route: '/dashboard/api/account', auth: A },
  { method: 'POST', route: '/dashboard/api/client-secret/reveal', auth: A, fields: ['password'] },
  { method: 'POST', route: '/dashboard/api/client-secret/rotate', auth: A, fields: ['password'] },
  { method: 'POST', route: '/dashboard/api/webhook-secret/reveal', auth: A, fields: ['password'] },
  { method: 'POST', route: '/dashboard/api/webhook-secret/rotate', auth: A, fields: ['password'] },
  { method: 'PUT', route: '/dashboard/api/webhook-url', auth: A, fields: ['url', 'webhookUrl'] },
  { method: 'PUT', route: '/dashboard/api/checkout', auth: A, fields: ['enabled', 'checkoutEnabled'] },
  { method: 'GET', route: '/dashboard/api/webhooks', auth: A, query: ['limit', 'page', 'status'] },
  { method: 'POST', route: '/dashboard/api/webhooks/:id/resend', auth: A },
  { method: 'PUT', route: '/dashboard/api/underpayment-tolerance', auth: A, fields: ['underpaymentTolerance'] },
  { method: 'GET', route: '/dashboard/api/deposits', auth: A, query: ['limit', 'status'] },
  { method: 'POST', route: '/dashboard/api/deposits/:depositId/pay', auth: A },
  { method: 'POST', route: '/dashboard/api/deposits/:depositId/expire', auth: A },
  { method: 'GET', route: '/sandbox/webhooks', auth: AS, query: ['limit', 'after', 'depositId'] },
  { method: 'POST', route: '/sandbox/deposits/:depositId/resend', auth: AS },
  { method: 'GET', route: '/sandbox/ewallet/:depositId', auth: N, page: true },
  { method: 'POST', route: '/sandbox/ewallet/:depositId/approve', auth: N, page: true },
  { method: 'POST', route: '/sandbox/ewallet/:depositId/decline', auth: N, page: true },
  { method: 'POST', route: '/sandbox/ewallet/:depositId/insufficient-balance', auth: N, page: true },
  { method: 'GET', route: '/sandbox/mailbox', auth: N, query: ['email', 'to'] },
  { method: 'GET', route: '/docs', auth: N },
  { method: 'GET', route: '/v1/openapi.json', auth: N },
];

/** The route's path with each parameter replaced by `segment` (a pattern-constrained one by a value it accepts or not). */
const pathOf = (ep: Endpoint, segment: string) =>
  ep.route
    .replace(/:file\{[^}]*\}/, () => (segment.length % 2 ? `kasir-checkout-${segment}.js` : segment))
    .replace(/:[A-Za-z]+/g, segment);

const nasty = fc.oneof(
  fc.string(),
  fc.constantFrom(
    '\u0000',
    'a\u0000b',
    '1.797e308',
    '1e300',
    '-1e308',
    '',
    ' ',
    '0',
    '-1',
    '1e309',
    'NaN',
    'Infinity',
    'null',
    'true',
    '[]',
    '{}',
    '%',
    '%00',
    '../',
    'IDR',
    'BCA_VA',
    'QRIS',
    'BCA_TRANSFER',
    'USDC-POLYGON',
    'ETH-ETHEREUM',
    'completed',
    '-createdAt',
    '100',
    '101',
    '9007199254740993',
    'é漢字',
    "' OR 1=1 --",
    '<script>',
  ),
);
const anyValue = fc.oneof(
  fc.jsonValue(),
  fc.double(),
  fc.constantFrom(
    'a\u0000b',
    '\u0000',
    1.7976931348623157e308,
    1e300,
    -1e300,
    1e30,
    2 ** 53 + 2,
    '1e300',
    0,
    -0,
    1e-300,
    1e308,
    150000,
    10.123456789,
    -5,
    Number.MAX_SAFE_INTEGER,
    'IDR',
    'BCA_VA',
    null,
    true,
    [],
    {},
    { fiat: 10 },
    { crypto: 'x' },
  ),
);

/** A value as one path segment. "." and ".." (also as %2e) are no segment: URL parsing removes them before any route sees them. */
const pathSegment = (value: string) => {
  const segment = encodeURIComponent(value);
  return !segment || /^(\.|%2e){1,2}$/i.test(segment) ? 'x' : segment;
};

function bodyArb(fields: string[] | undefined) {
  const structured = fields
    ? fc.dictionary(fc.constantFrom(...fields), anyValue, { maxKeys: fields.length })
    : fc.constant({});
  return fc.oneof(
    structured.map((o) => JSON.stringify(o)),
    fc.jsonValue().map((v) => JSON.stringify(v)),
    fc.string({ maxLength: 40 }), // usually malformed JSON
    fc.constantFrom(
      '',
      '{',
      '{"a":',
      'null',
      '[]',
      '"str"',
      '{"inputAmount":1e999}',
      '{"inputAmount":1.797e308}',
      '\u0000',
      '"\\u0000"',
      '{"a\\u0000":1}',
      '{"__proto__":{"x":1}}',
    ),
  );
}

const queryArb = (keys: string[] | undefined) =>
  fc.dictionary(fc.constantFrom(...(keys ?? ['x']), 'zzz'), nasty, { maxKeys: 4 }).map((q) =>
    Object.entries(q)
      .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
      .join('&'),
  );

describe('fuzz: never a 5xx, always the envelope', () => {
  let p: TestProvider;
  let realIds: string[];
  before(async () => {
    p = await createTestProvider();
    const d = await createFiat(p, { reference: 'fuzz-ref' });
    const res = await p.signed('POST', '/v1/checkout', { inputCurrency: 'IDR', inputAmount: 150000 });
    realIds = [d.depositId, 'fuzz-ref', (await dataOf<{ id: string }>(res)).id];
  });
  let requests = 0;
  after(async () => {
    console.log(
      `provider fuzz: ${requests} requests on ${testDatabaseUrl ? 'PostgreSQL' : 'SQLite'}, every answer below 500, errors in the envelope (when no test above failed)`,
    );
    await p.close();
  });

  it('covers every route of the app', () => {
    const fuzzed = new Set(ENDPOINTS.map((ep) => `${ep.method} ${ep.route}`));
    const missing = [
      ...new Set(p.app.routes.filter((r) => r.method !== 'ALL').map((r) => `${r.method} ${r.path}`)),
    ].filter((r) => !fuzzed.has(r));
    assert.deepEqual(missing, []);
  });

  for (const ep of ENDPOINTS) {
    it(`${ep.method} ${ep.route}`, async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(nasty.map(pathSegment), fc.constantFrom(...realIds)),
          queryArb(ep.query),
          bodyArb(ep.fields),
          fc.constantFrom(...ep.auth),
          fc.constantFrom(
            'application/json',
            'text/plain',
            'application/x-www-form-urlencoded',
            'application/json; charset=utf-8',
            '',
          ),
          async (seg, query, raw, auth, contentType) => {
            let target = pathOf(ep, seg);
            if (query) target += (target.includes('?') ? '&' : '?') + query;
            const hasBody = ep.method !== 'GET' && ep.method !== 'DELETE';
            const body = hasBody ? raw : '';
            const headers: Record<string, string> = {};
            if (hasBody && contentType) headers['Content-Type'] = contentType;
            if (auth === 'bearer') headers.Authorization = `Bearer ${p.creds.accessToken}`;
            if (auth === 'signed')
              Object.assign(
                headers,
                signHeaders(
                  p.creds.clientId,
                  p.creds.clientSecret,
                  ep.method,
                  target,
                  body,
                  p.deps.now().toISOString(),
                ),
              );
            if (auth === 'garbage')
              Object.assign(headers, {
                Authorization: 'Bearer \u00ff',
                'X-Client-ID': "'",
                'X-Timestamp': 'yesterday',
                'X-Signature': 'zz',
              });
            let res: Response;
            try {
              requests++;
              res = await p.app.request(`http://localhost${target}`, {
                method: ep.method,
                headers,
                body: hasBody && body ? body : undefined,
              });
            } catch (err) {
              // An invalid URL or header value is refused by the client before it reaches the app.
              if (err instanceof TypeError) return;
              throw err;
            }
            const text = await res.text();
            assert.ok(res.status < 500, `${ep.method} ${target} body=${JSON.stringify(body)} -> ${res.status} ${text}`);
            // Pages, scripts, logos and the OpenAPI document answer in their own format; every error is the envelope.
            if ((res.status < 400 || ep.page) && !/json/.test(res.headers.get('content-type') ?? '')) return;
            if (ep.route === '/v1/openapi.json' && res.status === 200) return;
            if (res.status === 304 || res.status === 204) return;
            assertEnvelope(res.status, text);
          },
        ),
        { numRuns: Number(process.env.FUZZ_RUNS || 200) },
      );
    });
  }
});
