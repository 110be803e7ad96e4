// The interface's error table to the letter on input of any length: every endpoint that takes a method
// code, crypto id, deposit id or checkout id looks it up before anything checks its size, so an unknown one answers
// its row however long it is. Property-based: random-length unknown codes and ids at every such endpoint.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { findCrypto, findPaymentMethod } from '../../server/provider/catalog/index';
import { bodyOf } from '../support/envelope';
import { createTestProvider, type TestProvider } from '../support/provider';
import { fiatBody } from './deposit-helpers';

type Row = { status: number; body: { statusCode: number; error: string; message: string } };
const row = (status: number, error: string, message: string): Row => ({
  status,
  body: { statusCode: status, error, message },
});

const PAYMENT_METHOD_NOT_FOUND = row(400, 'Not Found', 'Payment method not found');
const CRYPTO_NOT_FOUND = row(400, 'Not Found', 'Crypto not found');
const SANDBOX_DEPOSIT_NOT_FOUND = row(400, 'Bad Request', 'Deposit not found');
const DEPOSIT_NOT_FOUND = row(404, 'Not Found', 'Deposit not found');
const CHECKOUT_NOT_FOUND = row(404, 'Not Found', 'Checkout not found');

/** Codes and ids of 1 to 400 characters that the catalog does not know (path-safe: they go in URLs too). */
const unknownCode = fc
  .string({ unit: fc.constantFrom(...'ABCDEFGHXYZabcxyz0123456789_-~'.split('')), minLength: 1, maxLength: 400 })
  .filter((s) => !findPaymentMethod(s) && !findCrypto(s));
/** Any text at all as a body field (it is never a URL). */
const unknownText = fc.string({ minLength: 1, maxLength: 400 }).filter((s) => !findPaymentMethod(s) && !findCrypto(s));

describe('error rows on input of any length', () => {
  let p: TestProvider;
  let checkoutId: string;
  before(async () => {
    p = await createTestProvider();
    checkoutId = (
      await bodyOf<{ data: { id: string } }>(
        await p.signed('POST', '/v1/checkout', { inputCurrency: 'IDR', inputAmount: 150000 }),
      )
    ).data.id;
  });
  after(async () => {
    await p.close();
  });

  const public_ = async (method: string, path: string, body?: unknown) =>
    p.app.request(`http://localhost${path}`, {
      method,
      headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  /** Each endpoint that takes a code or id, the request an unknown one makes, and the row it must answer. */
  const endpoints: Array<{
    name: string;
    send: (code: string) => Promise<Response>;
    row: Row;
    arb?: fc.Arbitrary<string>;
  }> = [
    {
      name: 'POST /v1/deposit/fiat paymentMethod',
      send: (c) => p.bearer('POST', '/v1/deposit/fiat', fiatBody({ paymentMethod: c })),
      row: PAYMENT_METHOD_NOT_FOUND,
      arb: unknownText,
    },
    {
      name: 'POST /v1/deposit/crypto inputCurrency',
      send: (c) => p.bearer('POST', '/v1/deposit/crypto', { inputCurrency: c, inputAmount: 10 }),
      row: CRYPTO_NOT_FOUND,
      arb: unknownText,
    },
    {
      name: 'POST /v1/deposit/convert-estimation paymentMethod',
      send: (c) =>
        p.bearer('POST', '/v1/deposit/convert-estimation', {
          inputCurrency: 'IDR',
          outputCurrency: 'IDR',
          inputAmount: 150000,
          paymentMethod: c,
        }),
      row: PAYMENT_METHOD_NOT_FOUND,
      arb: unknownText,
    },
    {
      name: 'PATCH /v1/deposit/:depositId (sandbox)',
      send: (c) => p.signed('PATCH', `/v1/deposit/${c}`, { status: 'completed' }),
      row: SANDBOX_DEPOSIT_NOT_FOUND,
    },
    {
      name: 'GET /v1/deposit/:depositIdOrReference',
      send: (c) => p.signed('GET', `/v1/deposit/${c}`),
      row: DEPOSIT_NOT_FOUND,
    },
    {
      name: 'PATCH /v1/deposit/:depositId/cancel',
      send: (c) => p.bearer('PATCH', `/v1/deposit/${c}/cancel`),
      row: DEPOSIT_NOT_FOUND,
    },
    {
      name: 'POST /checkout/:id/deposit paymentMethod',
      send: (c) => public_('POST', `/checkout/${checkoutId}/deposit`, { paymentMethod: c }),
      row: PAYMENT_METHOD_NOT_FOUND,
      arb: unknownText,
    },
    {
      name: 'GET /checkout/:id/session',
      send: (c) => public_('GET', `/checkout/${c}/session`),
      row: CHECKOUT_NOT_FOUND,
    },
    {
      name: 'POST /checkout/:id/deposit',
      send: (c) => public_('POST', `/checkout/${c}/deposit`, { paymentMethod: 'BCA_VA' }),
      row: CHECKOUT_NOT_FOUND,
    },
    {
      name: 'GET /checkout/api/checkouts/:id',
      send: (c) => public_('GET', `/checkout/api/checkouts/${c}`),
      row: CHECKOUT_NOT_FOUND,
    },
  ];

  for (const e of endpoints) {
    it(`${e.name}: an unknown one of any length answers ${e.row.status} "${e.row.body.message}"`, async () => {
      await fc.assert(
        fc.asyncProperty(e.arb ?? unknownCode, async (code) => {
          const res = await e.send(code);
          assert.equal(res.status, e.row.status, `${code.length} characters`);
          assert.deepEqual(await res.json(), e.row.body, `${code.length} characters`);
        }),
        { numRuns: 25 },
      );
    });
  }

  it('the lengths the issue names: a 41-character method, a 33-character crypto id, a 129-character deposit id', async () => {
    assert.deepEqual(
      await (await p.bearer('POST', '/v1/deposit/fiat', fiatBody({ paymentMethod: 'X'.repeat(41) }))).json(),
      PAYMENT_METHOD_NOT_FOUND.body,
    );
    assert.deepEqual(
      await (await p.bearer('POST', '/v1/deposit/crypto', { inputCurrency: 'X'.repeat(33), inputAmount: 1 })).json(),
      CRYPTO_NOT_FOUND.body,
    );
    assert.deepEqual(
      await (await p.signed('PATCH', `/v1/deposit/${'d'.repeat(129)}`, { status: 'completed' })).json(),
      SANDBOX_DEPOSIT_NOT_FOUND.body,
    );
    assert.deepEqual(await (await p.signed('GET', `/v1/deposit/${'d'.repeat(129)}`)).json(), DEPOSIT_NOT_FOUND.body);
  });
});
