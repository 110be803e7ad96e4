// @kasir/merchant's public surface (docs/design.md, "Packages"): createKasirApi's options checked at once, naming each
// problem; its fetch handler; server-created checkouts; onDepositExpired; verifyWebhook; the kasir-merchant command.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { webhookHeaders } from '../../server/common/standard-webhooks';
import {
  ConfigError,
  createKasirApi,
  verifyWebhook,
  WebhookVerificationError,
  type CompletedDeposit,
  type ExpiredDeposit,
  type KasirApiOptions,
} from '../../server/merchant/index';
import type { Checkout, Deposit } from '@kasir/checkout';
import { merchantStateFile } from '../../server/merchant/config';
import { call, merchantApp, startUpstream, type Envelope, type Upstream } from './support';

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

const VALID: KasirApiOptions = {
  baseUrl: 'http://localhost:4010',
  clientId: 'id',
  clientSecret: 'secret',
  accessToken: 'token',
  webhookSecret: 'whsec_c2VjcmV0c2VjcmV0',
  dataDir: false,
};

/** The ConfigError createKasirApi throws for these options. */
function configError(options: unknown): ConfigError {
  try {
    createKasirApi(options as KasirApiOptions);
  } catch (err) {
    assert.ok(err instanceof ConfigError, `expected a ConfigError, got ${err}`);
    return err;
  }
  assert.fail('createKasirApi accepted bad options');
}

