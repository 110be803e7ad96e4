// Property-based test: malformed bodies, queries, path parameters and headers thrown at every deposit,
// checkout and reference endpoint, and at the auth and recipient endpoints by path. Never a 5xx, always
// the envelope.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { assertEnvelope, dataOf } from '../support/envelope';
import { createTestProvider, signHeaders, type TestProvider } from '../support/provider';
import { createFiat } from './deposit-helpers';

type Auth = 'none' | 'bearer' | 'signed' | 'garbage';
interface Endpoint { method: string; path: (seg: string) => string; auth: Auth[]; fields?: string[]; query?: string[] }

const S: Auth[] = ['signed', 'none', 'garbage'];
const A: Auth[] = ['bearer', 'none', 'garbage'];
const N: Auth[] = ['none', 'garbage'];

const ENDPOINTS: Endpoint[] = [
  { method: 'GET', path: () => '/v1/deposit', auth: S, query: ['limit', 'page', 'sort', 'status', 'depositType'] },
  { method: 'GET', path: () => '/v1/deposit/payment-method', auth: A, query: ['currency'] },
  { method: 'GET', path: (s) => `/v1/deposit/${s}`, auth: S },
  { method: 'POST', path: () => '/v1/deposit/fiat', auth: A, fields: ['inputCurrency', 'inputAmount', 'outputCurrency', 'outputAmount', 'balanceType', 'paymentMethod', 'reference', 'note', 'quoteId'] },
  { method: 'POST', path: () => '/v1/deposit/crypto', auth: A, fields: ['inputCurrency', 'inputAmount', 'outputCurrency', 'reference', 'note', 'quoteId'] },
  { method: 'POST', path: () => '/v1/deposit/convert-estimation', auth: ['bearer', 'signed', 'none', 'garbage'], fields: ['inputCurrency', 'outputCurrency', 'inputAmount', 'outputAmount', 'paymentMethod'] },
  { method: 'GET', path: () => '/v1/banks', auth: ['bearer', 'signed', 'none', 'garbage'], query: ['currency', 'country'] },
  { method: 'PATCH', path: (s) => `/v1/deposit/${s}/cancel`, auth: A },
  { method: 'PATCH', path: (s) => `/v1/deposit/${s}`, auth: ['bearer', 'signed', 'none', 'garbage'], fields: ['status'] },
  { method: 'GET', path: () => '/v1/reference/currencies', auth: N },
  { method: 'GET', path: () => '/v1/reference/cryptos', auth: N, query: ['useSmartContract', 'blockchainType'] },
  { method: 'POST', path: () => '/v1/checkout', auth: S, fields: ['inputCurrency', 'inputAmount', 'outputAmount', 'outputCurrency'] },
  { method: 'GET', path: (s) => `/checkout/${s}/session`, auth: N },
  { method: 'POST', path: (s) => `/checkout/${s}/deposit`, auth: N, fields: ['paymentMethod'] },
  { method: 'GET', path: (s) => `/checkout/api/checkouts/${s}`, auth: N },
  { method: 'POST', path: (s) => `/checkout/api/checkouts/${s}/deposit`, auth: N, fields: ['method'] },
  { method: 'GET', path: (s) => `/checkout/api/checkouts/${s}/deposit`, auth: N },
  { method: 'POST', path: (s) => `/checkout/api/checkouts/${s}/cancel`, auth: N },
  { method: 'POST', path: (s) => `/checkout/api/sandbox/checkouts/${s}/pay`, auth: N },
  { method: 'GET', path: (s) => `/static/logos/${s}`, auth: N },
  // The other engineer's endpoints, by path.
  { method: 'POST', path: () => '/v1/auth/register', auth: N, fields: ['email', 'password', 'fullName', 'nationalID', 'country', 'countryCode'] },
  { method: 'POST', path: () => '/v1/auth/login', auth: N, fields: ['email', 'password'] },
  { method: 'POST', path: () => '/v1/auth/verify-login', auth: N, fields: ['verificationToken', 'otp', 'isDisableExpire'] },
  { method: 'GET', path: () => '/v1/recipient', auth: S, query: ['limit', 'page', 'sort', 'search', 'country', 'currency'] },
  { method: 'GET', path: (s) => `/v1/recipient/${s}`, auth: S },
  { method: 'POST', path: () => '/v1/recipient', auth: S, fields: ['name', 'email', 'address', 'city', 'postCode', 'recipientType', 'organizationId', 'reference', 'bank'] },
  { method: 'PATCH', path: (s) => `/v1/recipient?id=${s}`, auth: S, fields: ['name', 'email', 'bank'] },
  { method: 'DELETE', path: (s) => `/v1/recipient?id=${s}`, auth: S },
];

