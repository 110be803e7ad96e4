import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startSandbox } from '../../server/provider/process/main';
import { createTestProvider, type TestProvider } from '../support/provider';

describe('payment service foundation', () => {
  let p: TestProvider;
  before(async () => {
    p = await createTestProvider();
  });
  after(async () => {
    await p.close();
  });

  it('answers unknown routes with the 404 envelope', async () => {
    const res = await p.app.request('http://localhost/nope');
    assert.equal(res.status, 404);
    assert.deepEqual(await res.json(), { statusCode: 404, error: 'Not Found', message: 'Cannot GET /nope' });
  });

  it('refuses bodies over 64 KB with a 413 envelope', async () => {
    const res = await p.app.request('http://localhost/v1/auth/login', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ pad: 'x'.repeat(70_000) }),
    });
    assert.equal(res.status, 413);
    const body = await res.json();
    assert.equal(body.statusCode, 413);
    assert.equal(body.error, 'Payload Too Large');
  });

  it('writes sandbox.json credentials with every field', () => {
    for (const key of [
      'baseUrl',
      'checkoutUrl',
      'dashboardUrl',
      'email',
      'password',
      'clientId',
      'clientSecret',
      'accessToken',
      'webhookSecret',
    ] as const) {
      assert.ok(p.creds[key], key);
    }
    assert.match(p.creds.webhookSecret, /^whsec_/);
  });

  it('shares none of its caches, nor its mailer, with a second service in the same process', async () => {
    const other = await createTestProvider();
    try {
      // The unknown-email hash is made when the app is built, so both services have theirs.
      for (const name of ['depositViews', 'organizationNames', 'credentials', 'verifiedTokens', 'dummyHash'] as const) {
        assert.ok(p.deps.caches[name], name);
        assert.notEqual(other.deps.caches[name], p.deps.caches[name], name);
      }
      assert.notEqual(other.deps.mailer, p.deps.mailer);
    } finally {
      await other.close();
    }
  });
});

describe('payment service over real HTTP', () => {
  it('answers a request no URL can be built from (a backslash in the path) in the envelope', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'kasir-http-'));
    const provider = await startSandbox({ env: { KASIR_DATA_DIR: dataDir }, port: 0, scryptN: 2 ** 10 });
    try {
      const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port: provider.port, path: '/v1/a\\b' }, (res) => {
          let body = '';
          res.on('data', (chunk) => {
            body += chunk;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.on('error', reject);
        req.end();
      });
      assert.equal(status, 400);
      assert.deepEqual(JSON.parse(body), {
        statusCode: 400,
        error: 'Bad Request',
        message: 'Bad request: Backslash in request path',
      });
    } finally {
      await provider.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
