// Bad input at the accounts endpoints (auth, mailbox, recipients, dashboard API): whatever arrives,
// the answer is never a 5xx and always the envelope.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { assertEnvelope } from '../support/envelope';
import { createTestProvider, type TestProvider } from '../support/provider';

const RUNS = Number(process.env.FUZZ_RUNS || 150);

async function assertAnswer(res: Response, what: string) {
  assert.ok(res.status < 500, `${what} answered ${res.status}`);
  assertEnvelope(res.status, await res.text(), what);
}

// Values that exercise type confusion, sizes and odd characters.
const jsonValue = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constant('0012345678'),
  fc.constant('a@b.co'),
  fc.constant(''),
  fc.constant(' '),
  fc.constant('x'.repeat(3000)),
  fc.constantFrom('Individual', 'Business', 'Checking', 'Savings', '__proto__', 'constructor', '%', '\u0000', '😀'),
  fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), { maxKeys: 3 }),
);
const fieldNames = [
  'email',
  'password',
  'fullName',
  'nationalID',
  'country',
  'countryCode',
  'verificationToken',
  'otp',
  'isDisableExpire',
  'name',
  'address',
  'city',
  'postCode',
  'recipientType',
  'organizationId',
  'reference',
  'bank',
  'webhookUrl',
  'enabled',
  '__proto__',
];
const bankNames = [
  'accountName',
  'bankName',
  'accountNumber',
  'paymentCode',
  'currency',
  'country',
  'achNumber',
  'fedwireNumber',
  'ibanNumber',
  'accountType',
  'ifsc',
];
const objectBody = fc
  .record({
    top: fc.dictionary(fc.constantFrom(...fieldNames), jsonValue, { maxKeys: 8 }),
    bank: fc.option(fc.dictionary(fc.constantFrom(...bankNames), jsonValue, { maxKeys: 8 }), { nil: undefined }),
  })
  .map(({ top, bank }) => (bank ? { ...top, bank } : top));
const rawBody = fc.oneof(
  objectBody.map((b) => JSON.stringify(b)),
  fc.string({ maxLength: 200 }),
  fc.constantFrom('', '{', '[]', 'null', '"str"', '{"email":', '{"bank":[{}]}', '\u0000\u0001', '{"a":1}{"b":2}'),
  jsonValue.map((v) => JSON.stringify(v)),
);
const contentType = fc.constantFrom(
  'application/json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  '',
  'application/json; charset=utf-16',
);
const queryPart = fc
  .tuple(
    fc.constantFrom('limit', 'page', 'sort', 'search', 'country', 'currency', 'id', 'email', 'x'),
    fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.integer({ min: -5, max: 1000 }).map(String),
      fc.constantFrom('-createdAt', 'updatedAt', '1e3', '0x10', '%', ''),
    ),
  )
  .map(([k, v]) => `${k}=${encodeURIComponent(v)}`);
const query = fc.array(queryPart, { maxLength: 4 }).map((parts) => (parts.length ? `?${parts.join('&')}` : ''));

describe('fuzz: accounts endpoints never 5xx, always the envelope', () => {
  let p: TestProvider;
  before(async () => {
    process.env.KASIR_AUTH_RATE_PER_EMAIL = '100000';
    process.env.KASIR_AUTH_RATE_PER_ADDRESS = '100000';
    try {
      p = await createTestProvider();
    } finally {
      delete process.env.KASIR_AUTH_RATE_PER_EMAIL;
      delete process.env.KASIR_AUTH_RATE_PER_ADDRESS;
    }
  });
  after(async () => {
    await p.close();
  });

  it('auth endpoints take any body', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/v1/auth/register', '/v1/auth/login', '/v1/auth/verify-login'),
        rawBody,
        contentType,
        async (path, body, type) => {
          const res = await p.app.request(`http://localhost${path}`, {
            method: 'POST',
            headers: type ? { 'Content-Type': type } : {},
            body,
          });
          await assertAnswer(res, `POST ${path} ${body.slice(0, 80)}`);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('the mailbox takes any query', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(query, fc.constantFrom('?email=%E0%A4%A', '?email=a%40b.co&email=c%40d.co', '?email=%00')),
        async (q) => {
          await assertAnswer(await p.app.request(`http://localhost/sandbox/mailbox${q}`), `GET mailbox${q}`);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('signed recipient calls take any body, query and id', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST', 'PATCH', 'DELETE'),
        query,
        rawBody,
        fc.string({ minLength: 1, maxLength: 30 }),
        async (method, q, body, id) => {
          const target = method === 'GET' && q === '' ? `/v1/recipient/${encodeURIComponent(id)}` : `/v1/recipient${q}`;
          const send = method === 'GET' || method === 'DELETE' ? undefined : body;
          const res = await p.signed(method, target, send === '' ? undefined : send);
          await assertAnswer(res, `${method} ${target} ${String(send).slice(0, 80)}`);
        },
      ),
      { numRuns: RUNS * 2 },
    );
  });

  it('recipient calls with malformed signature headers are refused in the envelope', async () => {
    const header = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.constantFrom('', new Date().toISOString(), '2026-13-45T99:99:99.999Z', 'deadbeef', p?.creds.clientId ?? 'x'),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST', 'PATCH', 'DELETE'),
        query,
        fc.record({ 'X-Client-ID': header, 'X-Timestamp': header, 'X-Signature': header }, { requiredKeys: [] }),
        async (method, q, headers) => {
          const clean = Object.fromEntries(Object.entries(headers).filter(([, v]) => /^[\x20-\x7e]*$/.test(v)));
          const res = await p.app.request(`http://localhost/v1/recipient${q}`, {
            method,
            headers: clean,
            body: method === 'GET' || method === 'DELETE' ? undefined : '{}',
          });
          assert.equal(res.status, 401);
          await assertAnswer(res, `${method} recipient with ${JSON.stringify(clean)}`);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('dashboard API takes any body and any Authorization header', async () => {
    const routes = [
      ['GET', '/dashboard/api/account'],
      ['POST', '/dashboard/api/client-secret/reveal'],
      ['PUT', '/dashboard/api/webhook-url'],
      ['PUT', '/dashboard/api/checkout'],
      ['GET', '/dashboard/api/webhooks'],
      ['POST', '/dashboard/api/webhooks/x/resend'],
      ['POST', '/dashboard/api/webhook-secret/reveal'],
      ['DELETE', '/dashboard/api/account'],
    ] as const;
    const auth = fc.oneof(
      fc.constant(`Bearer ${p.creds.accessToken}`),
      fc.string({ maxLength: 60 }).map((s) => `Bearer ${s}`),
      fc.constantFrom('', 'Bearer', 'Basic abc', 'Bearer a.b.c', 'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.'),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes),
        query,
        rawBody,
        auth,
        async ([method, path], q, body, authorization) => {
          const headers: Record<string, string> = { 'Content-Type': 'application/json' };
          if (authorization && /^[\x20-\x7e]*$/.test(authorization)) headers.Authorization = authorization;
          const res = await p.app.request(`http://localhost${path}${q}`, {
            method,
            headers,
            body: method === 'GET' ? undefined : body,
          });
          await assertAnswer(res, `${method} ${path}${q} ${body.slice(0, 60)}`);
        },
      ),
      { numRuns: RUNS },
    );
  });
});