const nasty = fc.oneof(
  fc.string(),
  fc.constantFrom('', ' ', '0', '-1', '1e309', 'NaN', 'Infinity', 'null', 'true', '[]', '{}', '%', '%00', '../', 'IDR', 'BCA_VA', 'QRIS', 'BCA_TRANSFER', 'USDC-POLYGON', 'ETH-ETHEREUM', 'completed', '-createdAt', '100', '101', '9007199254740993', 'é漢字', "' OR 1=1 --", '<script>'),
);
const anyValue = fc.oneof(
  fc.jsonValue(),
  fc.double(),
  fc.constantFrom(0, -0, 1e-300, 1e308, 150000, 10.123456789, -5, Number.MAX_SAFE_INTEGER, 'IDR', 'BCA_VA', null, true, [], {}, { fiat: 10 }, { crypto: 'x' }),
);

/** A value as one path segment. "." and ".." (also as %2e) are no segment: URL parsing removes them before any route sees them. */
const pathSegment = (value: string) => {
  const segment = encodeURIComponent(value);
  return !segment || /^(\.|%2e){1,2}$/i.test(segment) ? 'x' : segment;
};

function bodyArb(fields: string[] | undefined) {
  const structured = fields ? fc.dictionary(fc.constantFrom(...fields), anyValue, { maxKeys: fields.length }) : fc.constant({});
  return fc.oneof(
    structured.map((o) => JSON.stringify(o)),
    fc.jsonValue().map((v) => JSON.stringify(v)),
    fc.string({ maxLength: 40 }), // usually malformed JSON
    fc.constantFrom('', '{', '{"a":', 'null', '[]', '"str"', '{"inputAmount":1e999}', '\u0000', '{"__proto__":{"x":1}}'),
  );
}

const queryArb = (keys: string[] | undefined) =>
  fc.dictionary(fc.constantFrom(...(keys ?? ['x']), 'zzz'), nasty, { maxKeys: 4 })
    .map((q) => Object.entries(q).map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&'));

describe('fuzz: never a 5xx, always the envelope', () => {
  let p: TestProvider;
  let realIds: string[];
  before(async () => {
    p = await createTestProvider();
    const d = await createFiat(p, { reference: 'fuzz-ref' });
    const res = await p.signed('POST', '/v1/checkout', { inputCurrency: 'IDR', inputAmount: 150000 });
    realIds = [d.depositId, 'fuzz-ref', (await dataOf<{ id: string }>(res)).id];
  });
  after(async () => { await p.close(); });

  for (const ep of ENDPOINTS) {
    it(`${ep.method} ${ep.path(':id')}`, async () => {
      await fc.assert(fc.asyncProperty(
        fc.oneof(nasty.map(pathSegment), fc.constantFrom(...realIds)),
        queryArb(ep.query),
        bodyArb(ep.fields),
        fc.constantFrom(...ep.auth),
        fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=utf-8', ''),
        async (seg, query, raw, auth, contentType) => {
          let target = ep.path(seg);
          if (query) target += (target.includes('?') ? '&' : '?') + query;
          const hasBody = ep.method !== 'GET' && ep.method !== 'DELETE';
          const body = hasBody ? raw : '';
          const headers: Record<string, string> = {};
          if (hasBody && contentType) headers['Content-Type'] = contentType;
          if (auth === 'bearer') headers.Authorization = `Bearer ${p.creds.accessToken}`;
          if (auth === 'signed') Object.assign(headers, signHeaders(p.creds.clientId, p.creds.clientSecret, ep.method, target, body, p.deps.now().toISOString()));
          if (auth === 'garbage') Object.assign(headers, { Authorization: 'Bearer \u00ff', 'X-Client-ID': "'", 'X-Timestamp': 'yesterday', 'X-Signature': 'zz' });
          let res: Response;
          try {
            res = await p.app.request(`http://localhost${target}`, { method: ep.method, headers, body: hasBody && body ? body : undefined });
          } catch (err) {
            // An invalid URL or header value is refused by the client before it reaches the app.
            if (err instanceof TypeError) return;
            throw err;
          }
          const text = await res.text();
          assert.ok(res.status < 500, `${ep.method} ${target} body=${JSON.stringify(body)} -> ${res.status} ${text}`);
          if (ep.path('x').startsWith('/static/') && res.status === 200) return;
          assertEnvelope(res.status, text);
        },
      ), { numRuns: Number(process.env.FUZZ_RUNS || 60) });
    });
  }
});