describe('createKasirApi options', () => {
  it('reads no setting when created: a missing connection names every option and its variable at the first use', () => {
    const saved = { ...process.env };
    for (const key of Object.keys(process.env)) if (key.startsWith('KASIR_')) delete process.env[key];
    try {
      const api = inScratchDir(() => createKasirApi({}));
      assert.throws(
        () => api.config.baseUrl,
        (err: Error) => {
          assert.ok(err instanceof ConfigError);
          for (const name of ['baseUrl', 'clientId', 'clientSecret', 'accessToken', 'webhookSecret'])
            assert.match(err.message, new RegExp(name));
          for (const name of [
            'KASIR_BASE_URL',
            'KASIR_CLIENT_ID',
            'KASIR_CLIENT_SECRET',
            'KASIR_ACCESS_TOKEN',
            'KASIR_WEBHOOK_SECRET',
          ])
            assert.match(err.message, new RegExp(name));
          return true;
        },
      );
      // Set afterwards (a server started after the build), they are read at the first use.
      Object.assign(process.env, {
        KASIR_BASE_URL: 'http://localhost:4010',
        KASIR_CLIENT_ID: 'id',
        KASIR_CLIENT_SECRET: 'secret',
        KASIR_ACCESS_TOKEN: 'token',
        KASIR_WEBHOOK_SECRET: 'whsec_c2VjcmV0c2VjcmV0',
      });
      assert.equal(api.config.checkoutUrl, 'http://localhost:4010/checkout');
    } finally {
      for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
      Object.assign(process.env, saved);
    }
  });

  it('refuses options that are not an object', () => {
    assert.match(configError('baseUrl').message, /options object/);
  });

  it('refuses an unknown option, naming the nearest known one', () => {
    const { message } = configError({ ...VALID, onDepositComplete: () => {} });
    assert.match(message, /unknown option onDepositComplete \(did you mean onDepositCompleted\?\)/);
    assert.match(configError({ ...VALID, webhookSecert: 'x' }).message, /did you mean webhookSecret\?/);
    assert.doesNotMatch(configError({ ...VALID, colour: 'red' }).message, /did you mean/);
  });

  it('keeps its state file under dataDir/merchant/, apart from a sandbox sharing the data dir; an older file at the top is kept', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kasir-state-'));
    try {
      assert.equal(merchantStateFile(dir), join(dir, 'merchant', 'merchant-state.jsonl'));
      writeFileSync(join(dir, 'merchant-state.jsonl'), '');
      assert.equal(merchantStateFile(dir), join(dir, 'merchant-state.jsonl'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reports every problem at once', () => {
    const { message } = configError({ ...VALID, onDepositComplete: () => {}, baseUrl: 'ftp://x', sandbox: 'yes' });
    assert.match(message, /onDepositComplete/);
    assert.match(message, /baseUrl must be an http\(s\) URL/);
    assert.match(message, /sandbox must be true or false/);
  });

  const wrong: Array<[string, Partial<Record<keyof KasirApiOptions, unknown>>, RegExp]> = [
    ['a baseUrl that is not http(s)', { baseUrl: 'ftp://x' }, /baseUrl must be an http\(s\) URL/],
    ['a checkoutUrl that is not a URL', { checkoutUrl: 'checkout' }, /checkoutUrl must be an http\(s\) URL/],
    ['a webhook secret without whsec_', { webhookSecret: 'plain' }, /webhookSecret must look like whsec_/],
    ['a clientId that is not a string', { clientId: 42 }, /clientId must be a non-empty string/],
    ['an unknown fee policy', { feesPaidBy: 'nobody' }, /feesPaidBy must be merchant or shopper/],
    [
      'an origin with a path',
      { allowedOrigins: ['https://shop.example/x'] },
      /allowedOrigins: "https:\/\/shop.example\/x" is not an origin/,
    ],
    [
      'allowedOrigins as a string',
      { allowedOrigins: 'https://shop.example' },
      /allowedOrigins must be a list of strings/,
    ],
    ['a sandbox flag as a string', { sandbox: 'yes' }, /sandbox must be true or false/],
    [
      'a currency that is not a code',
      { currencies: ['rupiah'] },
      /currencies: "RUPIAH" is not a 3-letter currency code/,
    ],
    ['a rate limit below 1', { checkoutRateLimit: 0 }, /checkoutRateLimit must be an integer >= 1/],
    ['a hook that is not a function', { onDepositCompleted: 'ship it' }, /onDepositCompleted must be a function/],
  ];
  for (const [what, override, message] of wrong) {
    it(`names ${what}`, () => {
      assert.match(configError({ ...VALID, ...override }).message, message);
    });
  }

  it('accepts the required options alone and fills the documented defaults', () => {
    const api = createKasirApi(VALID);
    assert.equal(api.config.checkoutUrl, 'http://localhost:4010/checkout');
    assert.equal(api.config.feesPaidBy, 'merchant');
    assert.equal(api.config.sandbox, false);
    assert.deepEqual(api.config.currencies, ['IDR']);
  });
});

describe('createKasirApi against the sandbox', () => {
  let up: Upstream;
  before(async () => {
    up = await startUpstream();
  });
  after(async () => {
    await up.close();
  });

  it('serves the widget API at its root through a plain fetch handler', async () => {
    const api = createKasirApi({ ...up.config(), fetch: up.countingFetch });
    const res = await api.fetch(
      new Request('http://shop.example/checkouts', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ amount: '25000', currency: 'IDR' }),
      }),
    );
    assert.equal(res.status, 201);
    const { data } = (await res.json()) as { data: { id: string; amount: string; methods: unknown[] } };
    assert.equal(data.amount, '25000');
    assert.ok(data.methods.length > 0);
  });

  it('creates a checkout from the shop server with its order id, handed back on completion', async () => {
    const completed: CompletedDeposit[] = [];
    const api = createKasirApi({
      ...up.config(),
      onDepositCompleted: (e) => {
        completed.push(e);
      },
    });
    const checkout = await api.createCheckout({ amount: '88000', orderId: 'order-17' });
    assert.equal(checkout.amount, '88000');
    assert.equal(checkout.currency, 'IDR');
    await call(api, 'POST', `/checkouts/${checkout.id}/deposit`, { method: 'BCA_VA' });
    const paid = await call<Envelope<Deposit>>(api, 'POST', `/sandbox/checkouts/${checkout.id}/pay`);
    assert.equal(paid.json.data.status, 'completed');
    const deposit = await api.service.client.getDeposit(checkout.id);
    const body = JSON.stringify({
      type: 'deposit.completed',
      orderId: checkout.id,
      depositId: checkout.id,
      reference: '',
      status: 'completed',
      data: deposit,
      timestamp: new Date().toISOString(),
    });
    const res = await call(api, 'POST', '/webhooks/kasir', body, {
      'Content-Type': 'application/json',
      ...webhookHeaders(up.provider.credentials.webhookSecret, `msg_${checkout.id}`, body),
    });
    assert.equal(res.status, 200);
    assert.deepEqual(
      completed.map((e) => [e.checkoutId, e.orderId]),
      [[checkout.id, 'order-17']],
    );
  });

  it('refuses a server order the shop cannot take, as an HTTP 400', async () => {
    const api = createKasirApi(up.config());
    await assert.rejects(
      api.createCheckout({ amount: '-5' }),
      (err: Error & { status?: number }) => err.status === 400 && /amount/.test(err.message),
    );
    await assert.rejects(
      api.createCheckout({ amount: '5000', currency: 'EUR' }),
      (err: Error & { status?: number }) => err.status === 400 && /currency/.test(err.message),
    );
  });

  it('calls onDepositExpired once when an expiry webhook lands', async () => {
    const expired: ExpiredDeposit[] = [];
    const app = merchantApp(up, {
      onDepositExpired: (e) => {
        expired.push(e);
      },
    });
    const id = (await call<Envelope<Checkout>>(app, 'POST', '/api/checkouts', { amount: '31000', currency: 'IDR' }))
      .json.data.id;
    await call(app, 'POST', `/api/checkouts/${id}/deposit`, { method: 'QRIS' });
    await call(app, 'POST', `/api/sandbox/checkouts/${id}/expire`);
    const deposit = await app.service.client.getDeposit(id);
    const body = JSON.stringify({
      type: 'deposit.expired',
      orderId: id,
      depositId: id,
      reference: '',
      status: 'expired',
      data: deposit,
      timestamp: new Date().toISOString(),
    });
    for (const msg of ['msg_a', 'msg_b']) {
      const res = await call(app, 'POST', '/api/webhooks/kasir', body, {
        'Content-Type': 'application/json',
        ...webhookHeaders(up.provider.credentials.webhookSecret, `${msg}_${id}`, body),
      });
      assert.equal(res.status, 200);
    }
    assert.deepEqual(
      expired.map((e) => e.checkoutId),
      [id],
    );
  });
});

