import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { verifyWebhook } from '../../server/common/standard-webhooks';
import type { accountOf } from '../../server/provider/accounts/merchants';
import type { recentDeliveries } from '../../server/provider/webhooks/history';
import { sandboxDeps, type RunningSandbox } from '../../server/provider/process/main';
import { WebhookDispatcher } from '../../server/provider/webhooks/dispatcher';
import { enqueueDepositWebhook, type DepositWebhookPayload } from '../../server/provider/webhooks/outbox';
import { bodyOf, errorOf, type Envelope } from '../support/envelope';
import { createTestProvider, startTestSandbox, type TestProvider, type TestSandbox } from '../support/provider';

type Account = Awaited<ReturnType<typeof accountOf>>;
type Delivery = Awaited<ReturnType<typeof recentDeliveries>>[number];
/** login, verify-login and the sandbox mailbox, as the dashboard's sign-in reads them. */
type TokenAnswer = { data: { verificationToken: string } };
type SessionAnswer = { data: { accessToken: string } };
type MailboxAnswer = Envelope<Array<{ code: string | null }>>;

describe('merchant dashboard', () => {
  let p: TestProvider;
  let merchantId: string;
  before(async () => {
    p = await createTestProvider();
    merchantId = (
      await p.deps.db
        .selectFrom('merchants')
        .select('id')
        .where('client_id', '=', p.creds.clientId)
        .executeTakeFirstOrThrow()
    ).id;
  });
  after(async () => {
    await p.close();
  });

  const api = (method: string, path: string, body?: unknown, token?: string) =>
    p.bearer(method, `/dashboard/api${path}`, body, token);
  /** The data of a 200 answer in the statusCode envelope, as the type the test expects. */
  const data = async <T>(res: Response): Promise<T> => {
    const json = await bodyOf<Envelope<T>>(res);
    assert.equal(res.status, 200, JSON.stringify(json));
    assert.equal(json.statusCode, 200);
    return json.data;
  };
  const postJson = (path: string, body: unknown) =>
    p.app.request(`http://localhost${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
  /** Registers (or logs in) through the OTP flow as the dashboard does; the access token. */
  const tokenThroughOtp = async (start: Response, email: string) => {
    const { verificationToken } = (await bodyOf<TokenAnswer>(start)).data;
    const mail = (
      await bodyOf<MailboxAnswer>(
        await p.app.request(`http://localhost/sandbox/mailbox?email=${encodeURIComponent(email)}`),
      )
    ).data[0];
    return (await bodyOf<SessionAnswer>(await postJson('/v1/auth/verify-login', { verificationToken, otp: mail.code })))
      .data.accessToken;
  };

  describe('its page', () => {
    it('is served under a strict CSP, with no inline script, style or handler', async () => {
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
    });

    it('has its script served as a file of its own', async () => {
      const js = await p.app.request('http://localhost/dashboard/dashboard.js');
      assert.equal(js.status, 200);
      assert.match(js.headers.get('content-type')!, /javascript/);
      assert.match(await js.text(), /\/v1\/auth\/verify-login/);
    });

    it('has its style served as a file of its own', async () => {
      const css = await p.app.request('http://localhost/dashboard/dashboard.css');
      assert.equal(css.status, 200);
      assert.match(css.headers.get('content-type')!, /text\/css/);
    });
  });

  describe('requires a bearer token for its API', () => {
    it('answering 401 in the envelope without one', async () => {
      const res = await p.app.request('http://localhost/dashboard/api/account');
      assert.equal(res.status, 401);
      assert.equal((await errorOf(res)).statusCode, 401);
    });

    it('answering 401 to a token that is not a JWT', async () => {
      const bad = await api('GET', '/account', undefined, 'not-a-jwt');
      assert.equal(bad.status, 401);
    });
  });

  it('signs in through the OTP flow and shows the account, without its secrets', async () => {
    const token = await tokenThroughOtp(
      await postJson('/v1/auth/login', { email: p.creds.email, password: p.creds.password }),
      p.creds.email,
    );
    const account = await data<Account & { clientSecret?: string }>(await api('GET', '/account', undefined, token));
    assert.equal(account.clientId, p.creds.clientId);
    assert.equal(account.email, p.creds.email);
    assert.equal(account.orgName, 'Kasir Sandbox Store');
    assert.equal(account.checkoutEnabled, true);
    assert.equal(typeof account.webhookUrl, 'string');
    assert.equal(account.clientSecret, undefined, 'secrets only on reveal');
  });

  describe('the client secret', () => {
    let rotated: string;

    it('is revealed on request', async () => {
      const revealed = await data<{ clientSecret: string }>(await api('POST', '/client-secret/reveal'));
      assert.equal(revealed.clientSecret, p.creds.clientSecret);
    });

    it('is rotated to a new one', async () => {
      rotated = (await data<{ clientSecret: string }>(await api('POST', '/client-secret/rotate'))).clientSecret;
      assert.notEqual(rotated, p.creds.clientSecret);
    });

    it('no longer signs once rotated', async () => {
      const old = await p.signed('GET', '/v1/recipient');
      assert.equal(old.status, 401);
      assert.match((await errorOf(old)).message, /Bad signature/);
    });

    it('signs with the new one at once', async () => {
      const fresh = await p.signed('GET', '/v1/recipient', undefined, { secret: rotated });
      assert.equal(fresh.status, 200);
    });

    it('is revealed as the new one', async () => {
      assert.equal(
        (await data<{ clientSecret: string }>(await api('POST', '/client-secret/reveal'))).clientSecret,
        rotated,
      );
    });
  });

  describe('the webhook URL', () => {
    for (const bad of [
      'ftp://example.com/hook',
      'javascript:alert(1)',
      'not a url',
      'https://user:pw@example.com/',
      '',
      42,
    ]) {
      it(`refuses ${JSON.stringify(bad)}, naming the field`, async () => {
        const res = await api('PUT', '/webhook-url', { webhookUrl: bad });
        assert.equal(res.status, 400, String(bad));
        assert.match((await errorOf(res)).message, /^webhookUrl: /);
      });
    }

    it('is set to an https URL, which the account then shows', async () => {
      assert.equal(
        (
          await data<{ webhookUrl: string | null }>(
            await api('PUT', '/webhook-url', { webhookUrl: 'https://shop.example/api/webhooks/kasir' }),
          )
        ).webhookUrl,
        'https://shop.example/api/webhooks/kasir',
      );
      assert.equal(
        (await data<Account>(await api('GET', '/account'))).webhookUrl,
        'https://shop.example/api/webhooks/kasir',
      );
    });

    it('is cleared with null', async () => {
      assert.equal(
        (await data<{ webhookUrl: string | null }>(await api('PUT', '/webhook-url', { webhookUrl: null }))).webhookUrl,
        null,
      );
      assert.equal((await data<Account>(await api('GET', '/account'))).webhookUrl, null);
    });
  });

  describe('the checkout switch', () => {
    it('turns hosted checkout off, in the account and in the database', async () => {
      assert.equal(
        (await data<{ checkoutEnabled: boolean }>(await api('PUT', '/checkout', { enabled: false }))).checkoutEnabled,
        false,
      );
      assert.equal((await data<Account>(await api('GET', '/account'))).checkoutEnabled, false);
      const row = await p.deps.db
        .selectFrom('merchants')
        .select('checkout_enabled')
        .where('id', '=', merchantId)
        .executeTakeFirstOrThrow();
      assert.equal(row.checkout_enabled, 0);
    });

    it('refuses anything but a boolean', async () => {
      const bad = await api('PUT', '/checkout', { enabled: 'yes' });
      assert.equal(bad.status, 400);
      assert.match((await errorOf(bad)).message, /^enabled: must be a boolean/);
    });

    it('turns it on again', async () => {
      assert.equal(
        (await data<{ checkoutEnabled: boolean }>(await api('PUT', '/checkout', { enabled: true }))).checkoutEnabled,
        true,
      );
    });
  });

  describe('webhook deliveries', () => {
    const received: Array<{ headers: Record<string, string>; body: string }> = [];
    let answer = 500;
    let server: Server;
    const depositId = crypto.randomUUID();
    let id: string;
    let dispatcher: WebhookDispatcher;
    let webhookSecret: string;
    let resent: { id: string; resendOf: string };
    before(async () => {
      server = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c) => chunks.push(c));
        req.on('end', () => {
          received.push({ headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString() });
          res.writeHead(answer).end();
        });
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
      await data(await api('PUT', '/webhook-url', { webhookUrl: url }));
      id = await p.deps.db.transaction().execute((trx) =>
        enqueueDepositWebhook(
          trx,
          {
            type: 'deposit.completed',
            merchantId,
            depositId,
            reference: null,
            status: 'completed',
            data: { depositId },
          },
          p.deps.now(),
        ),
      );
      dispatcher = new WebhookDispatcher(p.deps, { scheduleMs: [0, 0] });
      assert.equal(await dispatcher.runOnce(), 1);
    });
    after(async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    });

    it('are listed with their attempts', async () => {
      const list = await data<Delivery[]>(await api('GET', '/webhooks?limit=5'));
      const entry = list.find((d) => d.id === id);
      assert.ok(entry);
      assert.equal(entry.eventType, 'deposit.completed');
      assert.equal(entry.depositId, depositId);
      assert.equal(entry.status, 'pending');
      assert.equal(entry.attemptCount, 1);
      assert.equal(entry.attempts.length, 1);
      assert.equal(entry.attempts[0].responseStatus, 500);
      assert.match(entry.attempts[0].error!, /HTTP 500/);
    });

    it('are signed with a webhook secret that rotates and is revealed', async () => {
      webhookSecret = (await data<{ webhookSecret: string }>(await api('POST', '/webhook-secret/rotate')))
        .webhookSecret;
      assert.match(webhookSecret, /^whsec_/);
      assert.notEqual(webhookSecret, p.creds.webhookSecret);
      assert.equal(
        (await data<{ webhookSecret: string }>(await api('POST', '/webhook-secret/reveal'))).webhookSecret,
        webhookSecret,
      );
    });

    it('are resent as a new delivery of the same event', async () => {
      answer = 200;
      resent = await data<{ id: string; resendOf: string }>(await api('POST', `/webhooks/${id}/resend`));
      assert.equal(resent.resendOf, id);
      assert.notEqual(resent.id, id);
      await dispatcher.runOnce();
      const last = received[received.length - 1];
      assert.equal(last.headers['webhook-id'], resent.id);
      assert.equal((JSON.parse(last.body) as DepositWebhookPayload).depositId, depositId);
    });

    it('are resent signed with the rotated secret, not the old one', async () => {
      const last = received[received.length - 1];
      verifyWebhook(webhookSecret, last.headers, last.body);
      assert.throws(() => verifyWebhook(p.creds.webhookSecret, last.headers, last.body));
    });

    it('list the resent copy as succeeded, linked to the original', async () => {
      const after = await data<Delivery[]>(await api('GET', '/webhooks'));
      const copy = after.find((d) => d.id === resent.id);
      assert.equal(copy?.status, 'succeeded');
      assert.equal(copy?.resendOf, id);
    });

    it('answer 404 to resending one that does not exist', async () => {
      const missing = await api('POST', '/webhooks/msg_nope/resend');
      assert.equal(missing.status, 404);
      assert.equal((await errorOf(missing)).statusCode, 404);
    });
  });

  describe('a second merchant account', () => {
    let token: string;
    before(async () => {
      const register = await postJson('/v1/auth/register', {
        email: 'second@example.com',
        password: 'long enough',
        fullName: 'Second Shop',
      });
      token = await tokenThroughOtp(register, 'second@example.com');
    });

    it('has its own organization and credentials, with checkout off', async () => {
      const account = await data<Account>(await api('GET', '/account', undefined, token));
      assert.equal(account.orgName, 'Second Shop');
      assert.notEqual(account.clientId, p.creds.clientId);
      assert.equal(account.checkoutEnabled, false, 'new accounts start with checkout off');
    });

    it("sees none of the first merchant's deliveries", async () => {
      assert.deepEqual(await data(await api('GET', '/webhooks', undefined, token)), []);
    });

    it("cannot resend the first merchant's delivery", async () => {
      const theirs = (await data<Delivery[]>(await api('GET', '/webhooks')))[0].id;
      assert.equal((await api('POST', `/webhooks/${theirs}/resend`, undefined, token)).status, 404);
    });
  });
});

