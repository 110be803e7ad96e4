// The /v1 API reads a body only as application/json: a signed payment's `{"amount":1000}` sent with
// no Content-Type, or with another type, is a 415 in the envelope, never read as if there were no body (which paid the
// whole amount due). Over real HTTP, where the service reads bodies as it serves traffic, and through app.request().
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { signHeaders, startTestSandbox, type TestSandbox } from '../support/provider';

function send(base: string, method: string, path: string, headers: Record<string, string>, body: string) {
  return new Promise<{
    status: number;
    json: { statusCode: number; error?: string; message: string; data?: { status: string; paidAmount: number } };
  }>((resolve, reject) => {
    const url = new URL(path, base);
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        agent: false,
        headers: { ...headers, 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('signed writes read their body only as application/json', () => {
  let s: TestSandbox;
  let base: string;
  before(async () => {
    s = await startTestSandbox('kasir-json-bodies-');
    base = s.sandbox.url;
  });
  after(async () => {
    await s.stop();
  });

  const signed = (method: string, path: string, body: string, type?: string) => {
    const { clientId, clientSecret } = s.sandbox.credentials;
    const headers: Record<string, string> = signHeaders(
      clientId,
      clientSecret,
      method,
      path,
      body,
      new Date(Date.now() + Math.random() * 1000).toISOString(),
    );
    if (type) headers['content-type'] = type;
    return send(base, method, path, headers, body);
  };
  const bankTransfer = async () => {
    const res = await send(
      base,
      'POST',
      '/v1/deposit/fiat',
      { authorization: `Bearer ${s.sandbox.credentials.accessToken}`, 'content-type': 'application/json' },
      JSON.stringify({
        inputCurrency: 'IDR',
        inputAmount: 150000,
        outputCurrency: 'IDR',
        balanceType: 'fiat',
        paymentMethod: 'BCA_TRANSFER',
      }),
    );
    assert.equal(res.status, 201, JSON.stringify(res.json));
    return (res.json.data as unknown as { depositId: string }).depositId;
  };

  it('a payment body without Content-Type, or as text/plain or a form: 415 in the envelope, nothing recorded', async () => {
    const id = await bankTransfer();
    for (const type of [undefined, 'text/plain', 'application/x-www-form-urlencoded']) {
      const res = await signed('POST', `/v1/deposit/${id}/payments`, '{"amount":1000}', type);
      assert.deepEqual(
        [res.status, res.json.statusCode, res.json.error],
        [415, 415, 'Unsupported Media Type'],
        `${type}: ${JSON.stringify(res.json)}`,
      );
      assert.match(res.json.message, /application\/json/);
    }
    const paid = await signed(
      'POST',
      `/v1/deposit/${id}/payments`,
      '{"amount":1000}',
      'application/json; charset=utf-8',
    );
    assert.equal(paid.status, 200, JSON.stringify(paid.json));
    assert.deepEqual([paid.json.data?.status, paid.json.data?.paidAmount], ['pending', 1000]);
  });

  it('a signed write with no body needs no type; a create without a type is refused the same way', async () => {
    const id = await bankTransfer();
    const all = await signed('POST', `/v1/deposit/${id}/payments`, '');
    assert.deepEqual([all.status, all.json.data?.status], [200, 'completed']);
    const checkout = await signed(
      'POST',
      '/v1/checkout',
      JSON.stringify({ inputCurrency: 'IDR', inputAmount: 150000 }),
    );
    assert.deepEqual([checkout.status, checkout.json.statusCode], [415, 415]);
  });
});