describe('verifyWebhook', () => {
  const secret = 'whsec_c2VjcmV0c2VjcmV0c2VjcmV0';
  const body = JSON.stringify({
    type: 'deposit.completed',
    orderId: 'c1',
    depositId: 'c1',
    status: 'completed',
    data: { depositId: 'c1' },
    timestamp: '2026-11-23T00:00:00.000Z',
  });

  it('returns the parsed event of a genuine delivery, synchronously', () => {
    const event = verifyWebhook(secret, webhookHeaders(secret, 'msg_1', body), body);
    assert.equal(event.type, 'deposit.completed');
    assert.equal(event.depositId, 'c1');
  });

  it('accepts Fetch Headers and a Buffer body', () => {
    const headers = new Headers(webhookHeaders(secret, 'msg_2', body));
    assert.equal(verifyWebhook(secret, headers, Buffer.from(body)).orderId, 'c1');
  });

  const refused: Array<[string, () => unknown, string]> = [
    [
      'a changed body',
      () => verifyWebhook(secret, webhookHeaders(secret, 'msg_3', body), body.replace('c1', 'c2')),
      'bad_signature',
    ],
    [
      'another secret',
      () => verifyWebhook('whsec_b3RoZXJvdGhlcm90aGVy', webhookHeaders(secret, 'msg_4', body), body),
      'bad_signature',
    ],
    ['missing headers', () => verifyWebhook(secret, {}, body), 'missing_headers'],
    [
      'a stale delivery',
      () => verifyWebhook(secret, webhookHeaders(secret, 'msg_5', body, new Date(Date.now() - 3_600_000)), body),
      'too_old',
    ],
    [
      'a body that is not an object',
      () => verifyWebhook(secret, webhookHeaders(secret, 'msg_6', '[1]'), '[1]'),
      'bad_body',
    ],
  ];
  for (const [what, attempt, reason] of refused) {
    it(`throws for ${what}`, () => {
      assert.throws(attempt, (err: unknown) => err instanceof WebhookVerificationError && err.reason === reason);
    });
  }
});

describe('kasir-merchant command', () => {
  /** Runs the compiled bin (npm test builds first) until it exits or prints its address. */
  function runBin(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, ['server/merchant/dist/merchant/cli.js'], {
        env: { PATH: process.env.PATH, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      const onData = (chunk: Buffer) => {
        output += chunk;
        if (output.includes('widget API on')) child.kill('SIGTERM');
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      child.once('exit', (code) => {
        clearTimeout(timer);
        resolve({ code, output });
      });
    });
  }

  it('exits 1 with one line naming a missing variable', async () => {
    const { code, output } = await runBin({
      KASIR_BASE_URL: 'http://localhost:4010',
      KASIR_CLIENT_SECRET: 's',
      KASIR_ACCESS_TOKEN: 't',
      KASIR_WEBHOOK_SECRET: 'whsec_c2VjcmV0',
    });
    assert.equal(code, 1);
    assert.match(output, /missing KASIR_CLIENT_ID/);
    assert.equal(output.trim().split('\n').length, 1);
    assert.doesNotMatch(output, /at .*\.js:\d+/);
  });

  it('starts from the environment and says where it listens', async () => {
    const { output } = await runBin({
      ...{
        KASIR_BASE_URL: 'http://localhost:4010',
        KASIR_CLIENT_ID: 'i',
        KASIR_CLIENT_SECRET: 's',
        KASIR_ACCESS_TOKEN: 't',
        KASIR_WEBHOOK_SECRET: 'whsec_c2VjcmV0',
      },
      PORT: '0',
    });
    assert.match(
      output,
      /widget API on http:\/\/localhost:\d+\/api, widget at http:\/\/localhost:\d+\/kasir-checkout.js/,
    );
  });
});
