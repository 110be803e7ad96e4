import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { ConfigError, loadMerchantConfig } from '../../server/merchant/config';
import { createMerchantApp } from '../../server/merchant/server';
import { WIDGET_ENTRY_FILE } from '../../server/common/widget-files';
import { widgetScriptRoutes } from '../../server/merchant/widget-api/widget-script';
import type { Checkout, Deposit } from '@kasir/checkout';
import { call, merchantApp, sleep, startUpstream, type Envelope, type Upstream } from './support';

describe('merchant backend: configuration', () => {
  const full = {
    KASIR_BASE_URL: 'http://localhost:4010',
    KASIR_CLIENT_ID: 'id',
    KASIR_CLIENT_SECRET: 'secret',
    KASIR_ACCESS_TOKEN: 'token',
    KASIR_WEBHOOK_SECRET: 'whsec_c2VjcmV0c2VjcmV0',
  };

  it('names every missing variable in one clear error', () => {
    assert.throws(
      () => loadMerchantConfig({}),
      (err: Error) => {
        assert.ok(err instanceof ConfigError);
        for (const name of [
          'KASIR_BASE_URL',
          'KASIR_CLIENT_ID',
          'KASIR_CLIENT_SECRET',
          'KASIR_ACCESS_TOKEN',
          'KASIR_WEBHOOK_SECRET',
        ]) {
          assert.match(err.message, new RegExp(name));
        }
        return true;
      },
    );
  });

  describe('rejects a malformed value, naming the variable', () => {
    const rows: Array<[string, string, RegExp]> = [
      ['KASIR_BASE_URL', 'not a url', /KASIR_BASE_URL must be an http\(s\) URL/],
      ['KASIR_FEES_PAID_BY', 'nobody', /KASIR_FEES_PAID_BY/],
      ['KASIR_ALLOWED_ORIGINS', 'https://shop.example/path', /KASIR_ALLOWED_ORIGINS/],
      ['PORT', 'eighty', /PORT/],
    ];
    for (const [name, value, message] of rows) {
      it(`${name}=${value}`, () => {
        assert.throws(() => loadMerchantConfig({ ...full, [name]: value }), message);
      });
    }
  });

  it('applies the documented defaults', () => {
    const config = loadMerchantConfig({ ...full, KASIR_ALLOWED_ORIGINS: 'https://a.example, http://b.example:8080' });
    assert.equal(config.port, 3000);
    assert.equal(config.checkoutUrl, 'http://localhost:4010/checkout');
    assert.equal(config.feesPaidBy, 'merchant');
    assert.equal(config.sandbox, false);
  });

  it('reads the allowed origins as a comma-separated list', () => {
    const config = loadMerchantConfig({ ...full, KASIR_ALLOWED_ORIGINS: 'https://a.example, http://b.example:8080' });
    assert.deepEqual(config.allowedOrigins, ['https://a.example', 'http://b.example:8080']);
  });

  it('lets the shopper bear the fee with KASIR_FEES_PAID_BY=shopper', () => {
    assert.equal(loadMerchantConfig({ ...full, KASIR_FEES_PAID_BY: 'shopper' }).feesPaidBy, 'shopper');
  });

  it('resolves the running config once and freezes it: nothing changes it after the app is built', () => {
    const { port: _port, ...options } = loadMerchantConfig({ ...full, KASIR_ALLOWED_ORIGINS: 'https://a.example' });
    const { config } = createMerchantApp({ ...options, port: 0 }).api;
    assert.ok(Object.isFrozen(config) && Object.isFrozen(config.allowedOrigins) && Object.isFrozen(config.currencies));
    assert.throws(() => Object.assign(config, { sandbox: true }), TypeError);
    assert.throws(() => (config.allowedOrigins as string[]).push('https://evil.example'), TypeError);
    assert.equal(config.baseUrl, 'http://localhost:4010');
    assert.deepEqual(config.allowedOrigins, ['https://a.example']);
  });
});

