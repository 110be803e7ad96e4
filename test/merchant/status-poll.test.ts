// The status poll answered ahead of the router (server/merchant/status-poll.ts, what the kasir-merchant command
// serves) against the route itself: one app served twice over real HTTP, once through the fast path and once as
// it is; every answer must be the same (status, headers, body but serverTime), success, 304, CORS and every case the
// fast path hands to the app.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Checkout } from '@kasir/checkout';
import { listen, type ListeningServer } from '../../server/common/http-server';
import { createMerchantApp, type MerchantApp } from '../../server/merchant/server';
import { answeringStatusPolls } from '../../server/merchant/status-poll';
import { startUpstream, type Upstream } from './support';

const SHOP = 'https://shop.example';
/** Headers that say when or how the request was answered (a fresh request id each time), not what. */
const CONNECTION_HEADERS = new Set(['date', 'connection', 'keep-alive', 'x-request-id']);

interface Answer { status: number; headers: Array<[string, string]>; body: string }

async function get(base: string, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(base + path, { headers });
  const body = (await res.text()).replace(/"serverTime":"[^"]+"/g, '"serverTime":"T"');
  return { status: res.status, headers: [...res.headers].filter(([name]) => !CONNECTION_HEADERS.has(name)), body };
}

/** One raw HTTP/1.1 request (what fetch refuses to send, e.g. a NUL byte in a header); the status line's code. */
function rawStatus(base: string, request: string): Promise<number> {
  const { port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(request));
    let text = '';
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
      if (text.includes('\r\n')) {
        resolve(Number(text.split(' ')[1]));
        socket.destroy();
      }
    });
    socket.on('error', reject);
  });
}

describe('merchant backend: the status poll ahead of the router answers as the route does', () => {
  let up: Upstream;
  let app: MerchantApp;
  let fast: ListeningServer;
  let plain: ListeningServer;
  let checkout: Checkout;
  let noDeposit: Checkout;
  /** Requests the fast server handed to the app. */
  let routed = 0;
  const base = (server: ListeningServer) => `http://127.0.0.1:${server.port}`;

  before(async () => {
    up = await startUpstream();
    app = createMerchantApp({ ...up.config({ allowedOrigins: [SHOP] }), fetch: up.countingFetch, port: 0 });
    fast = await listen(answeringStatusPolls(app.api, (request, env) => { routed++; return app.fetch(request, env); }), 0, '127.0.0.1');
    plain = await listen(app.fetch, 0, '127.0.0.1');
    const create = async () => {
      const res = await fetch(`${base(plain)}/api/checkouts`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ amount: '52000', currency: 'IDR' }) });
      return ((await res.json()) as { data: Checkout }).data;
    };
    checkout = await create();
    noDeposit = await create();
    const chosen = await fetch(`${base(plain)}/api/checkouts/${checkout.id}/deposit`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ method: 'QRIS' }) });
    assert.equal(chosen.status, 201);
  });
  after(async () => {
    await fast.close();
    await plain.close();
    await app.api.close();
    await up.close();
  });

  /** The same request to both servers; `own` puts each server's own origin where the request says so. */
  async function same(path: () => string, headers: (own: string) => Record<string, string> = () => ({}), expect: 'answered' | 'routed' = 'answered') {
    const before = routed;
    const viaFast = await get(base(fast), path(), headers(base(fast)));
    const viaRoute = await get(base(plain), path(), headers(base(plain)));
    const ownPort = (answer: Answer, server: ListeningServer) => JSON.stringify(answer).replaceAll(base(server), 'OWN');
    assert.equal(ownPort(viaFast, fast), ownPort(viaRoute, plain));
    assert.equal(routed - before, expect === 'routed' ? 1 : 0, `${path()}: ${expect} expected`);
    return viaFast;
  }

  it('a status read: 200, the envelope, the security headers, an ETag', async () => {
    const answer = await same(() => `/api/checkouts/${checkout.id}/deposit`);
    assert.equal(answer.status, 200);
    assert.match(answer.body, /^\{"statusCode":200,"message":"Success","data":\{.*"status":"pending".*"serverTime":"T"\}\}$/);
    const names = answer.headers.map(([name]) => name);
    for (const name of ['content-security-policy', 'x-content-type-options', 'x-frame-options', 'referrer-policy', 'cross-origin-resource-policy', 'cache-control', 'etag', 'content-type', 'content-length']) {
      assert.ok(names.includes(name), name);
    }
  });

  it('If-None-Match: 304 when it matches (weakly, or among several), 200 when it does not', async () => {
    const etag = (await fetch(`${base(plain)}/api/checkouts/${checkout.id}/deposit`)).headers.get('etag')!;
    assert.equal((await same(() => `/api/checkouts/${checkout.id}/deposit`, () => ({ 'If-None-Match': etag }))).status, 304);
    assert.equal((await same(() => `/api/checkouts/${checkout.id}/deposit`, () => ({ 'If-None-Match': `"other", ${etag.replace(/^W\//, '')}` }))).status, 304);
    assert.equal((await same(() => `/api/checkouts/${checkout.id}/deposit`, () => ({ 'If-None-Match': 'W/"other"' }))).status, 200);
  });

  it('CORS: an allowed origin, the backend\'s own, and another one', async () => {
    const allowed = await same(() => `/api/checkouts/${checkout.id}/deposit`, () => ({ Origin: SHOP }));
    assert.ok(allowed.headers.some(([name, value]) => name === 'access-control-allow-origin' && value === SHOP));
    const own = await same(() => `/api/checkouts/${checkout.id}/deposit`, (origin) => ({ Origin: origin }));
    assert.ok(own.headers.some(([name]) => name === 'access-control-allow-origin'));
    // Another origin: the app's refusal, readable by that page (403 naming it), never the deposit.
    const other = await same(() => `/api/checkouts/${checkout.id}/deposit`, () => ({ Origin: 'https://evil.example' }), 'routed');
    assert.equal(other.status, 403);
    assert.ok(other.headers.some(([name, value]) => name === 'access-control-allow-origin' && value === 'https://evil.example'));
    assert.ok(other.headers.some(([name, value]) => name === 'vary' && value === 'Origin'));
    await same(() => `/api/checkouts/${checkout.id}/deposit`, () => ({ Origin: SHOP, 'If-None-Match': '*' }));
  });

  it('what the app answers: an unknown checkout, no deposit yet, a malformed id, a query, a NUL byte', async () => {
    const routedTo = async (path: string, status: number) => assert.equal((await same(() => path, () => ({}), 'routed')).status, status, path);
    await routedTo('/api/checkouts/00000000-0000-4000-8000-000000000000/deposit', 404);
    await routedTo(`/api/checkouts/${noDeposit.id}/deposit`, 404);
    await routedTo('/api/checkouts/a.b/deposit', 404);
    await routedTo(`/api/checkouts/${checkout.id}/deposit?x=1`, 200);
    await routedTo(`/api/checkouts/${checkout.id}/deposit?x=%00`, 400);
    await routedTo(`/api/checkouts/${checkout.id}%00/deposit`, 400);
    const nulHeader = (server: ListeningServer) => rawStatus(base(server), `GET /api/checkouts/${checkout.id}/deposit HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Note: a\u0000b\r\n\r\n`);
    assert.equal(await nulHeader(fast), await nulHeader(plain));
  });

  it('other routes pass through untouched', async () => {
    assert.equal((await same(() => `/api/checkouts/${checkout.id}`, () => ({}), 'routed')).status, 200);
    assert.equal((await same(() => '/healthz', () => ({}), 'routed')).status, 200);
  });
});
