// Cross-site POSTs without a body: a page on another origin can send a form-typed or text/plain
// POST with no body and no preflight. Every state-changing call of the widget API requires application/json (the type
// the element sends), so such a POST is refused with a 415 and changes nothing, on both servers: the merchant
// backend's /api and the payment service's hosted /checkout/api (server/common/widget-api.ts serves both).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Checkout, Deposit } from '@kasir/checkout';
import { call, merchantApp, startUpstream, type Envelope, type Upstream } from './support';

const EVIL = 'https://evil.example';
/** What a cross-site form or no-cors fetch may send without a preflight: the CORS-safelisted types, or none. */
const SIMPLE_TYPES = ['application/x-www-form-urlencoded', 'text/plain', 'multipart/form-data; boundary=x', undefined];

describe('widget API: bodiless cross-site POSTs', () => {
  let up: Upstream;
  let app: ReturnType<typeof merchantApp>;
  before(async () => {
    up = await startUpstream();
    app = merchantApp(up);
  });
  after(async () => {
    await up.close();
  });

  /** A checkout with a pending QRIS deposit, made through the merchant's /api. */
  const pendingCheckout = async () => {
    const checkout = (
      await call<Envelope<Checkout>>(app, 'POST', '/api/checkouts', { amount: '64000', currency: 'IDR' })
    ).json.data;
    assert.equal((await call(app, 'POST', `/api/checkouts/${checkout.id}/deposit`, { method: 'QRIS' })).status, 201);
    return checkout.id;
  };
  const servers = [
    // The merchant backend refuses another origin before the type is read (403, naming it); the hosted checkout takes
    // any origin, and refuses the type.
    {
      name: 'merchant backend /api',
      refusal: {
        statusCode: 403,
        error: 'Forbidden',
        message: `This page's origin ${EVIL} is not allowed to use this shop's payment API: add it to KASIR_ALLOWED_ORIGINS (allowedOrigins) on the shop's server`,
      },
      send: (path: string, init: RequestInit) => app.request(`http://localhost/api${path}`, init),
      /** A bodiless POST that ends the deposit. */
      ending: (id: string) => `/checkouts/${id}/cancel`,
    },
    {
      name: 'hosted checkout /checkout/api',
      refusal: { statusCode: 415, error: 'Unsupported Media Type', message: 'Send the body as application/json' },
      send: (path: string, init: RequestInit) => fetch(`${up.provider.credentials.baseUrl}/checkout/api${path}`, init),
      // (A cancel there is refused whatever its type: the shop cancels, test/provider/checkout.test.ts.)
      ending: (id: string) => `/sandbox/checkouts/${id}/expire`,
    },
  ];

  for (const server of servers) {
    describe(server.name, () => {
      for (const [action, path] of [
        ['cancel', (id: string) => `/checkouts/${id}/cancel`],
        ['pay', (id: string) => `/sandbox/checkouts/${id}/pay`],
        ['expire', (id: string) => `/sandbox/checkouts/${id}/expire`],
      ] as const) {
        it(`refuses POST ${path(':id')} (${action}) with no body and a type a form may send, changing nothing`, async () => {
          const id = await pendingCheckout();
          for (const type of SIMPLE_TYPES) {
            const res = await server.send(path(id), {
              method: 'POST',
              headers: { Origin: EVIL, ...(type ? { 'Content-Type': type } : {}) },
            });
            assert.equal(res.status, server.refusal.statusCode, `${type ?? 'no type'}: ${res.status}`);
            assert.deepEqual(await res.json(), server.refusal);
          }
          const read = await call<Envelope<Deposit>>(app, 'GET', `/api/checkouts/${id}/deposit`);
          assert.equal(read.json.data.status, 'pending');
        });
      }

      it(`takes a bodiless POST ${server.ending(':id')} sent as application/json`, async () => {
        const id = await pendingCheckout();
        const res = await server.send(server.ending(id), {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
        });
        assert.equal(res.status, 200);
        assert.equal(((await res.json()) as Envelope<Deposit>).data.status, 'expired');
      });
    });
  }

  it('answers a preflight from another origin, and refuses its JSON call (403, readable by that page), changing nothing', async () => {
    const res = await app.request('http://localhost/api/checkouts/x/cancel', {
      method: 'OPTIONS',
      headers: {
        Origin: EVIL,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'content-type',
      },
    });
    assert.equal(res.headers.get('access-control-allow-origin'), EVIL);
    const id = await pendingCheckout();
    const cancel = await app.request(`http://localhost/api/checkouts/${id}/cancel`, {
      method: 'POST',
      headers: { Origin: EVIL, 'Content-Type': 'application/json' },
    });
    assert.equal(cancel.status, 403);
    const read = await call<Envelope<Deposit>>(app, 'GET', `/api/checkouts/${id}/deposit`);
    assert.equal(read.json.data.status, 'pending');
  });
});
