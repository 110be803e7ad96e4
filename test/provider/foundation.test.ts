import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestProvider, type TestProvider } from '../support/provider';

describe('payment service foundation', () => {
  let p: TestProvider;
  before(async () => { p = await createTestProvider(); });
  after(async () => { await p.close(); });

  it('answers unknown routes with the 404 envelope', async () => {
    const res = await p.app.request('http://localhost/nope');
    assert.equal(res.status, 404);
    assert.deepEqual(await res.json(), { statusCode: 404, error: 'Not Found', message: 'Cannot GET /nope' });
  });

  it('refuses bodies over 64 KB with a 413 envelope', async () => {
    const res = await p.app.request('http://localhost/v1/auth/login', {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ pad: 'x'.repeat(70_000) }),
    });
    assert.equal(res.status, 413);
    const body = await res.json();
    assert.equal(body.statusCode, 413);
    assert.equal(body.error, 'Payload Too Large');
  });

  it('writes sandbox.json credentials with every field', () => {
    for (const key of ['baseUrl', 'checkoutUrl', 'dashboardUrl', 'email', 'password', 'clientId', 'clientSecret', 'accessToken', 'webhookSecret'] as const) {
      assert.ok(p.creds[key], key);
    }
    assert.match(p.creds.webhookSecret, /^whsec_/);
  });
});
