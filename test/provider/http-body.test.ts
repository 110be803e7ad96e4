// Request bodies over real HTTP (@hono/node-server), where the service reads them straight off Node's stream
// (server/provider/http/body.ts) instead of through a WHATWG Request: the same answers as under app.request(), a signed
// body still verifies, the limit holds with and without Content-Length, and a body cut off midway fails cleanly.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { Readable } from 'node:stream';
import { after, before, describe, it, mock } from 'node:test';
import { signHeaders, startTestSandbox, type TestSandbox } from '../support/provider';

/** One HTTP/1.1 request over a socket of its own; `chunked` sends the body without Content-Length. */
function send(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body: string,
  options: { chunked?: boolean } = {},
) {
  return new Promise<{
    status: number;
    json: { statusCode: number; error?: string; message: string; data?: { status: string } };
  }>((resolve, reject) => {
    const url = new URL(path, base);
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        agent: false,
        headers: options.chunked ? headers : { ...headers, 'content-length': Buffer.byteLength(body) },
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
    if (options.chunked) {
      // Written in parts, so the limit is met while reading, not from a header.
      for (let i = 0; i < body.length; i += 16_384) req.write(body.slice(i, i + 16_384));
      req.end();
    } else {
      req.end(body);
    }
  });
}

describe('request bodies over HTTP (read off the Node stream)', () => {
  let s: TestSandbox;
  let base: string;
  let bearer: Record<string, string>;
  before(async () => {
    s = await startTestSandbox();
    base = s.sandbox.url;
    bearer = { authorization: `Bearer ${s.sandbox.credentials.accessToken}`, 'content-type': 'application/json' };
  });
  after(async () => {
    await s.stop();
  });

  const createDeposit = async () => {
    const res = await send(
      base,
      'POST',
      '/v1/deposit/fiat',
      bearer,
      JSON.stringify({
        inputCurrency: 'IDR',
        inputAmount: 150000,
        outputCurrency: 'IDR',
        balanceType: 'fiat',
        paymentMethod: 'BCA_VA',
      }),
    );
    assert.equal(res.status, 201, JSON.stringify(res.json));
    return (res.json.data as unknown as { depositId: string }).depositId;
  };

  it('a JSON body reaches the route, with a token, in one piece or in chunks', async () => {
    const id = await createDeposit();
    const res = await send(base, 'PATCH', `/v1/deposit/${id}`, bearer, JSON.stringify({ status: 'completed' }), {
      chunked: true,
    });
    assert.deepEqual([res.status, res.json.data?.status], [200, 'completed']);
  });

  it('a JSON body is read off the Node stream, with no web stream (a WHATWG Request) built around it', async () => {
    // @hono/node-server builds a Request for a body asked of Hono, its stream made by Readable.toWeb: a share of every
    // write's CPU.
    const toWeb = mock.method(Readable, 'toWeb');
    try {
      const id = await createDeposit();
      const res = await send(base, 'PATCH', `/v1/deposit/${id}`, bearer, JSON.stringify({ status: 'completed' }));
      assert.deepEqual([res.status, res.json.data?.status], [200, 'completed']);
      assert.equal(toWeb.mock.callCount(), 0);
    } finally {
      toWeb.mock.restore();
    }
  });

  it('a signed body verifies, and the same signed request again is a replay', async () => {
    const id = await createDeposit();
    const body = JSON.stringify({ status: 'completed' });
    const { clientId, clientSecret } = s.sandbox.credentials;
    const headers = {
      ...signHeaders(clientId, clientSecret, 'PATCH', `/v1/deposit/${id}`, body, new Date().toISOString()),
      'content-type': 'application/json',
    };
    const first = await send(base, 'PATCH', `/v1/deposit/${id}`, headers, body);
    assert.deepEqual([first.status, first.json.data?.status], [200, 'completed']);
    const again = await send(base, 'PATCH', `/v1/deposit/${id}`, headers, body);
    assert.deepEqual([again.status, again.json.message], [401, 'Replay: this signed request was already accepted']);
    const tampered = await send(base, 'PATCH', `/v1/deposit/${id}`, headers, body.replace('completed', 'expired'));
    assert.deepEqual(
      [tampered.status, tampered.json.message],
      [401, 'Bad signature: X-Signature does not match the request'],
    );
  });

  it('over 64 KB: 413 in the envelope, with Content-Length and without', async () => {
    const big = JSON.stringify({ pad: 'x'.repeat(70_000) });
    for (const chunked of [false, true]) {
      const res = await send(base, 'POST', '/v1/auth/login', { 'content-type': 'application/json' }, big, { chunked });
      assert.deepEqual(
        [res.status, res.json.statusCode, res.json.error],
        [413, 413, 'Payload Too Large'],
        `chunked: ${chunked}`,
      );
    }
  });

  it('malformed JSON is a 400 and a NUL byte in a string is refused, as under app.request()', async () => {
    const id = await createDeposit();
    const bad = await send(base, 'PATCH', `/v1/deposit/${id}`, bearer, '{"status": ');
    assert.deepEqual([bad.status, bad.json.statusCode], [400, 400]);
    const nul = await send(base, 'PATCH', `/v1/deposit/${id}`, bearer, JSON.stringify({ status: 'completed\u0000' }));
    assert.equal(nul.status, 400);
    assert.match(nul.json.message, /^status: must not contain a NUL byte/);
  });

  it('a body cut off before its end leaves the service answering', async () => {
    const url = new URL(base);
    await new Promise<void>((resolve) => {
      const req = request({
        host: url.hostname,
        port: url.port,
        method: 'POST',
        path: '/v1/auth/login',
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': 1000 },
      });
      req.on('error', () => resolve());
      req.write('{"email": "a');
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 50);
    });
    const id = await createDeposit();
    assert.ok(id);
  });
});
