// One configuration path: createKasirApi reads the same environment as kasir-merchant (every KASIR_* setting and
// REDIS_URL), options winning, each wrong variable named; and it still reads no secret before its first request.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { createKasirApi } from '../../server/merchant/api';
import { ConfigError, loadMerchantConfig } from '../../server/merchant/config';
import { call, runKasirMerchant, startUpstream, type Upstream } from './support';

/** createKasirApi with the defaults, made in a directory of its own: its default data dir (./.kasir) lands there, not in the repository. */
function inScratchDir<T>(make: () => T): T {
  const cwd = process.cwd();
  process.chdir(mkdtempSync(join(tmpdir(), 'kasir-default-dir-')));
  try {
    return make();
  } finally {
    process.chdir(cwd);
  }
}

const redisUrl = process.env.KASIR_TEST_REDIS_URL;

/** Sets `vars` in process.env for one test; afterEach puts back what was there. */
const saved = new Map<string, string | undefined>();
function setEnv(vars: Record<string, string>) {
  for (const [key, value] of Object.entries(vars)) {
    if (!saved.has(key)) saved.set(key, process.env[key]);
    process.env[key] = value;
  }
}
afterEach(() => {
  for (const [key, value] of saved) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  saved.clear();
});

describe('createKasirApi reads the kasir-merchant environment', () => {
  let up: Upstream;
  before(async () => {
    up = await startUpstream();
  });
  after(() => up.close());

  it('takes each setting from its variable when no option is passed, the option winning', async () => {
    setEnv({
      KASIR_ALLOWED_ORIGINS: 'https://shop.example, https://www.shop.example',
      KASIR_FEES_PAID_BY: 'shopper',
      KASIR_SANDBOX: 'true',
      KASIR_CURRENCIES: 'idr,usd',
      KASIR_CHECKOUT_RATE_LIMIT: '7',
      KASIR_TRANSFER_RATE_LIMIT: '3',
      KASIR_STATUS_REFRESH_MS: '500',
      KASIR_WEBHOOK_TOLERANCE_SECONDS: '60',
      KASIR_TRUST_PROXY: 'yes',
      KASIR_REDIS_PREFIX: 'shop1:',
      KASIR_REDIS_TIMEOUT_MS: '250',
      KASIR_SSE_MAX_PER_ADDRESS: '4',
      KASIR_SSE_MAX_TOTAL: '400',
    });
    const { sandbox: _sandbox, ...connection } = up.config();
    const kasir = createKasirApi(connection);
    try {
      const c = kasir.config;
      assert.deepEqual(c.allowedOrigins, ['https://shop.example', 'https://www.shop.example']);
      assert.deepEqual(
        [
          c.feesPaidBy,
          c.sandbox,
          c.currencies,
          c.checkoutRateLimit,
          c.transferRateLimit,
          c.statusRefreshMs,
          c.webhookToleranceSeconds,
          c.trustProxy,
          c.redisPrefix,
          c.redisTimeoutMs,
          c.sseMaxPerAddress,
          c.sseMaxTotal,
        ],
        ['shopper', true, ['IDR', 'USD'], 7, 3, 500, 60, true, 'shop1:', 250, 4, 400],
      );
      // KASIR_SANDBOX turned the sandbox routes on: a checkout is paid through /sandbox.
      const checkout = await kasir.createCheckout({ amount: '50000', currency: 'IDR' });
      await call(kasir, 'POST', `/checkouts/${checkout.id}/deposit`, { method: 'QRIS' });
      const paid = await call(
        kasir,
        'POST',
        `/sandbox/checkouts/${checkout.id}/pay`,
        {},
        { Origin: 'https://shop.example' },
      );
      assert.equal(paid.status, 200, JSON.stringify(paid.json));
      assert.equal(paid.res.headers.get('access-control-allow-origin'), 'https://shop.example');
    } finally {
      await kasir.close();
    }
    const passed = createKasirApi({ ...connection, sandbox: false, currencies: ['USD'], allowedOrigins: [] });
    assert.deepEqual(
      [passed.config.sandbox, passed.config.currencies, passed.config.allowedOrigins],
      [false, ['USD'], []],
    );
    await passed.close();
  });

  it('reads every variable docs/configuration.md documents for it: each one set changes its setting', async () => {
    const doc = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
    const section = doc.slice(doc.indexOf('### The connection to the payment service'), doc.indexOf('### Hooks'));
    // Table rows: | `option` | `VARIABLE` ... |
    const rows = [...section.matchAll(/^\| `(\w+)` \| `([A-Z_]+)`/gm)].map(([, option, variable]) => ({
      option,
      variable,
    }));
    assert.ok(rows.length >= 20, `the tables were read: ${rows.length} rows`);
    const dataDir = mkdtempSync(join(tmpdir(), 'kasir-env-'));
    const samples: Record<string, string> = {
      baseUrl: 'https://api.service.example',
      checkoutUrl: 'https://pay.service.example',
      clientId: 'id-1',
      clientSecret: 'secret-1',
      accessToken: 'token-1',
      webhookSecret: 'whsec_c2VjcmV0',
      allowedOrigins: 'https://a.example',
      feesPaidBy: 'shopper',
      sandbox: 'true',
      allowClientAmounts: 'true',
      returnUrl: 'https://shop.example/orders/1',
      orderSecret: 'env-order-secret-0123456789abcdef-0123456789',
      currencies: 'USD',
      trustProxy: 'true',
      redisUrl: 'redis://127.0.0.1:1',
      redisPrefix: 'other:',
      dataDir,
      metrics: 'true',
    };
    const connection = {
      KASIR_BASE_URL: 'https://x.example',
      KASIR_CLIENT_ID: 'a',
      KASIR_CLIENT_SECRET: 'b',
      KASIR_ACCESS_TOKEN: 'c',
      KASIR_WEBHOOK_SECRET: 'whsec_eA==',
    };
    try {
      for (const { option, variable } of rows.filter((row) => row.option !== 'logger')) {
        setEnv(connection);
        const before = inScratchDir(() => createKasirApi());
        const unset = (before.config as unknown as Record<string, unknown>)[option];
        await before.close();
        setEnv({ [variable]: samples[option] ?? '7' });
        const after = inScratchDir(() => createKasirApi());
        try {
          assert.notDeepEqual(
            (after.config as unknown as Record<string, unknown>)[option],
            unset,
            `${variable} is read (${option})`,
          );
        } finally {
          await after.close();
          process.env[variable] = '';
        }
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('names a wrong variable in its ConfigError, and a build with none of them set passes', async () => {
    setEnv({
      KASIR_CHECKOUT_RATE_LIMIT: 'many',
      KASIR_SANDBOX: 'perhaps',
      KASIR_CURRENCIES: 'rupiah',
      KASIR_ALLOWED_ORIGINS: 'https://shop.example/pay',
    });
    assert.throws(
      () => createKasirApi(),
      (err: Error) => {
        assert.ok(err instanceof ConfigError);
        for (const name of ['KASIR_CHECKOUT_RATE_LIMIT', 'KASIR_SANDBOX', 'KASIR_CURRENCIES', 'KASIR_ALLOWED_ORIGINS'])
          assert.ok(err.message.includes(name), `${name}: ${err.message}`);
        return true;
      },
    );
    for (const key of Object.keys(process.env))
      if (key.startsWith('KASIR_') || key === 'REDIS_URL') setEnv({ [key]: '' });
    const kasir = inScratchDir(() => createKasirApi()); // what a Next.js build does: nothing set, nothing read yet
    await kasir.close();
  });

  it('refuses a base URL ending in /v1 (every path starts with it: the calls would go to /v1/v1/...), naming the fix', () => {
    const connection = {
      KASIR_CLIENT_ID: 'a',
      KASIR_CLIENT_SECRET: 'b',
      KASIR_ACCESS_TOKEN: 'c',
      KASIR_WEBHOOK_SECRET: 'whsec_c2VjcmV0c2VjcmV0',
    };
    for (const wrong of ['http://localhost:4010/v1', 'https://pay.example/api/v1/'])
      assert.throws(
        () => loadMerchantConfig({ ...connection, KASIR_BASE_URL: wrong }),
        (err: Error) =>
          err instanceof ConfigError && /KASIR_BASE_URL.*without \/v1 \(its paths start with \/v1\)/.test(err.message),
        wrong,
      );
    for (const right of ['http://localhost:4010', 'https://pay.example/api', 'https://v1.pay.example'])
      assert.equal(loadMerchantConfig({ ...connection, KASIR_BASE_URL: right }).baseUrl, right);
  });

  it('gives the same configuration and the same check through each entry: the command, createKasirApi, kasir.check()', async () => {
    const c = up.provider.credentials;
    const env = {
      KASIR_BASE_URL: c.baseUrl,
      KASIR_CLIENT_ID: c.clientId,
      KASIR_CLIENT_SECRET: c.clientSecret,
      KASIR_ACCESS_TOKEN: c.accessToken,
      KASIR_WEBHOOK_SECRET: c.webhookSecret,
      KASIR_ALLOWED_ORIGINS: 'https://shop.example, https://www.shop.example',
      KASIR_FEES_PAID_BY: 'va:Shopper, ewallet:shopper',
      KASIR_SANDBOX: 'Yes',
      KASIR_CURRENCIES: 'idr,usd',
      KASIR_RETURN_URL: 'https://shop.example/orders',
      KASIR_STATUS_REFRESH_MS: '1500',
      KASIR_TRUST_PROXY: '1',
      KASIR_REDIS_PREFIX: 'same:',
      KASIR_DATA_DIR: mkdtempSync(join(tmpdir(), 'kasir-same-')),
    };
    for (const key of Object.keys(process.env))
      if (key.startsWith('KASIR_') || key === 'REDIS_URL') setEnv({ [key]: '' });
    setEnv(env);
    const command = loadMerchantConfig(env);
    const kasir = inScratchDir(() => createKasirApi());
    try {
      const names = Object.keys(kasir.config) as Array<keyof typeof kasir.config>;
      assert.ok(names.length >= 24, names.join());
      for (const name of names) assert.deepEqual(command[name], kasir.config[name], name);
      assert.deepEqual(kasir.config.feesPaidBy, { va: 'shopper', ewallet: 'shopper' });
      // The check: kasir.check() and `kasir-merchant check --json` answer the same report.
      const fromCode = await kasir.check();
      const fromCommand = await runKasirMerchant(['check', '--json'], env);
      assert.equal(fromCommand.code, 0, fromCommand.stdout + fromCommand.stderr);
      assert.deepEqual(JSON.parse(fromCommand.stdout), fromCode);
      assert.equal(fromCode.ok, true, JSON.stringify(fromCode, null, 2));
    } finally {
      await kasir.close();
      rmSync(env.KASIR_DATA_DIR, { recursive: true, force: true });
    }
  });

  it(
    'with REDIS_URL in the environment, shares its state with a second copy',
    { skip: !redisUrl && 'KASIR_TEST_REDIS_URL is not set (run through test/support/with-redis.sh)' },
    async () => {
      setEnv({ REDIS_URL: redisUrl!, KASIR_REDIS_PREFIX: `env-test-${Date.now()}:` });
      const first = createKasirApi(up.config());
      const second = createKasirApi(up.config());
      try {
        assert.equal(first.config.redisUrl, redisUrl);
        await first.ready();
        const checkout = await first.createCheckout({ amount: '30000', currency: 'IDR', orderId: 'order-env-1' });
        // The second copy knows the first one's order (from Redis), and /readyz asks Redis.
        assert.equal((await second.service.savedCheckout(checkout.id))?.orderId, 'order-env-1');
        assert.deepEqual(
          (await second.listDeposits()).filter((r) => r.depositId === checkout.id),
          [],
        ); // no method chosen yet: no deposit
        await call(second, 'POST', `/checkouts/${checkout.id}/deposit`, { method: 'QRIS' });
        assert.equal((await first.listDeposits({ limit: 1 }))[0].orderId, 'order-env-1');
        // kasir-merchant deposits, from the same environment, finds the order in Redis too.
        const c = up.provider.credentials;
        const csv = await runKasirMerchant(['deposits', '--csv', '--limit', '1'], {
          KASIR_BASE_URL: c.baseUrl,
          KASIR_CLIENT_ID: c.clientId,
          KASIR_CLIENT_SECRET: c.clientSecret,
          REDIS_URL: redisUrl!,
          KASIR_REDIS_PREFIX: process.env.KASIR_REDIS_PREFIX!,
        });
        assert.equal(csv.code, 0, csv.stderr);
        assert.match(csv.stdout.split('\r\n')[1], new RegExp(`^${checkout.id},order-env-1,pending,`));
      } finally {
        await first.close();
        await second.close();
      }
    },
  );
});
