import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { forgetCredentials } from '../../server/provider/auth/credentials';
import { errorOf } from '../support/envelope';
import { createTestProvider, signHeaders, type TestProvider } from '../support/provider';
import { createFiat } from './deposit-helpers';

async function expect401(res: Response, message: RegExp) {
  assert.equal(res.status, 401);
  const body = await errorOf(res);
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
  after(async () => {
    await p.close();
  });

  const get = (target: string, headers: Record<string, string>) =>
    p.app.request(`http://localhost${target}`, { headers });
  /** The seeded merchant's headers for a GET of `target`, signed with `secret` at `timestamp` (the service's now). */
  const signedGet = (target: string, secret = p.creds.clientSecret, timestamp = p.deps.now().toISOString()) =>
    signHeaders(p.creds.clientId, secret, 'GET', target, '', timestamp);
  /** A timestamp `offsetMs` from the service's clock. */
  const at = (offsetMs: number) => new Date(p.deps.now().getTime() + offsetMs).toISOString();

  it('accepts a correct signature on GET, repeatedly (GETs are not replay-checked)', async () => {
    const headers = signedGet(`/v1/deposit/${depositId}`);
    for (let i = 0; i < 3; i++) assert.equal((await get(`/v1/deposit/${depositId}`, headers)).status, 200);
  });

  describe('names the signature headers that are missing', () => {
    const rows: Array<[string, () => Record<string, string>, RegExp]> = [
      ['none is sent', () => ({}), /Missing signature headers: X-Client-ID, X-Timestamp, X-Signature/],
      [
        'only X-Signature is left out',
        () => {
          const h = signHeaders(p.creds.clientId, p.creds.clientSecret, 'GET', '/v1/deposit', '');
          return { 'X-Client-ID': h['X-Client-ID'], 'X-Timestamp': h['X-Timestamp'] };
        },
        /Missing signature headers: X-Signature/,
      ],
    ];
    for (const [missing, headers, message] of rows) {
      it(`when ${missing}`, async () => {
        await expect401(await get('/v1/deposit', headers()), message);
      });
    }
  });

  it('refuses an unknown client', async () => {
    const h = signHeaders(
      'kasir_test_nobody',
      p.creds.clientSecret,
      'GET',
      '/v1/deposit',
      '',
      p.deps.now().toISOString(),
    );
    await expect401(await get('/v1/deposit', h), /Unknown client/);
  });

  describe('refuses a bad signature', () => {
    const rows: Array<[string, () => Record<string, string>]> = [
      ['made with the wrong secret', () => signedGet('/v1/deposit', 'sk_test_wrong')],
      ['made for another path', () => signedGet('/v1/deposit?page=2')],
    ];
    for (const [how, headers] of rows) {
      it(how, async () => {
        await expect401(await get('/v1/deposit', headers()), /Bad signature/);
      });
    }

    it('after a good request has warmed the credential cache', async () => {
      const good = signedGet(`/v1/deposit/${depositId}`);
      assert.equal((await get(`/v1/deposit/${depositId}`, good)).status, 200);
      const flipped = good['X-Signature'].replace(/.$/, (c) => (c === '0' ? '1' : '0'));
      await expect401(await get(`/v1/deposit/${depositId}`, { ...good, 'X-Signature': flipped }), /Bad signature/);
    });
  });

  describe('refuses a timestamp outside the window or not in ISO 8601', () => {
    const rows: Array<[string, () => string, RegExp]> = [
      ['301 seconds old', () => at(-301_000), /Stale timestamp/],
      ['301 seconds ahead', () => at(301_000), /Stale timestamp/],
      ['in Unix seconds', () => String(Math.floor(Date.now() / 1000)), /X-Timestamp must be ISO 8601/],
    ];
    for (const [what, timestamp, message] of rows) {
      it(`one ${what}`, async () => {
        await expect401(await get('/v1/deposit', signedGet('/v1/deposit', p.creds.clientSecret, timestamp())), message);
      });
    }
  });

  it('accepts a timestamp within the window', async () => {
    assert.equal((await get('/v1/deposit', signedGet('/v1/deposit', p.creds.clientSecret, at(-290_000)))).status, 200);
  });

  it('refuses a signed POST whose body was changed', async () => {
    const body = JSON.stringify({ inputCurrency: 'IDR', inputAmount: 150000 });
    const headers = signHeaders(
      p.creds.clientId,
      p.creds.clientSecret,
      'POST',
      '/v1/checkout',
      body,
      p.deps.now().toISOString(),
    );
    const res = await p.app.request('http://localhost/v1/checkout', {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'application/json' },
      body: body.replace('150000', '1500'),
    });
    await expect401(res, /Bad signature/);
  });

  it('accepts a signed non-GET request once and refuses its replay', async () => {
    const body = JSON.stringify({ inputCurrency: 'IDR', inputAmount: 150000 });
    const headers = {
      ...signHeaders(p.creds.clientId, p.creds.clientSecret, 'POST', '/v1/checkout', body, p.deps.now().toISOString()),
      'Content-Type': 'application/json',
    };
    const first = await p.app.request('http://localhost/v1/checkout', { method: 'POST', headers, body });
    assert.equal(first.status, 200);
    await expect401(await p.app.request('http://localhost/v1/checkout', { method: 'POST', headers, body }), /Replay/);
  });

  it('covers the exact query string: the same parameters in another order are refused', async () => {
    const target = '/v1/deposit?limit=5&page=1';
    assert.equal((await get(target, signedGet(target))).status, 200);
    await expect401(await get(target, signedGet('/v1/deposit?page=1&limit=5')), /Bad signature/);
  });

  it("keeps credentials by the service's clock: moved past the cache time, a rotated secret is taken at once", async () => {
    const target = `/v1/deposit/${depositId}`;
    forgetCredentials(p.deps);
    assert.equal((await get(target, signedGet(target))).status, 200);
    await p.deps.db
      .updateTable('merchants')
      .set({ client_secret: 'sk_test_rotated' })
      .where('client_id', '=', p.creds.clientId)
      .execute();
    try {
      assert.equal((await get(target, signedGet(target))).status, 200, 'still the cached secret');
      p.clock.offsetMs += 5100;
      await expect401(await get(target, signedGet(target)), /Bad signature/);
      assert.equal((await get(target, signedGet(target, 'sk_test_rotated'))).status, 200);
    } finally {
      p.clock.offsetMs -= 5100;
      await p.deps.db
        .updateTable('merchants')
        .set({ client_secret: p.creds.clientSecret })
        .where('client_id', '=', p.creds.clientId)
        .execute();
      forgetCredentials(p.deps);
    }
  });

  describe('bearer endpoints (A)', () => {
    const post = (headers: Record<string, string>) =>
      p.app.request('http://localhost/v1/deposit/fiat', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...headers },
        body: '{}',
      });

    const rows: Array<[string, Record<string, string>, RegExp]> = [
      ['no Authorization header', {}, /Missing Authorization header/],
      ['an Authorization header of another scheme', { Authorization: 'Basic abc' }, /Bearer/],
      ['a token that is not ours', { Authorization: 'Bearer abc.def.ghi' }, /Invalid access token/],
    ];
    for (const [what, headers, message] of rows) {
      it(`refuse ${what}`, async () => {
        await expect401(await post(headers), message);
      });
    }

    it('do not take a signature in place of the bearer token', async () => {
      await expect401(await p.signed('POST', '/v1/deposit/fiat', {}), /Missing Authorization header/);
    });
  });
});
