// The signRequest option: a shop whose payment service signs otherwise than the default scheme (here SNAP BI-like:
// HMAC-SHA512 over METHOD:path:hex(sha256(body)):timestamp, base64) signs with its own function. The stand-in service
// below accepts only that scheme, so a call signed the default way is refused by it.
import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { Hono } from 'hono';
import { createKasirApi } from '../../server/merchant/api';
import { PaymentServiceClient } from '../../server/merchant/client/client';
import { PaymentServiceError } from '../../server/merchant/client/errors';
import type { SignableRequest } from '../../server/merchant/client/signing';

const CLIENT_ID = 'partner-42';
const CLIENT_SECRET = 'snap-secret';

const snapSignature = (secret: string, method: string, path: string, body: string, timestamp: string) =>
  createHmac('sha512', secret)
    .update(`${method}:${path}:${createHash('sha256').update(body).digest('hex')}:${timestamp}`)
    .digest('base64');

/** The shop's signer, as it would write it for its service. */
const snapSigner = ({ method, path, body, timestamp, clientId, clientSecret }: SignableRequest) => ({
  'X-PARTNER-ID': clientId,
  'X-TIMESTAMP': timestamp,
  'X-SIGNATURE': snapSignature(clientSecret, method, path, body, timestamp),
});

/** A stand-in payment service that verifies only the SNAP BI-like scheme (and records what it accepted). */
function standInService() {
  const accepted: string[] = [];
  const app = new Hono();
  app.use('/v1/*', async (c, next) => {
    const url = new URL(c.req.url);
    const body = await c.req.text();
    const timestamp = c.req.header('x-timestamp') ?? '';
    const given = c.req.header('x-signature') ?? '';
    const expected = snapSignature(CLIENT_SECRET, c.req.method, url.pathname + url.search, body, timestamp);
    if (c.req.header('x-partner-id') !== CLIENT_ID || given !== expected) {
      return c.json({ statusCode: 401, error: 'Unauthorized', message: 'Invalid signature' }, 401);
    }
    accepted.push(`${c.req.method} ${url.pathname}${url.search}`);
    await next();
  });
  const deposit = {
    id: 'dep-1',
    depositId: 'dep-1',
    depositType: 'fiat',
    userId: 'u',
    inputCurrency: 'IDR',
    inputAmount: 150000,
    outputCurrency: 'IDR',
    exchangeRate: 1,
    outputAmount: 150000,
    fee: { amount: 0, percentage: 0, currency: 'IDR' },
    paymentFiat: { bankCode: 'QRIS' },
    paymentCrypto: {},
    status: 'completed',
    activityHistory: [],
    reference: 'r-1',
    note: '',
    bankNote: '',
    paidAmount: 150000,
    remainingAmount: 0,
    overpaidAmount: 0,
    payments: [],
    expiredAt: '2026-11-26T10:00:00.000Z',
    createdAt: '2026-11-26T09:00:00.000Z',
    updatedAt: '2026-11-26T09:05:00.000Z',
    version: 2,
  };
  app.get('/v1/deposit', (c) =>
    c.json({
      statusCode: 200,
      message: 'OK',
      data: {
        docs: [deposit],
        totalDocs: 1,
        offset: 0,
        limit: 1,
        totalPages: 1,
        page: 1,
        pagingCounter: 1,
        hasPrevPage: false,
        hasNextPage: false,
        prevPage: null,
        nextPage: null,
      },
    }),
  );
  app.post('/v1/checkout', async (c) => {
    const body = await c.req.json<{ inputAmount: number }>();
    return c.json({
      statusCode: 200,
      message: 'Checkout created',
      data: { id: `chk-${body.inputAmount}`, url: `https://pay.example/checkout/chk-${body.inputAmount}` },
    });
  });
  const fetchIt: typeof fetch = async (input, init) =>
    app.fetch(new Request(input instanceof Request ? input : String(input), init));
  return { accepted, fetch: fetchIt };
}

describe("signRequest: another service's signature scheme", () => {
  it('signs reads and writes (with a query, with a body) as the stand-in service verifies, which refuses the default scheme', async () => {
    const service = standInService();
    const options = {
      baseUrl: 'https://snap.example',
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      fetch: service.fetch,
    };
    const signing = new PaymentServiceClient({ ...options, signRequest: snapSigner });
    const page = await signing.listDeposits({ limit: 1, sort: '-createdAt' });
    assert.equal(page.docs[0].depositId, 'dep-1');
    const checkout = await signing.createCheckout({ inputCurrency: 'IDR', inputAmount: 25000 });
    assert.equal(checkout.id, 'chk-25000');
    assert.deepEqual(service.accepted, ['GET /v1/deposit?limit=1&sort=-createdAt', 'POST /v1/checkout']);

    // The default scheme is not this service's: refused.
    const plain = new PaymentServiceClient(options);
    await assert.rejects(
      plain.listDeposits({ limit: 1 }),
      (err: unknown) => err instanceof PaymentServiceError && err.statusCode === 401,
    );
  });

  it('is an option of createKasirApi: its calls (the records, the check) are signed with it', async () => {
    const service = standInService();
    const kasir = createKasirApi({
      baseUrl: 'https://snap.example',
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      accessToken: 't',
      webhookSecret: 'whsec_dGVzdA==',
      dataDir: false,
      fetch: service.fetch,
      signRequest: snapSigner,
    });
    try {
      const records = await kasir.listDeposits({ limit: 5 });
      assert.deepEqual(
        records.map((r) => [r.depositId, r.amount, r.status]),
        [['dep-1', '150000', 'completed']],
      );
      const report = await kasir.check();
      assert.equal(report.checks.find((check) => check.name === 'credentials')?.ok, true, JSON.stringify(report));
      assert.ok(service.accepted.includes('GET /v1/deposit?limit=1'));
    } finally {
      await kasir.close();
    }
    assert.throws(() => createKasirApi({ signRequest: 'hmac-sha512' as never }), /signRequest must be a function/);
  });
});
