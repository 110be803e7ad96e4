import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { verifyWebhook } from '../../server/common/standard-webhooks';
import { WebhookDispatcher } from '../../server/provider/webhooks/dispatcher';
import { enqueueDepositWebhook } from '../../server/provider/webhooks/outbox';
import { createTestProvider, testDatabaseEnv, type TestProvider } from '../support/provider';

describe('merchant dashboard', () => {
  let p: TestProvider;
  let merchantId: string;
  before(async () => {
    p = await createTestProvider();
    merchantId = (await p.deps.db.selectFrom('merchants').select('id').where('client_id', '=', p.creds.clientId).executeTakeFirstOrThrow()).id;
  });
  after(async () => { await p.close(); });

  const api = (method: string, path: string, body?: unknown, token?: string) => p.bearer(method, `/dashboard/api${path}`, body, token);
  const data = async (res: Response) => {
    const json = await res.json();
    assert.equal(res.status, 200, JSON.stringify(json));
    assert.equal(json.statusCode, 200);
    return json.data;
  };

  it('serves the page, its script and its style as separate files under a strict CSP', async () => {
    const res = await p.app.request('http://localhost/dashboard');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type')!, /^text\/html/);
    const csp = res.headers.get('content-security-policy')!;
    assert.match(csp, /script-src 'self'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    const html = await res.text();
    for (const tag of html.match(/<script\b[^>]*>/g) ?? []) assert.match(tag, /\bsrc="\/dashboard\/dashboard\.js"/);
    assert.doesNotMatch(html, /<script\b[^>]*>[^<]+<\/script>/, 'no inline script');
    assert.doesNotMatch(html, /<style|\sstyle=|\son[a-z]+=/i, 'no inline style or handlers');
    const js = await p.app.request('http://localhost/dashboard/dashboard.js');
    assert.equal(js.status, 200);
    assert.match(js.headers.get('content-type')!, /javascript/);
    assert.match(await js.text(), /\/v1\/auth\/verify-login/);
    const css = await p.app.request('http://localhost/dashboard/dashboard.css');
    assert.equal(css.status, 200);
    assert.match(css.headers.get('content-type')!, /text\/css/);
  });

  it('requires a bearer token for its API', async () => {
    const res = await p.app.request('http://localhost/dashboard/api/account');
    assert.equal(res.status, 401);
    assert.equal((await res.json()).statusCode, 401);
    const bad = await api('GET', '/account', undefined, 'not-a-jwt');
    assert.equal(bad.status, 401);
  });

  it('signs in through the OTP flow and shows the account', async () => {
    const login = await (await p.app.request('http://localhost/v1/auth/login', {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email: p.creds.email, password: p.creds.password }),
    })).json();
    const mail = (await (await p.app.request(`http://localhost/sandbox/mailbox?email=${encodeURIComponent(p.creds.email)}`)).json()).data[0];
    const verify = await (await p.app.request('http://localhost/v1/auth/verify-login', {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ verificationToken: login.data.verificationToken, otp: mail.code }),
    })).json();
    const account = await data(await api('GET', '/account', undefined, verify.data.accessToken));
    assert.equal(account.clientId, p.creds.clientId);
    assert.equal(account.email, p.creds.email);
    assert.equal(account.orgName, 'Kasir Sandbox Store');
    assert.equal(account.checkoutEnabled, true);
    assert.equal(typeof account.webhookUrl, 'string');
    assert.equal(account.clientSecret, undefined, 'secrets only on reveal');
  });

  it('reveals and rotates the client secret; the old one stops signing', async () => {
    const revealed = await data(await api('POST', '/client-secret/reveal'));
    assert.equal(revealed.clientSecret, p.creds.clientSecret);
    const rotated = await data(await api('POST', '/client-secret/rotate'));
    assert.notEqual(rotated.clientSecret, p.creds.clientSecret);
    const old = await p.signed('GET', '/v1/recipient');
    assert.equal(old.status, 401);
    assert.match((await old.json()).message, /Bad signature/);
    const fresh = await p.signed('GET', '/v1/recipient', undefined, { secret: rotated.clientSecret });
    assert.equal(fresh.status, 200);
    assert.equal((await data(await api('POST', '/client-secret/reveal'))).clientSecret, rotated.clientSecret);
  });

  it('sets the webhook URL, refusing anything but http(s)', async () => {
    for (const bad of ['ftp://example.com/hook', 'javascript:alert(1)', 'not a url', 'https://user:pw@example.com/', '', 42]) {
      const res = await api('PUT', '/webhook-url', { webhookUrl: bad });
      assert.equal(res.status, 400, String(bad));
      assert.match((await res.json()).message, /^webhookUrl: /);
    }
    assert.equal((await data(await api('PUT', '/webhook-url', { webhookUrl: 'https://shop.example/api/webhooks/kasir' }))).webhookUrl, 'https://shop.example/api/webhooks/kasir');
    assert.equal((await data(await api('GET', '/account'))).webhookUrl, 'https://shop.example/api/webhooks/kasir');
    assert.equal((await data(await api('PUT', '/webhook-url', { webhookUrl: null }))).webhookUrl, null);
    assert.equal((await data(await api('GET', '/account'))).webhookUrl, null);
  });

  it('switches checkout off and on', async () => {
    assert.equal((await data(await api('PUT', '/checkout', { enabled: false }))).checkoutEnabled, false);
    assert.equal((await data(await api('GET', '/account'))).checkoutEnabled, false);
    const row = await p.deps.db.selectFrom('merchants').select('checkout_enabled').where('id', '=', merchantId).executeTakeFirstOrThrow();
    assert.equal(row.checkout_enabled, 0);
    const bad = await api('PUT', '/checkout', { enabled: 'yes' });
    assert.equal(bad.status, 400);
    assert.match((await bad.json()).message, /^enabled: must be a boolean/);
    assert.equal((await data(await api('PUT', '/checkout', { enabled: true }))).checkoutEnabled, true);
  });

  it('lists deliveries with attempts, resends one, and signs with a rotated webhook secret', async () => {
    const received: Array<{ headers: Record<string, string>; body: string }> = [];
    let answer = 500;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        received.push({ headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString() });
        res.writeHead(answer).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
      await data(await api('PUT', '/webhook-url', { webhookUrl: url }));
      const depositId = crypto.randomUUID();
      const id = await p.deps.db.transaction().execute((trx) => enqueueDepositWebhook(trx, {
        type: 'deposit.completed', merchantId, depositId, reference: null, status: 'completed', data: { depositId },
      }, p.deps.now()));
      const dispatcher = new WebhookDispatcher(p.deps, { scheduleMs: [0, 0] });
      assert.equal(await dispatcher.runOnce(), 1);

      const list = await data(await api('GET', '/webhooks?limit=5'));
      const entry = list.find((d: { id: string }) => d.id === id);
      assert.ok(entry);
      assert.equal(entry.eventType, 'deposit.completed');
      assert.equal(entry.depositId, depositId);
      assert.equal(entry.status, 'pending');
      assert.equal(entry.attemptCount, 1);
      assert.equal(entry.attempts.length, 1);
      assert.equal(entry.attempts[0].responseStatus, 500);
      assert.match(entry.attempts[0].error, /HTTP 500/);

      const { webhookSecret } = await data(await api('POST', '/webhook-secret/rotate'));
      assert.match(webhookSecret, /^whsec_/);
      assert.notEqual(webhookSecret, p.creds.webhookSecret);
      assert.equal((await data(await api('POST', '/webhook-secret/reveal'))).webhookSecret, webhookSecret);

      answer = 200;
      const resent = await data(await api('POST', `/webhooks/${id}/resend`));
      assert.equal(resent.resendOf, id);
      assert.notEqual(resent.id, id);
      await dispatcher.runOnce();
      const last = received[received.length - 1];
      assert.equal(last.headers['webhook-id'], resent.id);
      await verifyWebhook(webhookSecret, last.body, last.headers);
      await assert.rejects(verifyWebhook(p.creds.webhookSecret, last.body, last.headers));
      assert.equal(JSON.parse(last.body).depositId, depositId);

      const after = await data(await api('GET', '/webhooks'));
      const copy = after.find((d: { id: string }) => d.id === resent.id);
      assert.equal(copy.status, 'succeeded');
      assert.equal(copy.resendOf, id);

      const missing = await api('POST', '/webhooks/msg_nope/resend');
      assert.equal(missing.status, 404);
      assert.equal((await missing.json()).statusCode, 404);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it("keeps each merchant to its own deliveries", async () => {
    const register = await (await p.app.request('http://localhost/v1/auth/register', {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email: 'second@example.com', password: 'long enough', fullName: 'Second Shop' }),
    })).json();
    const mail = (await (await p.app.request('http://localhost/sandbox/mailbox?email=second%40example.com')).json()).data[0];
    const verify = await (await p.app.request('http://localhost/v1/auth/verify-login', {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ verificationToken: register.data.verificationToken, otp: mail.code }),
    })).json();
    const token = verify.data.accessToken;
    const account = await data(await api('GET', '/account', undefined, token));
    assert.equal(account.orgName, 'Second Shop');
    assert.notEqual(account.clientId, p.creds.clientId);
    assert.equal(account.checkoutEnabled, false, 'new accounts start with checkout off');
    assert.deepEqual(await data(await api('GET', '/webhooks', undefined, token)), []);
    const theirs = (await data(await api('GET', '/webhooks')))[0].id;
    assert.equal((await api('POST', `/webhooks/${theirs}/resend`, undefined, token)).status, 404);
  });
});