describe('dashboard page in Chromium', () => {
  let running: TestSandbox;
  let provider: RunningSandbox;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];
  before(async () => {
    running = await startTestSandbox('kasir-dash-');
    provider = running.sandbox;
    // Loaded here, as only this suite drives a browser.
    const { chromium } = await import('playwright-core');
    const { chromiumArgs, chromiumPath } = await import('../support/chromium');
    browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs });
    page = await browser.newPage();
    page.on('console', (msg) => {
      if (msg.type() === 'error') problems.push(msg.text());
    });
    page.on('pageerror', (err) => problems.push(err.message));
  });
  after(async () => {
    await browser.close();
    await running.stop();
  });

  it('signs in with the OTP and shows the client id', async () => {
    const { email, password, clientId } = provider.credentials;
    await page.goto(`${provider.url}/dashboard`);
    await page.fill('#login-form input[name=email]', email);
    await page.fill('#login-form input[name=password]', password);
    await page.click('#login-form button[type=submit]');
    await page.waitForSelector('#otp-form:not([hidden])');
    const box = await bodyOf<MailboxAnswer>(
      await fetch(`${provider.url}/sandbox/mailbox?email=${encodeURIComponent(email)}`),
    );
    await page.fill('#otp-form input[name=otp]', box.data[0].code!);
    await page.click('#otp-form button[type=submit]');
    await page.waitForSelector('#account:not([hidden])');
    await page.waitForFunction((id) => document.getElementById('client-id')?.textContent === id, clientId);
  });

  it('reveals the client secret', async () => {
    await page.click('#reveal-client-secret');
    await page.waitForFunction(
      (s) => document.getElementById('client-secret')?.textContent === s,
      provider.credentials.clientSecret,
    );
  });

  it('saves the webhook URL and switches checkout off', async () => {
    await page.fill('#webhook-form input[name=webhookUrl]', 'https://shop.example/hooks/kasir');
    await page.click('#webhook-form button[type=submit]');
    await page.waitForFunction(() => /saved/i.test(document.getElementById('notice')?.textContent ?? ''));
    await page.click('#checkout-enabled');
    await page.waitForFunction(() => /disabled/i.test(document.getElementById('notice')?.textContent ?? ''));
    const merchant = await sandboxDeps(provider)
      .db.selectFrom('merchants')
      .select(['webhook_url', 'checkout_enabled'])
      .where('client_id', '=', provider.credentials.clientId)
      .executeTakeFirstOrThrow();
    assert.equal(merchant.webhook_url, 'https://shop.example/hooks/kasir');
    assert.equal(merchant.checkout_enabled, 0);
  });

  it("shows the service's message for a wrong password", async () => {
    await page.click('#sign-out');
    await page.fill('#login-form input[name=email]', provider.credentials.email);
    await page.fill('#login-form input[name=password]', 'wrong-password');
    await page.click('#login-form button[type=submit]');
    await page.waitForFunction(() => document.getElementById('notice')?.textContent === 'Invalid email or password');
  });

  it('logged no error but the expected 401s, and no CSP violation', () => {
    assert.deepEqual(
      problems.filter((p) => !/401|Failed to load resource/.test(p)),
      [],
    );
    assert.ok(!problems.some((p) => /Content Security Policy/i.test(p)), problems.join('\n'));
  });
});
