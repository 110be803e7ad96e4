import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { signRequest } from '../../server/common/request-signing';
import { PaymentServiceClient } from '../../server/merchant/client/client';
import { PaymentServiceError, PaymentServiceUnavailableError } from '../../server/merchant/client/errors';
import { startUpstream, type Upstream } from './support';

describe('payment-service client against the real sandbox', () => {
  let up: Upstream;
  let client: PaymentServiceClient;
  const sent: Array<{ url: string; method: string; headers: Record<string, string>; body?: string }> = [];

  before(async () => {
    up = await startUpstream();
    const c = up.provider.credentials;
    client = new PaymentServiceClient({
      baseUrl: c.baseUrl,
      checkoutUrl: c.checkoutUrl,
      clientId: c.clientId,
      clientSecret: c.clientSecret,
      accessToken: c.accessToken,
      fetch: async (input, init) => {
        sent.push({
          url: String(input),
          method: init?.method ?? 'GET',
          headers: init?.headers as Record<string, string>,
          body: init?.body as string | undefined,
        });
        return fetch(input, init);
      },
    });
  });
  after(async () => {
    await up.close();
  });

  it('signs exactly as the service verifies: METHOD:PATH:BODYHASH:TIMESTAMP', () => {
    const ts = '2026-11-22T01:02:03.456Z';
    const body = JSON.stringify({ inputCurrency: 'IDR', inputAmount: 1000 });
    // Both sides sign with server/common/request-signing.ts; the expected values are HMAC-SHA256 computed independently.
    assert.equal(
      signRequest('s3cret', 'post', '/v1/checkout', body, ts),
      '63f4148236c56ff4c9d577b050a649e6cf21163909d66e99a637a4965028ecee',
    );
    assert.equal(
      signRequest('s3cret', 'GET', '/v1/deposit?page=2&limit=5', '', ts),
      'b8687e5b480c43e7d1227360b78b5e7daa8017e1664afdb8204e348531ad188d',
    );
    assert.equal(
      signRequest('s3cret', 'POST', '/v1/checkout', new TextEncoder().encode(body), ts),
      signRequest('s3cret', 'POST', '/v1/checkout', body, ts),
    );
  });

  it('makes signed calls the service accepts (with a query, with a body), with ISO-ms timestamps', async () => {
    sent.length = 0;
    const page = await client.listDeposits({ page: 1, limit: 5, sort: '-createdAt' });
    assert.equal(page.limit, 5);
    assert.ok(Array.isArray(page.docs));
    const s = sent[0];
    assert.match(s.url, /\/v1\/deposit\?page=1&limit=5&sort=-createdAt$/);
    assert.match(s.headers['X-Timestamp'], /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    assert.match(s.headers['X-Signature'], /^[0-9a-f]{64}$/);
    assert.equal(s.headers['X-Client-ID'], up.provider.credentials.clientId);
    assert.equal(s.headers.Authorization, undefined);
    const checkout = await client.createCheckout({ inputCurrency: 'IDR', inputAmount: 25000 });
    assert.match(checkout.url, new RegExp(`/checkout/${checkout.id}$`));
  });

  it('estimates a conversion (signed or bearer) and creates a deposit with its quote at exactly its figures', async () => {
    sent.length = 0;
    const quote = await client.convertEstimation({
      inputCurrency: 'IDR',
      outputCurrency: 'USDC-POLYGON',
      inputAmount: 150000,
      paymentMethod: 'QRIS',
    });
    assert.match(sent[0].headers['X-Signature'], /^[0-9a-f]{64}$/);
    const viaToken = await client.convertEstimation(
      { inputCurrency: 'IDR', outputCurrency: 'IDR', inputAmount: 20000 },
      'A',
    );
    assert.equal(viaToken.outputAmount, 20000);
    const deposit = await client.createFiatDeposit({
      inputCurrency: 'IDR',
      inputAmount: 150000,
      outputCurrency: 'USDC-POLYGON',
      balanceType: 'fiat',
      paymentMethod: 'QRIS',
      quoteId: quote.quoteId,
    });
    assert.deepEqual(deposit.exchangeInfo, {
      exchangeRate: quote.exchangeRate,
      outputCurrency: 'USDC-POLYGON',
      outputAmount: quote.outputAmount,
    });
    await assert.rejects(
      client.createFiatDeposit({
        inputCurrency: 'IDR',
        inputAmount: 150000,
        outputCurrency: 'USDC-POLYGON',
        balanceType: 'fiat',
        paymentMethod: 'QRIS',
        quoteId: quote.quoteId,
      }),
      (err: unknown) =>
        err instanceof PaymentServiceError && err.statusCode === 400 && err.message === 'Quote already used',
    );
  });

  it('lists banks, filtered', async () => {
    const banks = await client.listBanks({ currency: 'IDR' });
    assert.ok(banks.length > 0 && banks.every((b) => b.currency === 'IDR'));
    assert.ok(banks.some((b) => b.bankCode === 'BCA'));
  });

  it('signs identical concurrent writes with distinct timestamps, so none is taken for a replay', async () => {
    const results = await Promise.all(
      Array.from({ length: 10 }, () => client.createCheckout({ inputCurrency: 'IDR', inputAmount: 10000 })),
    );
    assert.equal(new Set(results.map((r) => r.id)).size, 10);
  });

  it('covers deposits: bearer create, signed read by id and reference, cancel, payment methods, sandbox update', async () => {
    sent.length = 0;
    const methods = await client.listPaymentMethods({ currency: 'IDR' });
    assert.ok(methods.some((m) => m.bankCode === 'BCA_VA'));
    assert.equal(sent[0].headers.Authorization, `Bearer ${up.provider.credentials.accessToken}`);
    assert.equal(sent[0].headers['X-Signature'], undefined);
    const reference = `order-${randomUUID()}`;
    const created = await client.createFiatDeposit({
      inputCurrency: 'IDR',
      inputAmount: 120000,
      outputCurrency: 'IDR',
      balanceType: 'fiat',
      paymentMethod: 'BCA_VA',
      reference,
    });
    assert.equal(created.status, 'pending');
    assert.equal((await client.getDeposit(created.depositId)).depositId, created.depositId);
    assert.equal((await client.getDeposit(reference)).depositId, created.depositId);
    const cancelled = await client.cancelDeposit(created.depositId);
    assert.ok(cancelled.statusCode! >= 200 && cancelled.statusCode! < 300);
    assert.equal((await client.getDeposit(created.depositId)).status, 'expired');

    const other = await client.createFiatDeposit({
      inputCurrency: 'IDR',
      inputAmount: 50000,
      outputCurrency: 'IDR',
      balanceType: 'fiat',
      paymentMethod: 'QRIS',
    });
    const paid = await client.sandboxUpdateDeposit(other.depositId, 'completed', 'S');
    assert.equal(paid.status, 'completed');
    const crypto = await client.listCryptos();
    assert.ok(crypto.length > 0);
    const c2 = await client.createCryptoDeposit({ inputCurrency: crypto[0].id, inputAmount: 1 });
    assert.ok(c2.paymentCrypto?.payoutWallet);
  });

  it('turns error envelopes into typed errors with the body statusCode', async () => {
    await assert.rejects(
      client.createFiatDeposit({
        inputCurrency: 'IDR',
        inputAmount: 120000,
        outputCurrency: 'IDR',
        balanceType: 'fiat',
        paymentMethod: 'NOPE',
      }),
      (err: unknown) => {
        assert.ok(err instanceof PaymentServiceError);
        assert.equal(err.statusCode, 400);
        assert.equal(err.label, 'Not Found');
        assert.equal(err.message, 'Payment method not found');
        return true;
      },
    );
    await assert.rejects(
      client.getDeposit('00000000-0000-4000-8000-000000000000'),
      (err: unknown) =>
        err instanceof PaymentServiceError && err.statusCode === 404 && err.message === 'Deposit not found',
    );
    await assert.rejects(
      client.sandboxUpdateDeposit('00000000-0000-4000-8000-000000000000', 'completed'),
      (err: unknown) =>
        err instanceof PaymentServiceError && err.statusCode === 400 && err.message === 'Deposit not found',
    );
    const wrong = new PaymentServiceClient({
      baseUrl: up.provider.url,
      clientId: up.provider.credentials.clientId,
      clientSecret: 'sk_test_wrong',
    });
    await assert.rejects(
      wrong.listDeposits(),
      (err: unknown) =>
        err instanceof PaymentServiceError && err.statusCode === 401 && err.isAuth && /signature/i.test(err.message),
    );
    const unknownClient = new PaymentServiceClient({ baseUrl: up.provider.url, clientId: 'nobody', clientSecret: 'x' });
    await assert.rejects(
      unknownClient.listRecipients(),
      (err: unknown) => err instanceof PaymentServiceError && err.statusCode === 401,
    );
    const dead = new PaymentServiceClient({ baseUrl: 'http://127.0.0.1:1', clientId: 'a', clientSecret: 'b' });
    await assert.rejects(dead.listDeposits(), (err: unknown) => err instanceof PaymentServiceUnavailableError);
  });

  it('times a call out after timeoutMs, naming it', { timeout: 10_000 }, async () => {
    // A service that takes the connection and never answers.
    const silent = createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
    try {
      const slow = new PaymentServiceClient({
        baseUrl: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`,
        clientId: 'a',
        clientSecret: 'b',
        timeoutMs: 200,
      });
      const started = Date.now();
      await assert.rejects(
        slow.listDeposits(),
        (err: unknown) => err instanceof PaymentServiceUnavailableError && /timed out/.test(err.message),
      );
      assert.ok(Date.now() - started < 5_000, 'gave up near its timeout');
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });

  it('covers recipients: create, read, list with search, update by ?id=, delete', async () => {
    const name = `Recipient ${randomUUID().slice(0, 8)}`;
    const created = await client.createRecipient({
      name,
      email: 'payee@example.com',
      address: 'Jl. Sudirman 1',
      city: 'Jakarta',
      postCode: '10210',
      bank: { accountName: name, currency: 'IDR', country: 'ID', bankName: 'BCA', accountNumber: '0123456789' },
    });
    assert.equal(created.name, name);
    assert.equal((await client.getRecipient(created.id)).id, created.id);
    const found = await client.listRecipients({ search: name, limit: 5 });
    assert.equal(found.docs.length, 1);
    const renamed = await client.updateRecipient(created.id, { name: `${name} (renamed)` });
    assert.equal(renamed.name, `${name} (renamed)`);
    const deleted = await client.deleteRecipient(created.id);
    assert.equal(deleted.id, created.id);
    await assert.rejects(
      client.getRecipient(created.id),
      (err: unknown) => err instanceof PaymentServiceError && err.statusCode === 404,
    );
  });

  it('covers references and authentication (register, OTP from the sandbox mailbox, verify-login)', async () => {
    const currencies = await client.listCurrencies();
    assert.ok(currencies.some((c) => c.currency === 'IDR' || c.id === 'IDR' || c.value === 'IDR'));
    const email = `shopkeeper-${randomUUID().slice(0, 8)}@example.com`;
    const reg = await client.register({ email, password: 'correct horse battery', fullName: 'Shop Keeper' });
    assert.ok(reg.verificationToken);
    const mail = (await (
      await fetch(`${up.provider.url}/sandbox/mailbox?email=${encodeURIComponent(email)}`)
    ).json()) as { data: Array<{ code: string }> };
    const verified = await client.verifyLogin({ verificationToken: reg.verificationToken, otp: mail.data[0].code });
    assert.ok(verified.accessToken);
    assert.equal(verified.user.email, email);
    await assert.rejects(client.login({ email, password: 'wrong password!' }), (err: unknown) => {
      assert.ok(err instanceof PaymentServiceError);
      assert.ok(err.statusCode >= 400 && err.statusCode < 500);
      assert.equal(err.message, 'Invalid email or password');
      return true;
    });
  });

  it('uses the checkout URL for the hosted-checkout session API', async () => {
    const checkout = await client.createCheckout({ inputCurrency: 'IDR', outputAmount: 100000 });
    const session = await client.getCheckoutSession(checkout.id);
    assert.equal(session.id, checkout.id);
    assert.equal(session.outputAmount, 100000);
    assert.ok(session.methods.length > 0);
    const deposit = await client.createCheckoutDeposit(checkout.id, 'QRIS');
    assert.equal(deposit.depositId, checkout.id);
    assert.ok(deposit.paymentFiat?.qrData);
  });
});

describe('payment-service client: a refused signed call', () => {
  /** A service that refuses the first call with a 401 whose message names no replay, then answers. */
  function refusingOnce() {
    const calls: Array<{ method: string; timestamp: string }> = [];
    const client = new PaymentServiceClient({
      baseUrl: 'http://service.invalid',
      clientId: 'id',
      clientSecret: 'secret',
      accessToken: 'token',
      fetch: async (_input, init) => {
        calls.push({
          method: init?.method ?? 'GET',
          timestamp: (init?.headers as Record<string, string>)['X-Timestamp']!,
        });
        const body =
          calls.length === 1
            ? { statusCode: 401, error: 'Unauthorized', message: 'This signature was seen before' }
            : {
                statusCode: 200,
                message: 'Success',
                data: { id: 'c1', url: 'http://service.invalid/checkout/c1', docs: [] },
              };
        return new Response(JSON.stringify(body), {
          status: body.statusCode,
          headers: { 'content-type': 'application/json' },
        });
      },
    });
    return { client, calls };
  }

  it('tries a signed write once more with a new timestamp on a 401, whatever its message (no field tells a replay)', async () => {
    const { client, calls } = refusingOnce();
    assert.equal((await client.createCheckout({ inputCurrency: 'IDR', inputAmount: 10000 })).id, 'c1');
    assert.equal(calls.length, 2);
    assert.notEqual(calls[0]!.timestamp, calls[1]!.timestamp);
  });

  it('does not try a signed read again (a read is never a replay)', async () => {
    const { client, calls } = refusingOnce();
    await assert.rejects(
      client.listDeposits(),
      (err: unknown) => err instanceof PaymentServiceError && err.statusCode === 401,
    );
    assert.equal(calls.length, 1);
  });
});

describe('the client on its default transport (a keep-alive pool, not the global fetch)', () => {
  /** A stand-in service answering each request with `answer`, counting the connections it was asked on. */
  async function service(answer: (req: IncomingMessage, res: ServerResponse) => void) {
    const server = createServer(answer);
    let connections = 0;
    server.on('connection', () => (connections += 1));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const client = new PaymentServiceClient({
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      clientId: 'a',
      clientSecret: 'b',
      timeoutMs: 2_000,
    });
    return {
      client,
      connections: () => connections,
      close() {
        server.closeAllConnections();
        server.close();
      },
    };
  }
  const envelope = (res: ServerResponse, status: number, body: object) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

  it('reads one call after another over kept-alive connections', async () => {
    const up = await service((_req, res) => envelope(res, 200, { statusCode: 200, message: 'Success', data: [] }));
    try {
      for (let i = 0; i < 20; i++) assert.deepEqual(await up.client.listBanks(), []);
      // Not one per call (a call may start before the last one's connection is back in the pool).
      assert.ok(up.connections() <= 2, `${up.connections()} connections for 20 calls`);
    } finally {
      up.close();
    }
  });

  it('answers an error envelope as a typed error, with its headers (Retry-After) read', async () => {
    const up = await service((_req, res) =>
      res
        .writeHead(409, { 'content-type': 'application/json', 'retry-after': '1' })
        .end(JSON.stringify({ statusCode: 409, error: 'Conflict', message: 'In progress' })),
    );
    try {
      await assert.rejects(
        up.client.createCheckout({ inputCurrency: 'IDR', inputAmount: 10000 }, { idempotencyKey: 'k' }),
        (err: unknown) => err instanceof PaymentServiceError && err.statusCode === 409 && err.inProgress === true,
      );
    } finally {
      up.close();
    }
  });

  it('refuses a redirect, names a refused connection, and gives up on a caller abort', async () => {
    const up = await service((_req, res) => res.writeHead(302, { location: 'http://elsewhere.invalid/' }).end());
    try {
      await assert.rejects(
        up.client.listBanks(),
        (err: unknown) => err instanceof PaymentServiceUnavailableError && /could not be reached/.test(err.message),
      );
    } finally {
      up.close();
    }
    const dead = new PaymentServiceClient({ baseUrl: 'http://127.0.0.1:1', clientId: 'a', clientSecret: 'b' });
    await assert.rejects(
      dead.listBanks(),
      (err: unknown) => err instanceof PaymentServiceUnavailableError && /ECONNREFUSED/.test(err.message),
    );
    const silent = await service(() => undefined);
    try {
      const abort = new AbortController();
      const read = silent.client.getDeposit('d1', { signal: abort.signal });
      abort.abort(new Error('the shopper left'));
      await assert.rejects(read, (err: unknown) => err instanceof PaymentServiceUnavailableError);
    } finally {
      silent.close();
    }
  });
});