describe('merchant backend: HTTP surface', () => {
  let up: Upstream;
  before(async () => {
    up = await startUpstream();
  });
  after(async () => {
    await up.close();
  });

  describe('CORS, with https://shop.example configured', () => {
    let app: ReturnType<typeof merchantApp>;
    before(() => {
      app = merchantApp(up, {}, { allowedOrigins: ['https://shop.example'] });
    });

    it('answers the preflight of a configured origin', async () => {
      const preflight = await app.request('http://localhost:3000/api/checkouts', {
        method: 'OPTIONS',
        headers: {
          Origin: 'https://shop.example',
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'content-type',
        },
      });
      assert.equal(preflight.headers.get('access-control-allow-origin'), 'https://shop.example');
      assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /content-type/i);
    });

    it('allows its own origin', async () => {
      const own = await app.request('http://localhost:3000/api/checkouts/nope', {
        headers: { Origin: 'http://localhost:3000', Host: 'localhost:3000' },
      });
      assert.equal(own.headers.get('access-control-allow-origin'), 'http://localhost:3000');
    });

    it("serves no one else: another origin's preflight is answered so that its request comes, and is refused 403 (readable by it)", async () => {
      const evil = await app.request('http://localhost:3000/api/checkouts/nope', {
        headers: { Origin: 'https://evil.example' },
      });
      assert.equal(evil.status, 403);
      assert.equal(evil.headers.get('access-control-allow-origin'), 'https://evil.example');
      assert.match(
        ((await evil.json()) as { message: string }).message,
        /https:\/\/evil\.example is not allowed .*KASIR_ALLOWED_ORIGINS/,
      );
      const evilPreflight = await app.request('http://localhost:3000/api/checkouts', {
        method: 'OPTIONS',
        headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'POST' },
      });
      assert.equal(evilPreflight.headers.get('access-control-allow-origin'), 'https://evil.example');
    });

    it('exposes the ETag header to the page', async () => {
      const etagExposed = await app.request('http://localhost:3000/api/checkouts/nope', {
        headers: { Origin: 'https://shop.example' },
      });
      assert.match(etagExposed.headers.get('access-control-expose-headers') ?? '', /ETag/i);
    });
  });

  describe('rate-limits checkout creation per client address (3 a minute)', () => {
    let app: ReturnType<typeof merchantApp>;
    before(() => {
      app = merchantApp(up, {}, { checkoutRateLimit: 3 });
    });

    it('answers 429 once the limit is reached, even to requests it would refuse anyway', async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++)
        statuses.push((await call(app, 'POST', '/api/checkouts', { amount: 'x', currency: 'IDR' })).status);
      assert.deepEqual(statuses, [400, 400, 400, 429, 429]);
    });

    it('says so in the envelope, with a Retry-After', async () => {
      const limited = await call(app, 'POST', '/api/checkouts', { amount: '1000', currency: 'IDR' });
      assert.deepEqual(limited.json, {
        statusCode: 429,
        error: 'Too Many Requests',
        message: 'Too many checkouts from this address; try again in a minute',
      });
      assert.equal(limited.headers.get('retry-after'), '60');
    });

    it('does not limit reads', async () => {
      assert.equal((await call(app, 'GET', '/api/checkouts/unknown-id')).status, 404);
    });
  });

  it("429: Retry-After says what the limiter's RateLimit reset says, later in the window too", async () => {
    const app = merchantApp(up, {}, { checkoutRateLimit: 1 });
    await call(app, 'POST', '/api/checkouts', { amount: 'x', currency: 'IDR' });
    await sleep(1100);
    const limited = await call(app, 'POST', '/api/checkouts', { amount: '1000', currency: 'IDR' });
    assert.equal(limited.status, 429);
    const reset = /reset=(\d+)/.exec(limited.headers.get('ratelimit') ?? '')?.[1];
    assert.ok(reset && Number(reset) < 60, limited.headers.get('ratelimit') ?? 'no RateLimit header');
    assert.equal(limited.headers.get('retry-after'), reset);
  });

  describe('requires application/json on JSON POSTs, so a cross-site form or no-cors fetch cannot create a checkout', () => {
    let app: ReturnType<typeof merchantApp>;
    const creates = () => up.calls.filter((x) => x === 'POST /v1/checkout').length;
    let createsBefore: number;
    const json = JSON.stringify({ amount: '150000', currency: 'IDR' });
    let id: string;
    before(() => {
      app = merchantApp(up, {}, { checkoutRateLimit: 1000 });
      createsBefore = creates();
    });

    for (const type of [
      'text/plain',
      'text/plain;charset=UTF-8',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/jsonx',
      'text/json',
    ]) {
      it(`refuses a checkout sent as ${type}, with a 415 envelope (from another origin: 403, before its type is read)`, async () => {
        const r = await call(app, 'POST', '/api/checkouts', json, { 'Content-Type': type });
        assert.equal(r.status, 415, `${type}: ${r.text}`);
        assert.deepEqual(r.json, {
          statusCode: 415,
          error: 'Unsupported Media Type',
          message: 'Send the body as application/json',
        });
        const crossSite = await call(app, 'POST', '/api/checkouts', json, {
          'Content-Type': type,
          Origin: 'https://evil.example',
        });
        assert.equal(crossSite.status, 403, `${type}: ${crossSite.text}`);
      });
    }

    it('refuses a body without a type (a string body gets text/plain from fetch; a bare one has none at all)', async () => {
      const bare = await app.request('http://localhost/api/checkouts', {
        method: 'POST',
        body: new TextEncoder().encode(json),
      });
      assert.equal(bare.status, 415);
    });

    it('refuses a POST with no body and no type', async () => {
      assert.equal(
        (await app.request('http://localhost/api/checkouts', { method: 'POST' })).status,
        415,
        'no body, no type',
      );
    });

    it('created no checkout for any of them', () => {
      assert.equal(creates(), createsBefore, 'no checkout was created');
    });

    it('takes application/json with a charset', async () => {
      const ok = await call<Envelope<Checkout>>(app, 'POST', '/api/checkouts', json, {
        'Content-Type': 'application/json; charset=utf-8',
      });
      assert.equal(ok.status, 201, ok.text);
      id = ok.json.data.id;
    });

    it('refuses a method chosen as text/plain, choosing none', async () => {
      const choose = await call(app, 'POST', `/api/checkouts/${id}/deposit`, JSON.stringify({ method: 'QRIS' }), {
        'Content-Type': 'text/plain',
      });
      assert.equal(choose.status, 415);
      assert.equal((await call(app, 'GET', `/api/checkouts/${id}/deposit`)).status, 404, 'no method was chosen');
      assert.equal((await call(app, 'POST', `/api/checkouts/${id}/deposit`, { method: 'QRIS' })).status, 201);
    });

    it('refuses a body of another type on the bodiless POSTs, changing nothing', async () => {
      for (const path of [
        `/api/checkouts/${id}/cancel`,
        `/api/sandbox/checkouts/${id}/pay`,
        `/api/sandbox/checkouts/${id}/expire`,
      ]) {
        const r = await call(app, 'POST', path, 'x=1', { 'Content-Type': 'application/x-www-form-urlencoded' });
        assert.equal(r.status, 415, `${path}: ${r.text}`);
      }
      assert.equal(
        (await call<Envelope<Deposit>>(app, 'GET', `/api/checkouts/${id}/deposit`)).json.data.status,
        'pending',
      );
    });

    it('takes the bodiless POSTs sent as application/json (test/merchant/cross-site.test.ts: refused without)', async () => {
      const cancelled = await call(app, 'POST', `/api/checkouts/${id}/cancel`, undefined, {
        'Content-Type': 'application/json',
      });
      assert.equal(cancelled.status, 200, cancelled.text);
    });
  });

  describe('answers every failure in the envelope, never a stack trace', () => {
    let app: ReturnType<typeof merchantApp>;
    before(() => {
      app = merchantApp(up);
    });
    const noStackTrace = (r: { text: string }) => assert.doesNotMatch(r.text, /at .*\.ts:\d+|Error:/);

    it('an unknown route, as a 404', async () => {
      const unknown = await call(app, 'GET', '/api/nope');
      assert.deepEqual(unknown.json, { statusCode: 404, error: 'Not Found', message: 'Cannot GET /api/nope' });
      noStackTrace(unknown);
    });

    it('malformed JSON, as a 400', async () => {
      const malformed = await call(app, 'POST', '/api/checkouts', '{"amount":');
      assert.deepEqual(malformed.json, {
        statusCode: 400,
        error: 'Bad Request',
        message: 'Malformed JSON in request body',
      });
      noStackTrace(malformed);
    });

    it('a JSON body that is not an object, as a 400', async () => {
      const array = await call(app, 'POST', '/api/checkouts', '[1]');
      assert.equal(array.status, 400);
      noStackTrace(array);
    });

    it('a body over the limit, as a 413', async () => {
      const big = await call(app, 'POST', '/api/checkouts', JSON.stringify({ pad: 'x'.repeat(20_000) }));
      assert.equal(big.status, 413);
      assert.equal(big.json.statusCode, 413);
      noStackTrace(big);
    });

    it('an id that tries to climb out of /api, as a 404', async () => {
      const badId = await call(app, 'GET', '/api/checkouts/..%2F..%2Fv1%2Fdeposit');
      assert.equal(badId.status, 404);
      noStackTrace(badId);
    });
  });

  it('refuses sandbox routes when not in sandbox mode', async () => {
    const app = merchantApp(up, {}, { sandbox: false });
    const res = await call(app, 'POST', '/api/sandbox/checkouts/abc/pay');
    assert.equal(res.status, 404);
  });

  describe('the widget script route', () => {
    let dist: string;
    let file: string;
    before(() => {
      dist = mkdtempSync(join(tmpdir(), 'kasir-dist-'));
      file = join(dist, 'kasir-checkout.js');
      writeFileSync(file, 'export const kasir = 1;\n');
      writeFileSync(join(dist, 'kasir-checkout-qris-AbC_12-z.js'), 'export const qris = 1;\n');
      writeFileSync(join(dist, 'kasir-checkout-words-id.js'), 'export default { choose: "Pilih cara bayar" };\n');
      writeFileSync(join(dist, 'secret.txt'), 'not for the web\n');
    });
    after(() => rmSync(dist, { recursive: true, force: true }));
    const get = (path: string, headers: Record<string, string> = {}, method = 'GET') =>
      widgetScriptRoutes(file).request(`http://localhost${path}`, { method, headers });
    const loadableFromAnyOrigin = (res: Response) => {
      assert.match(res.headers.get('content-type') ?? '', /^text\/javascript/);
      assert.equal(res.headers.get('access-control-allow-origin'), '*');
      assert.equal(res.headers.get('cross-origin-resource-policy'), 'cross-origin');
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    };

    it('serves the entry as a cross-origin loadable ES module, revalidated on every use (it names its chunks)', async () => {
      const res = await get('/kasir-checkout.js');
      assert.equal(res.status, 200);
      loadableFromAnyOrigin(res);
      assert.equal(res.headers.get('cache-control'), 'no-cache');
      assert.equal(await res.text(), 'export const kasir = 1;\n');
      const etag = res.headers.get('etag')!;
      assert.match(etag, /^"[\w-]+"$/);
      const again = await get('/kasir-checkout.js', { 'If-None-Match': etag });
      assert.equal(again.status, 304);
      assert.equal(again.headers.get('etag'), etag);
      const head = await get('/kasir-checkout.js', {}, 'HEAD');
      assert.equal(head.status, 200);
      assert.equal(await head.text(), '');
    });

    it('serves a chunk beside the entry with the same headers, cached for a year (its name carries its hash)', async () => {
      const res = await get('/kasir-checkout-qris-AbC_12-z.js');
      assert.equal(res.status, 200);
      loadableFromAnyOrigin(res);
      assert.equal(res.headers.get('cache-control'), 'public, max-age=31536000, immutable');
      assert.equal(await res.text(), 'export const qris = 1;\n');
      const again = await get('/kasir-checkout-qris-AbC_12-z.js', { 'If-None-Match': res.headers.get('etag')! });
      assert.equal(again.status, 304);
    });

    it("serves a locale's words revalidated on every use, as the entry (their name carries no hash: a page preloads it)", async () => {
      const res = await get('/kasir-checkout-words-id.js');
      assert.equal(res.status, 200);
      loadableFromAnyOrigin(res);
      assert.equal(res.headers.get('cache-control'), 'no-cache');
      const again = await get('/kasir-checkout-words-id.js', { 'If-None-Match': res.headers.get('etag')! });
      assert.equal(again.status, 304);
    });

    it('serves a file changed on disk without a restart (a rebuild)', async () => {
      const built = await get('/kasir-checkout.js');
      writeFileSync(file, 'export const kasir = 2; // rebuilt\n');
      const rebuilt = await get('/kasir-checkout.js', { 'If-None-Match': built.headers.get('etag')! });
      assert.equal(rebuilt.status, 200);
      assert.equal(await rebuilt.text(), 'export const kasir = 2; // rebuilt\n');
      assert.notEqual(rebuilt.headers.get('etag'), built.headers.get('etag'));
    });

    it('answers 404 for an unknown chunk, and serves nothing else from the directory or outside it', async () => {
      const unknown = await get('/kasir-checkout-qris-0ld.js');
      assert.equal(unknown.status, 404);
      assert.deepEqual(await unknown.json(), {
        statusCode: 404,
        error: 'Not Found',
        message: 'Cannot GET /kasir-checkout-qris-0ld.js',
      });
      for (const path of [
        '/secret.txt',
        '/kasir-checkout-..%2Fsecret.txt',
        '/kasir-checkout-%2E%2E%2Fsecret.js',
        '/x/kasir-checkout.js',
        '/kasir-checkout.js.map',
      ]) {
        const res = await get(path);
        assert.equal(res.status, 404, path);
        assert.doesNotMatch(await res.text(), /not for the web/, path);
      }
    });

    it('says the widget is not built when the entry is missing (503, as the sandbox says it)', async () => {
      const res = await widgetScriptRoutes(join(dist, 'missing', 'kasir-checkout.js')).request(
        'http://localhost/kasir-checkout.js',
      );
      assert.equal(res.status, 503);
      assert.match((await res.json()).message, /not built/);
    });
  });

  it('serves the installed @kasir/checkout script at /kasir-checkout.js next to /api, and every chunk it imports', async () => {
    const app = createMerchantApp({ ...up.config(), port: 0 });
    const res = await app.request('http://localhost/kasir-checkout.js');
    assert.equal(res.status, 200);
    const entry = await res.text();
    assert.equal(entry, readFileSync(WIDGET_ENTRY_FILE!, 'utf8'));
    const chunks = [...entry.matchAll(/import\(["'`]\.\/([\w-]+\.js)["'`]\)/g)].map((m) => m[1]);
    assert.ok(chunks.length >= 3, `the entry imports its views: ${chunks.join(', ')}`);
    for (const chunk of new Set(chunks)) {
      const served = await app.request(`http://localhost/${chunk}`);
      assert.equal(served.status, 200, chunk);
      assert.equal(await served.text(), readFileSync(join(dirname(WIDGET_ENTRY_FILE!), chunk), 'utf8'));
    }
    assert.equal((await app.request('http://localhost/api/checkouts/nope')).status, 404);
  });

  it("serves every file of the element's build precompressed as the browser takes it (br, else gzip, else as is), with Vary, and each encoding's own length and ETag", async () => {
    const app = createMerchantApp({ ...up.config(), port: 0 });
    const dir = dirname(WIDGET_ENTRY_FILE!);
    const files = readdirSync(dir).filter((f) => f.endsWith('.js') && f !== 'kasir-checkout.node.js');
    assert.ok(files.length > 10, files.join(', '));
    for (const name of files) {
      const plain = readFileSync(join(dir, name));
      const get = (encoding?: string) =>
        app.request(`http://localhost/${name}`, { headers: encoding ? { 'Accept-Encoding': encoding } : {} });
      const seen = new Set<string>();
      for (const [accept, encoding, decode] of [
        ['br, gzip', 'br', brotliDecompressSync],
        ['gzip, deflate', 'gzip', gunzipSync],
        ['br;q=0, gzip;q=0.5', 'gzip', gunzipSync],
        [undefined, null, (b: Buffer) => b],
        ['identity', null, (b: Buffer) => b],
      ] as const) {
        const res = await get(accept);
        assert.equal(res.status, 200, `${name} ${accept}`);
        assert.equal(res.headers.get('content-encoding'), encoding, `${name} ${accept}`);
        assert.equal(res.headers.get('vary'), 'Accept-Encoding', name);
        const body = Buffer.from(await res.arrayBuffer());
        assert.equal(res.headers.get('content-length'), String(body.length), `${name} ${accept}`);
        assert.ok(decode(body).equals(plain), `${name} ${accept}: the bytes are the file's`);
        if (encoding) assert.ok(body.length < plain.length || plain.length < 200, `${name} ${encoding} is smaller`);
        seen.add(`${encoding} ${res.headers.get('etag')}`);
        const again = await app.request(`http://localhost/${name}`, {
          headers: { ...(accept ? { 'Accept-Encoding': accept } : {}), 'If-None-Match': res.headers.get('etag')! },
        });
        assert.equal(again.status, 304, `${name} ${accept}`);
      }
      // One ETag per encoding: a cache never answers one encoding's bytes for another's tag.
      assert.equal(new Set([...seen].map((s) => s.split(' ')[1])).size, 3, [...seen].join(' | '));
    }
  });
});