describe('dashboard page in Chromium', () => {
  it('signs in with the OTP, shows and reveals credentials, saves settings, with no CSP violation', async () => {
    const { chromium } = await import('playwright-core');
    const { chromiumArgs, chromiumPath } = await import('../support/chromium');
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { startSandbox, sandboxDeps } = await import('../../server/provider/main');
    const dataDir = mkdtempSync(join(tmpdir(), 'kasir-dash-'));
    const database = await testDatabaseEnv();
    const provider = await startSandbox({ env: { KASIR_DATA_DIR: dataDir, PROVIDER_PORT: '0', ...database.env }, scryptN: 2 ** 10 });
    const browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs });
    const problems: string[] = [];
    try {
      const page = await browser.newPage();
      page.on('console', (msg) => { if (msg.type() === 'error') problems.push(msg.text()); });
      page.on('pageerror', (err) => problems.push(err.message));
      const { email, password, clientId, clientSecret } = provider.credentials;
      await page.goto(`${provider.url}/dashboard`);
      await page.fill('#login-form input[name=email]', email);
      await page.fill('#login-form input[name=password]', password);
      await page.click('#login-form button[type=submit]');
      await page.waitForSelector('#otp-form:not([hidden])');
      const box = await (await fetch(`${provider.url}/sandbox/mailbox?email=${encodeURIComponent(email)}`)).json();
      await page.fill('#otp-form input[name=otp]', box.data[0].code);
      await page.click('#otp-form button[type=submit]');
      await page.waitForSelector('#account:not([hidden])');
      await page.waitForFunction((id) => document.getElementById('client-id')?.textContent === id, clientId);
      await page.click('#reveal-client-secret');
      await page.waitForFunction((s) => document.getElementById('client-secret')?.textContent === s, clientSecret);

      await page.fill('#webhook-form input[name=webhookUrl]', 'https://shop.example/hooks/kasir');
      await page.click('#webhook-form button[type=submit]');
      await page.waitForFunction(() => /saved/i.test(document.getElementById('notice')?.textContent ?? ''));
      await page.click('#checkout-enabled');
      await page.waitForFunction(() => /disabled/i.test(document.getElementById('notice')?.textContent ?? ''));
      const merchant = await sandboxDeps(provider).db.selectFrom('merchants').select(['webhook_url', 'checkout_enabled']).where('client_id', '=', clientId).executeTakeFirstOrThrow();
      assert.equal(merchant.webhook_url, 'https://shop.example/hooks/kasir');
      assert.equal(merchant.checkout_enabled, 0);

      // A wrong OTP shows the service's message.
      await page.click('#sign-out');
      await page.fill('#login-form input[name=email]', email);
      await page.fill('#login-form input[name=password]', 'wrong-password');
      await page.click('#login-form button[type=submit]');
      await page.waitForFunction(() => document.getElementById('notice')?.textContent === 'Invalid email or password');
      assert.deepEqual(problems.filter((p) => !/401|Failed to load resource/.test(p)), []);
      assert.ok(!problems.some((p) => /Content Security Policy/i.test(p)), problems.join('\n'));
    } finally {
      await browser.close();
      await provider.stop();
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
