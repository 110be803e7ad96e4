// `kasir.check()` and `kasir-merchant check` against a real sandbox: a good configuration passes every check, a broken
// one fails each broken check with a line naming the setting to fix, and the command exits 1.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createKasirApi } from '../../server/merchant/api';
import type { CheckReport } from '../../server/merchant/check';
import { createLogger } from '../../server/merchant/index';
import { call, runKasirMerchant, snapStandIn, startUpstream, type Upstream } from './support';

const NAMES = [
  'service',
  'credentials',
  'accessToken',
  'webhookSecret',
  'allowedOrigins',
  'redis',
  'sandbox',
  'orderSecret',
  'checkout',
  'settings',
  'metrics',
  'state',
];

/** `kasir-merchant check` with only `env` (no KASIR_* of this process). */
const runCheck = (env: Record<string, string>, args: string[] = []) => runKasirMerchant(['check', ...args], env);

const byName = (report: CheckReport) => Object.fromEntries(report.checks.map((check) => [check.name, check]));

describe('the configuration check', () => {
  let up: Upstream;
  before(async () => {
    up = await startUpstream();
  });
  after(() => up.close());

  it('kasir.check(): a good configuration passes every check, one result per check', async () => {
    const kasir = createKasirApi(up.config({ allowedOrigins: ['https://shop.example'] }));
    try {
      const report = await kasir.check();
      assert.deepEqual(
        report.checks.map((check) => check.name),
        NAMES,
      );
      assert.equal(report.ok, true, JSON.stringify(report, null, 2));
      assert.match(byName(report).sandbox.message, /on, against a sandbox on this machine/);
    } finally {
      await kasir.close();
    }
  });

  it('kasir.check(): each broken setting fails its check, naming the setting', async () => {
    // A service that looks remote (the calls are carried to the local sandbox), with sandbox mode left on.
    const remote = 'https://payments.example';
    const kasir = createKasirApi(
      up.config({
        baseUrl: remote,
        clientSecret: 'not-the-secret',
        accessToken: 'not-a-token',
        webhookSecret: '',
        redisUrl: 'redis://127.0.0.1:1',
        fetch: (input, init) =>
          fetch(String(input instanceof Request ? input.url : input).replace(remote, up.provider.url), init),
      }),
    );
    try {
      const report = await kasir.check();
      const checks = byName(report);
      assert.equal(report.ok, false);
      assert.equal(checks.service.ok, true, checks.service.message);
      assert.equal(checks.allowedOrigins.ok, true);
      for (const [name, setting] of [
        ['credentials', 'KASIR_CLIENT_SECRET'],
        ['accessToken', 'KASIR_ACCESS_TOKEN'],
        ['webhookSecret', 'KASIR_WEBHOOK_SECRET'],
        ['redis', 'REDIS_URL'],
        ['sandbox', 'KASIR_SANDBOX'],
      ]) {
        assert.equal(checks[name].ok, false, `${name}: ${checks[name].message}`);
        assert.ok(checks[name].message.includes(setting), `${name} names ${setting}: ${checks[name].message}`);
      }
      assert.match(checks.sandbox.message, /payments\.example/);
    } finally {
      await kasir.close();
    }
  });

  it("kasir.check() signs with the shop's own signRequest: every check passes against a service that takes only its scheme", async () => {
    const service = snapStandIn();
    const kasir = createKasirApi({
      ...service.options,
      signRequest: service.signer,
      orderSecret: 'check-order-secret-0123456789abcdef-0123456789',
    });
    try {
      const report = await kasir.check();
      assert.equal(report.ok, true, JSON.stringify(report, null, 2));
      // The signed list and the bearer call both carried the service's own signature (its token signed in).
      assert.deepEqual([...service.accepted].sort(), [
        'GET /v1/deposit/payment-method',
        'GET /v1/deposit?limit=1',
        'POST /v1/checkout',
      ]);
    } finally {
      await kasir.close();
    }
    // Signed the default way, the same service refuses both calls, and the failing line names the signer.
    const unsigned = createKasirApi(service.options);
    try {
      const checks = byName(await unsigned.check());
      assert.equal(checks.credentials.ok, false);
      assert.match(checks.credentials.message, /KASIR_CLIENT_SECRET .*signRequest/);
      assert.equal(checks.accessToken.ok, false);
    } finally {
      await unsigned.close();
    }
  });

  it('warns once, at its first request, when sandbox mode is on against a service not on this machine', async () => {
    const lines: string[] = [];
    const logger = createLogger('kasir-merchant', {
      level: 'warn',
      destination: { write: (line: string) => void lines.push(line) },
    });
    const remote = 'https://payments.example';
    const live = createKasirApi(
      up.config({
        baseUrl: remote,
        logger,
        fetch: (input, init) => fetch(String(input).replace(remote, up.provider.url), init),
      }),
    );
    const local = createKasirApi(up.config({ logger }));
    try {
      assert.equal(lines.length, 0, 'nothing before the first request');
      for (let i = 0; i < 3; i++) await call(live, 'GET', '/checkouts/chk_unknown');
      await call(local, 'GET', '/checkouts/chk_unknown');
      const warned = lines.filter((line) => line.includes('KASIR_SANDBOX'));
      assert.equal(warned.length, 1, lines.join('\n'));
      assert.match(warned[0], /sandbox mode is on against a payment service that is not on this machine/);
    } finally {
      await live.close();
      await local.close();
    }
  });

  it('kasir-merchant check: one line per check and exit 0 on a good configuration', async () => {
    const c = up.provider.credentials;
    const good = await runCheck({
      KASIR_BASE_URL: c.baseUrl,
      KASIR_CLIENT_ID: c.clientId,
      KASIR_CLIENT_SECRET: c.clientSecret,
      KASIR_ACCESS_TOKEN: c.accessToken,
      KASIR_WEBHOOK_SECRET: c.webhookSecret,
      KASIR_ALLOWED_ORIGINS: 'https://shop.example',
      KASIR_SANDBOX: 'true',
    });
    assert.equal(good.code, 0, good.stdout + good.stderr);
    const lines = good.stdout.trim().split('\n');
    for (const name of NAMES)
      assert.equal(
        lines.filter((line) => new RegExp(`^ok\\s+${name}\\s`).test(line)).length,
        1,
        `${name}:\n${good.stdout}`,
      );
  });

  it('kasir-merchant check: a broken configuration exits 1, each failing line naming its setting', async () => {
    const c = up.provider.credentials;
    const broken = await runCheck({
      KASIR_BASE_URL: c.baseUrl,
      KASIR_CLIENT_ID: 'nobody',
      KASIR_CLIENT_SECRET: c.clientSecret,
      KASIR_WEBHOOK_SECRET: 'secret',
      KASIR_ALLOWED_ORIGINS: 'https://shop.example/checkout',
      KASIR_CURRENCIES: 'rupiah',
    });
    assert.equal(broken.code, 1, broken.stdout + broken.stderr);
    const line = (name: string) =>
      broken.stdout.split('\n').find((l) => new RegExp(`^(ok|FAIL)\\s+${name}\\s`).test(l)) ?? '';
    assert.match(line('service'), /^ok/);
    for (const [name, setting] of [
      ['credentials', 'KASIR_CLIENT_ID'],
      ['accessToken', 'KASIR_ACCESS_TOKEN'],
      ['webhookSecret', 'KASIR_WEBHOOK_SECRET'],
      ['allowedOrigins', 'KASIR_ALLOWED_ORIGINS'],
      ['settings', 'KASIR_CURRENCIES'],
      // Live mode without an order secret: a page cannot open an order (docs/security.md).
      ['orderSecret', 'KASIR_ORDER_SECRET'],
    ]) {
      assert.match(line(name), /^FAIL/, `${name}:\n${broken.stdout}`);
      assert.ok(line(name).includes(setting), `${name} names ${setting}: ${line(name)}`);
    }
    assert.match(line('allowedOrigins'), /"https:\/\/shop\.example\/checkout" is not an origin/);

    const down = await runCheck(
      {
        KASIR_BASE_URL: 'http://127.0.0.1:1',
        KASIR_CLIENT_ID: 'a',
        KASIR_CLIENT_SECRET: 'b',
        KASIR_ACCESS_TOKEN: 'c',
        KASIR_WEBHOOK_SECRET: c.webhookSecret,
      },
      ['--json'],
    );
    assert.equal(down.code, 1);
    const report = JSON.parse(down.stdout) as CheckReport;
    assert.equal(byName(report).service.ok, false);
    assert.match(byName(report).service.message, /nothing answers at http:\/\/127\.0\.0\.1:1 .*KASIR_BASE_URL/);
  });
});
