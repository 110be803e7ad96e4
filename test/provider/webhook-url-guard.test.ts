// Outside sandbox mode webhooks reach public addresses only: refused when the URL is saved (400 in the envelope) and
// again at every send, after resolving the host afresh (DNS rebinding). Host names resolve through an injected
// resolver (deps.resolveHost), so a name can point at 127.0.0.1 without touching the system's DNS.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { startWebhookDispatcher } from '../../server/provider/webhooks/dispatcher';
import { enqueueDepositWebhook } from '../../server/provider/webhooks/outbox';
import { nonPublicRange, type HostResolver } from '../../server/provider/webhooks/url-guard';
import { errorOf } from '../support/envelope';
import { createTestProvider, type TestProvider } from '../support/provider';

describe('address classes', () => {
  const rows: Array<[string, string | undefined]> = [
    ['127.0.0.1', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['fe80::1', 'linkLocal'],
    ['fd00:ec2::254', 'uniqueLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['93.184.216.34', undefined],
    ['2606:4700:4700::1111', undefined],
  ];
  for (const [address, range] of rows) {
    it(`${address} is ${range ?? 'public'}`, () => {
      assert.equal(nonPublicRange(address), range);
    });
  }
});

/** A resolver from a fixed table; a name it does not know fails as DNS does. */
const resolverOf =
  (table: Record<string, string[]>): HostResolver =>
  async (hostname) => {
    const addresses = table[hostname];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };

describe('saving a webhook URL outside sandbox mode', () => {
  let p: TestProvider;
  before(async () => {
    p = await createTestProvider({ sandbox: false });
    p.deps.resolveHost = resolverOf({
      'hooks.shop.example': ['93.184.216.34'],
      'rebind.example': ['127.0.0.1'],
      'mixed.example': ['93.184.216.34', '10.0.0.7'],
      'metadata.example': ['fd00:ec2::254'],
    });
  });
  after(() => p.close());

  const save = (webhookUrl: string) => p.bearer('PUT', '/dashboard/api/webhook-url', { webhookUrl });

  it('accepts a URL whose host resolves to public addresses only', async () => {
    const res = await save('https://hooks.shop.example/kasir');
    assert.equal(res.status, 200);
  });

  const refused: Array<[string, string, RegExp]> = [
    [
      'a DNS name resolving to 127.0.0.1',
      'http://rebind.example/hook',
      /rebind\.example resolves to 127\.0\.0\.1, a loopback address/,
    ],
    [
      'a name with one private address among public ones',
      'https://mixed.example/hook',
      /10\.0\.0\.7, a private address/,
    ],
    ['the AWS IPv6 metadata address by name', 'http://metadata.example/', /fd00:ec2::254, a uniqueLocal address/],
    ['the metadata address 169.254.169.254', 'http://169.254.169.254/latest/meta-data', /linkLocal/],
    ['localhost', 'http://localhost:3000/api/webhooks/kasir', /localhost/],
    ['an IPv6 loopback literal', 'http://[::1]:8080/hook', /::1, a loopback address/],
    ['a CGNAT address', 'http://100.64.1.1/hook', /carrierGradeNat/],
    [
      'a name that does not resolve',
      'https://nowhere.example/hook',
      /nowhere\.example cannot be resolved \(ENOTFOUND\)/,
    ],
  ];
  for (const [what, url, message] of refused) {
    it(`refuses ${what} with a 400 in the envelope`, async () => {
      if (what === 'localhost') p.deps.resolveHost = resolverOf({ localhost: ['127.0.0.1', '::1'] });
      const res = await save(url);
      assert.equal(res.status, 400);
      const body = await errorOf(res);
      assert.equal(body.statusCode, 400);
      assert.equal(body.error, 'Bad Request');
      assert.match(body.message, /^Webhook URL refused: /);
      assert.match(body.message, message);
    });
  }

  it('keeps the last accepted URL after a refusal', async () => {
    const row = await p.deps.db
      .selectFrom('merchants')
      .select('webhook_url')
      .where('client_id', '=', p.creds.clientId)
      .executeTakeFirstOrThrow();
    assert.equal(row.webhook_url, 'https://hooks.shop.example/kasir');
  });
});

describe('saving a webhook URL in sandbox mode', () => {
  let p: TestProvider;
  before(async () => {
    p = await createTestProvider();
  });
  after(() => p.close());

  it('accepts localhost (the demo shop receives there)', async () => {
    const res = await p.bearer('PUT', '/dashboard/api/webhook-url', {
      webhookUrl: 'http://localhost:3000/api/webhooks/kasir',
    });
    assert.equal(res.status, 200);
  });

  // A sandbox lets anyone sign up; its webhooks may reach loopback, never the network around it.
  const refused: Array<[string, string, RegExp]> = [
    [
      'the metadata address 169.254.169.254',
      'http://169.254.169.254/latest/meta-data',
      /169\.254\.169\.254, a linkLocal address; webhooks only go to public addresses or, in sandbox mode, loopback ones/,
    ],
    ['an IPv6 link-local address', 'http://[fe80::1]/hook', /fe80::1, a linkLocal address/],
    [
      'a name resolving to the AWS IPv6 metadata address',
      'http://metadata.example/',
      /fd00:ec2::254, a uniqueLocal address/,
    ],
    ['a private address', 'http://10.0.0.7/hook', /10\.0\.0\.7, a private address/],
  ];
  for (const [what, url, message] of refused) {
    it(`refuses ${what} with a 400`, async () => {
      p.deps.resolveHost = resolverOf({ 'metadata.example': ['fd00:ec2::254'] });
      const res = await p.bearer('PUT', '/dashboard/api/webhook-url', { webhookUrl: url });
      assert.equal(res.status, 400);
      assert.match((await errorOf(res)).message, message);
    });
  }

  it('accepts a loopback literal, and a name that does not resolve yet (checked again at each send)', async () => {
    p.deps.resolveHost = resolverOf({});
    for (const url of ['http://127.0.0.1:3000/hook', 'http://[::1]:3000/hook', 'https://not-yet.example/hook']) {
      assert.equal((await p.bearer('PUT', '/dashboard/api/webhook-url', { webhookUrl: url })).status, 200, url);
    }
  });
});

describe('sending in sandbox mode', () => {
  let p: TestProvider;
  let received = 0;
  const server = createServer((req, res) => {
    received++;
    req.resume();
    res.writeHead(204).end();
  });
  let port: number;
  before(async () => {
    p = await createTestProvider();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    server.closeAllConnections();
    server.close();
    await p.close();
  });

  async function attemptTo(url: string) {
    const merchant = await p.deps.db
      .selectFrom('merchants')
      .select('id')
      .where('client_id', '=', p.creds.clientId)
      .executeTakeFirstOrThrow();
    await p.deps.db.updateTable('merchants').set({ webhook_url: url }).where('id', '=', merchant.id).execute();
    const id = await p.deps.db.transaction().execute((trx) =>
      enqueueDepositWebhook(
        trx,
        {
          type: 'deposit.completed',
          merchantId: merchant.id,
          depositId: crypto.randomUUID(),
          reference: null,
          status: 'completed',
          data: {},
        },
        p.deps.now(),
      ),
    );
    const stop = startWebhookDispatcher(p.deps, { pollIntervalMs: 20, scheduleMs: [60_000], timeoutMs: 1000 });
    try {
      for (let i = 0; i < 200; i++) {
        const attempt = await p.deps.db
          .selectFrom('webhook_attempts')
          .selectAll()
          .where('delivery_id', '=', id)
          .executeTakeFirst();
        if (attempt) return attempt;
        await new Promise((r) => setTimeout(r, 10));
      }
      assert.fail('no attempt was made');
    } finally {
      await stop();
    }
  }

  it('delivers to loopback', async () => {
    const attempt = await attemptTo(`http://127.0.0.1:${port}/hook`);
    assert.equal(attempt.response_status, 204);
    assert.equal(received, 1);
  });

  it('refuses a name that resolves to the metadata address at send time: no request is made', async () => {
    p.deps.resolveHost = resolverOf({ 'hooks.shop.example': ['169.254.169.254'] });
    const attempt = await attemptTo(`http://hooks.shop.example:${port}/hook`);
    assert.match(attempt.error ?? '', /169\.254\.169\.254, a linkLocal address/);
    assert.equal(attempt.response_status, null);
  });

  it('refuses a link-local literal stored before the check existed', async () => {
    const attempt = await attemptTo('http://169.254.169.254/latest/meta-data');
    assert.match(attempt.error ?? '', /linkLocal/);
    assert.equal(received, 1);
  });
});

describe('where the sandbox listens', () => {
  it('on loopback by default; PROVIDER_HOST (or host) for all interfaces', async () => {
    const { resolveProviderConfig } = await import('../../server/provider/instance/config');
    assert.equal(resolveProviderConfig({ env: {}, dataDir: tmpdir() }).host, '127.0.0.1');
    assert.equal(resolveProviderConfig({ env: { PROVIDER_HOST: '0.0.0.0' }, dataDir: tmpdir() }).host, '0.0.0.0');
  });
});

describe('sending outside sandbox mode', () => {
  let p: TestProvider;
  let received = 0;
  const server = createServer((req, res) => {
    received++;
    req.resume();
    res.writeHead(204).end();
  });
  let port: number;
  before(async () => {
    p = await createTestProvider({ sandbox: false });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    server.closeAllConnections();
    server.close();
    await p.close();
  });

  /** Sends one webhook to `url` (stored as is, as a URL saved before the host was re-pointed) and returns its attempt. */
  async function attemptTo(url: string) {
    const merchant = await p.deps.db
      .selectFrom('merchants')
      .select('id')
      .where('client_id', '=', p.creds.clientId)
      .executeTakeFirstOrThrow();
    await p.deps.db.updateTable('merchants').set({ webhook_url: url }).where('id', '=', merchant.id).execute();
    const id = await p.deps.db.transaction().execute((trx) =>
      enqueueDepositWebhook(
        trx,
        {
          type: 'deposit.completed',
          merchantId: merchant.id,
          depositId: crypto.randomUUID(),
          reference: null,
          status: 'completed',
          data: {},
        },
        p.deps.now(),
      ),
    );
    const stop = startWebhookDispatcher(p.deps, { pollIntervalMs: 20, scheduleMs: [60_000], timeoutMs: 1000 });
    try {
      for (let i = 0; i < 200; i++) {
        const attempt = await p.deps.db
          .selectFrom('webhook_attempts')
          .selectAll()
          .where('delivery_id', '=', id)
          .executeTakeFirst();
        if (attempt) return attempt;
        await new Promise((r) => setTimeout(r, 10));
      }
      assert.fail('no attempt was made');
    } finally {
      await stop();
    }
  }

  it("refuses a host re-pointed at the service's machine after the URL was saved (DNS rebinding): no request is made", async () => {
    // The name was public when saved; at send time it resolves to the loopback address the receiver listens on.
    p.deps.resolveHost = resolverOf({ 'hooks.shop.example': ['127.0.0.1'] });
    const attempt = await attemptTo(`http://hooks.shop.example:${port}/hook`);
    assert.match(attempt.error ?? '', /hooks\.shop\.example resolves to 127\.0\.0\.1, a loopback address/);
    assert.equal(attempt.response_status, null);
    assert.equal(received, 0);
  });

  it('refuses an IP literal of a private address', async () => {
    const attempt = await attemptTo(`http://127.0.0.1:${port}/hook`);
    assert.match(attempt.error ?? '', /127\.0\.0\.1, a loopback address/);
    assert.equal(received, 0);
  });
});
