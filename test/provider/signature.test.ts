import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestProvider, signHeaders, type TestProvider } from '../support/provider';
import { createFiat } from './deposit-helpers';

async function expect401(res: Response, message: RegExp) {
  assert.equal(res.status, 401);
  const body = await res.json() as any;
  assert.equal(body.statusCode, 401);
  assert.equal(body.error, 'Unauthorized');
  assert.match(body.message, message);
}

describe('signed requests (S endpoints)', () => {
  let p: TestProvider;
  let depositId: string;
  before(async () => {
    p = await createTestProvider();
    depositId = (await createFiat(p)).depositId;
  });
  after(async () => { await p.close(); });

  const get = (target: string, headers: Record<string, string>) => p.app.request(`http://localhost${target}`, { headers });

  it('accepts a correct signature on GET, repeatedly (GETs are not replay-checked)', async () => {
    const headers = signHeaders(p.creds.clientId, p.creds.clientSecret, 'GET', `/v1/deposit/${depositId}`, '', p.deps.now().toISOString());
    for (let i = 0; i < 3; i++) assert.equal((await get(`/v1/deposit/${depositId}`, headers)).status, 200);
  });

  it('missing headers: names the missing ones', async () => {
    await expect401(await get('/v1/deposit', {}), /Missing signature headers: X-Client-ID, X-Timestamp, X-Signature/);
    const h = signHeaders(p.creds.clientId, p.creds.clientSecret, 'GET', '/v1/deposit', '');
    await expect401(await get('/v1/deposit', { 'X-Client-ID': h['X-Client-ID'], 'X-Timestamp': h['X-Timestamp'] }), /Missing signature headers: X-Signature/);
  });

  it('unknown client', async () => {
    const h = signHeaders('kasir_test_nobody', p.creds.clientSecret, 'GET', '/v1/deposit', '', p.deps.now().toISOString());
    await expect401(await get('/v1/deposit', h), /Unknown client/);
  });

  it('wrong signature (wrong secret, or signed for another path)', async () => {
    const wrongSecret = signHeaders(p.creds.clientId, 'sk_test_wrong', 'GET', '/v1/deposit', '', p.deps.now().toISOString());
    await expect401(await get('/v1/deposit', wrongSecret), /Bad signature/);
    const otherPath = signHeaders(p.creds.clientId, p.creds.clientSecret, 'GET', '/v1/deposit?page=2', '', p.deps.now().toISOString());
    await expect401(await get('/v1/deposit', otherPath), /Bad signature/);
    // after a good request has warmed the credential cache, a wrong signature still fails
    const good = signHeaders(p.creds.clientId, p.creds.clientSecret, 'GET', `/v1/deposit/${depositId}`, '', p.deps.now().toISOString());
    assert.equal((await get(`/v1/deposit/${depositId}`, good)).status, 200);
    await expect401(await get(`/v1/deposit/${depositId}`, { ...good, 'X-Signature': good['X-Signature'].replace(/.$/, (c) => (c === '0' ? '1' : '0')) }), /Bad signature/);
  });

  it('stale or malformed timestamp', async () => {
    const old = new Date(p.deps.now().getTime() - 301_000).toISOString();
    await expect401(await get('/v1/deposit', signHeaders(p.creds.clientId, p.creds.clientSecret, 'GET', '/v1/deposit', '', old)), /Stale timestamp/);
    const future = new Date(p.deps.now().getTime() + 301_000).toISOString();
    await expect401(await get('/v1/deposit', signHeaders(p.creds.clientId, p.creds.clientSecret, 'GET', '/v1/deposit', '', future)), /Stale timestamp/);
    const unix = String(Math.floor(Date.now() / 1000));
    await expect401(await get('/v1/deposit', signHeaders(p.creds.clientId, p.creds.clientSecret, 'GET', '/v1/deposit', '', unix)), /X-Timestamp must be ISO 8601/);
    // within the window is fine
    const recent = new Date(p.deps.now().getTime() - 290_000).toISOString();
    assert.equal((await get('/v1/deposit', signHeaders(p.creds.clientId, p.creds.clientSecret, 'GET', '/v1/deposit', '', recent))).status, 200);
  });

  it('tampered body on a signed POST', async () => {
    const body = JSON.stringify({ inputCurrency: 'IDR', inputAmount: 150000 });
    const headers = signHeaders(p.creds.clientId, p.creds.clientSecret, 'POST', '/v1/checkout', body, p.deps.now().toISOString());
    const res = await p.app.request('http://localhost/v1/checkout', {
      method: 'POST', headers: { ...headers, 'Content-Type': 'application/json' }, body: body.replace('150000', '1500'),
    });
    await expect401(res, /Bad signature/);
  });

  it('replay of a signed non-GET request', async () => {
    const body = JSON.stringify({ inputCurrency: 'IDR', inputAmount: 150000 });
    const headers = { ...signHeaders(p.creds.clientId, p.creds.clientSecret, 'POST', '/v1/checkout', body, p.deps.now().toISOString()), 'Content-Type': 'application/json' };
    const first = await p.app.request('http://localhost/v1/checkout', { method: 'POST', headers, body });
    assert.equal(first.status, 200);
    await expect401(await p.app.request('http://localhost/v1/checkout', { method: 'POST', headers, body }), /Replay/);
  });

  it('signature covers the exact query string', async () => {
    const target = '/v1/deposit?limit=5&page=1';
    assert.equal((await get(target, signHeaders(p.creds.clientId, p.creds.clientSecret, 'GET', target, '', p.deps.now().toISOString()))).status, 200);
    const swapped = signHeaders(p.creds.clientId, p.creds.clientSecret, 'GET', '/v1/deposit?page=1&limit=5', '', p.deps.now().toISOString());
    await expect401(await get(target, swapped), /Bad signature/);
  });

  it('a rotated secret stops working once the brief credential cache lapses', async () => {
    const target = `/v1/deposit/${depositId}`;
    const sign = (secret: string) => signHeaders(p.creds.clientId, secret, 'GET', target, '', p.deps.now().toISOString());
    assert.equal((await get(target, sign(p.creds.clientSecret))).status, 200);
    await p.deps.db.updateTable('merchants').set({ client_secret: 'sk_test_rotated' }).where('client_id', '=', p.creds.clientId).execute();
    await new Promise((r) => setTimeout(r, 5100));
    await expect401(await get(target, sign(p.creds.clientSecret)), /Bad signature/);
    assert.equal((await get(target, sign('sk_test_rotated'))).status, 200);
    await p.deps.db.updateTable('merchants').set({ client_secret: p.creds.clientSecret }).where('client_id', '=', p.creds.clientId).execute();
  });

  it('bearer endpoints: missing, malformed and invalid tokens', async () => {
    const post = (headers: Record<string, string>) => p.app.request('http://localhost/v1/deposit/fiat', { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: '{}' });
    await expect401(await post({}), /Missing Authorization header/);
    await expect401(await post({ Authorization: 'Basic abc' }), /Bearer/);
    await expect401(await post({ Authorization: 'Bearer abc.def.ghi' }), /Invalid access token/);
    // the signature does not stand in for a bearer token on A endpoints
    await expect401(await p.signed('POST', '/v1/deposit/fiat', {}), /Missing Authorization header/);
  });
});
