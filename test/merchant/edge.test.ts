// Edge cases of the merchant backend, against a real sandbox: a NUL byte is a 400 naming the field; what a choice did
// comes from the payment service (a switch this copy never saw is still "changed"); a shop whose unique codes are all
// held tells the shopper to choose another method (409, not a 502); and one address cannot hold them all.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Checkout, Deposit } from '@kasir/checkout';
import { sandboxDeps } from '../../server/provider/process/main';
import { fiatBody, fillUniqueCodes } from '../provider/deposit-helpers';
import { call, merchantApp, startUpstream, type Envelope, type Upstream } from './support';

describe('merchant backend edge cases (NUL bytes, choices, transfer pools)', () => {
  let up: Upstream;
  before(async () => {
    up = await startUpstream();
  });
  after(async () => {
    await up.close();
  });

  const newCheckout = async (app: ReturnType<typeof merchantApp>) =>
    (await call<Envelope<Checkout>>(app, 'POST', '/api/checkouts', { amount: '150000', currency: 'IDR' })).json.data.id;

  it('refuses a NUL byte with a 400 naming the field', async () => {
    const app = merchantApp(up);
    const id = await newCheckout(app);
    const inPath = await call(app, 'GET', '/api/checkouts/abc%00def/deposit');
    assert.deepEqual([inPath.status, inPath.json.message], [400, 'id: must not contain a NUL byte (\\u0000)']);
    const inBody = await call(app, 'POST', `/api/checkouts/${id}/deposit`, '{"method":"QR\\u0000IS"}');
    assert.deepEqual([inBody.status, inBody.json.message], [400, 'method: must not contain a NUL byte (\\u0000)']);
    const inQuery = await call(app, 'GET', `/api/checkouts/${id}?x=%00`);
    assert.deepEqual([inQuery.status, inQuery.json.message], [400, 'x: must not contain a NUL byte (\\u0000)']);
  });

  it("says what the service did: a switch from a method this copy never saw is 'changed'", async () => {
    const app = merchantApp(up);
    const id = await newCheckout(app);
    // Chosen on the hosted page (or another copy): this copy has not seen the deposit.
    const hosted = await fetch(`${up.provider.url}/checkout/${id}/deposit`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ paymentMethod: 'QRIS' }),
    });
    assert.equal(hosted.status, 201);
    const switched = await call<Envelope<Deposit>>(app, 'POST', `/api/checkouts/${id}/deposit`, { method: 'BCA_VA' });
    assert.deepEqual(
      [switched.status, switched.json.message, switched.json.data.method.code],
      [200, 'Payment method changed', 'BCA_VA'],
    );
    assert.equal(switched.json.data.version, 2);
    const again = await call<Envelope<Deposit>>(app, 'POST', `/api/checkouts/${id}/deposit`, { method: 'BCA_VA' });
    assert.deepEqual(
      [again.status, again.json.message, again.json.data.version],
      [200, 'Payment method already chosen', 2],
    );
  });

  it("bounds the bank transfers one address may choose, and says 'choose another method' once the shop's codes are all held", async () => {
    const app = merchantApp(up, {}, { transferRateLimit: 2 });
    for (let i = 0; i < 2; i++) {
      const chosen = await call(app, 'POST', `/api/checkouts/${await newCheckout(app)}/deposit`, {
        method: 'BCA_TRANSFER',
      });
      assert.equal(chosen.status, 201, chosen.text);
    }
    const id = await newCheckout(app);
    const bounded = await call(app, 'POST', `/api/checkouts/${id}/deposit`, { method: 'BCA_TRANSFER' });
    assert.deepEqual(
      [bounded.status, bounded.json.message],
      [429, 'Too many bank transfers from this address; choose another method'],
    );
    assert.equal(
      (await call(app, 'POST', `/api/checkouts/${id}/deposit`, { method: 'QRIS' })).status,
      201,
      'other methods go on',
    );

    const created = await fetch(`${up.provider.url}/v1/deposit/fiat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${up.provider.credentials.accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(fiatBody()),
    });
    await fillUniqueCodes(sandboxDeps(up.provider), ((await created.json()) as Envelope<{ id: string }>).data.id);
    const full = await call(merchantApp(up), 'POST', `/api/checkouts/${await newCheckout(app)}/deposit`, {
      method: 'BCA_TRANSFER',
    });
    assert.equal(full.status, 409, full.text);
    assert.match(full.json.message, /choose another method/);
  });
});
