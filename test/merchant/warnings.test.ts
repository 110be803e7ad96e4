// A merchant sees every failure at the default log level (docs/design.md, "Seeing and testing an integration"): a shop
// that passes no logger runs in its own process against a real sandbox, and its terminal (stdout) is read. Each mistake
// a newcomer makes gives one line naming the cause and the setting or URL to fix, once per cause and minute, never a
// secret; and the shopper's message is true.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Checkout } from '@kasir/checkout';
import type { KasirApiOptions } from '../../server/merchant/config';
import { routeWebhooksTo, startUpstream, waitFor, type Upstream } from './support';

const SHOP = fileURLToPath(new URL('./fixtures/shop-default-logger.ts', import.meta.url));

interface Shop {
  url: string;
  output: () => string;
  lines: (pattern: RegExp) => string[];
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();

/** The shop's process with these options and no logger; KASIR_LOG_LEVEL unset, as a newcomer has it. */
async function startShop(options: Partial<KasirApiOptions>, env: Record<string, string> = {}): Promise<Shop> {
  const childEnv: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('KASIR_')) childEnv[key] = value;
  Object.assign(childEnv, env, { KASIR_TEST_OPTIONS: JSON.stringify(options) });
  const child = spawn(process.execPath, ['--import', 'tsx', SHOP], {
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const port = await waitFor(() => {
    if (child.exitCode !== null) throw new Error(`the shop exited: ${stderr}`);
    return /listening (\d+)/.exec(stderr)?.[1];
  }, 30_000);
  return {
    url: `http://127.0.0.1:${port}`,
    output: () => stdout + stderr,
    lines: (pattern) => (stdout + stderr).split('\n').filter((line) => pattern.test(line)),
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      running.delete(child);
    },
  };
}

/** The first line of the shop's output matching `pattern`, waited for. */
async function lineOf(shop: Shop, pattern: RegExp, timeoutMs = 8000): Promise<string> {
  return waitFor(() => shop.lines(pattern)[0], timeoutMs);
}

async function post(url: string, body?: unknown) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as { message: string; data?: Checkout } };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
      .once('error', reject)
      .listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
  });
}

/** A checkout paid through the shop's sandbox route: the sandbox then sends the completion webhook to the shop. */
async function payThrough(shop: Shop) {
  const created = await post(`${shop.url}/api/checkouts`, { amount: '150000', currency: 'IDR' });
  assert.equal(created.status, 201, created.json.message);
  const id = created.json.data!.id;
  const chosen = await post(`${shop.url}/api/checkouts/${id}/deposit`, { method: 'BCA_VA' });
  assert.equal(chosen.status, 201, chosen.json.message);
  const paid = await post(`${shop.url}/api/sandbox/checkouts/${id}/pay`);
  assert.ok(paid.status < 300, paid.json.message);
  return id;
}

describe('the merchant backend warns at the default log level', () => {
  let up: Upstream;
  before(async () => {
    up = await startUpstream();
  });
  after(async () => {
    await Promise.all(
      [...running].map(
        (child) =>
          new Promise((r) => {
            child.once('exit', r);
            child.kill('SIGTERM');
          }),
      ),
    );
    await up.close();
  });

  it("a wrong client secret: one line with the status, the service's message and the settings to check; the shopper is told nothing untrue", async () => {
    const wrong = `sk_test_${randomBytes(12).toString('hex')}`;
    const shop = await startShop(up.config({ clientSecret: wrong }));
    try {
      const first = await post(`${shop.url}/api/checkouts`, { amount: '150000', currency: 'IDR' });
      assert.equal(first.status, 502);
      assert.doesNotMatch(first.json.message, /notified/, "the shop was told nothing by the browser's request alone");
      const line = await lineOf(shop, /refused the shop's request/);
      assert.match(line, /401/);
      assert.match(line, /signature/i, "the service's own message");
      assert.match(line, /KASIR_CLIENT_ID and KASIR_CLIENT_SECRET/);
      assert.match(line, /"level":40|WARN/i);
      // Once per cause and minute.
      await post(`${shop.url}/api/checkouts`, { amount: '150000', currency: 'IDR' });
      await new Promise((r) => setTimeout(r, 600));
      assert.equal(shop.lines(/refused the shop's request/).length, 1, shop.output());
      assert.ok(
        !shop.output().includes(wrong) && !shop.output().includes(up.provider.credentials.clientSecret),
        'a secret in the log',
      );
    } finally {
      await shop.stop();
    }
  });

  it('a stopped payment service: one line naming its URL and KASIR_BASE_URL; the shopper gets 503', async () => {
    const port = await freePort();
    const shop = await startShop(
      up.config({ baseUrl: `http://127.0.0.1:${port}`, checkoutUrl: `http://127.0.0.1:${port}/checkout` }),
    );
    try {
      const res = await post(`${shop.url}/api/checkouts`, { amount: '150000', currency: 'IDR' });
      assert.equal(res.status, 503);
      const line = await lineOf(shop, /could not be reached/);
      assert.ok(line.includes(`http://127.0.0.1:${port}`), line);
      assert.match(line, /KASIR_BASE_URL/);
    } finally {
      await shop.stop();
    }
  });

  it('a wrong webhook secret: the refused delivery is one line naming the signature check and KASIR_WEBHOOK_SECRET', async () => {
    const other = `whsec_${randomBytes(24).toString('base64')}`;
    const shop = await startShop(up.config({ webhookSecret: other }));
    try {
      await routeWebhooksTo(up, shop.url);
      await payThrough(shop);
      const line = await lineOf(shop, /webhook refused/, 15_000);
      assert.match(line, /signature/);
      assert.match(line, /KASIR_WEBHOOK_SECRET/);
      assert.ok(!line.includes(other) && !line.includes(up.provider.credentials.webhookSecret), 'a secret in the log');
    } finally {
      await shop.stop();
    }
  });

  it('a hook that throws: one line naming the hook and its error', async () => {
    const shop = await startShop(up.config(), { KASIR_TEST_HOOK_THROWS: '1' });
    try {
      await routeWebhooksTo(up, shop.url);
      await payThrough(shop);
      const line = await lineOf(shop, /onDepositCompleted threw/, 15_000);
      assert.match(line, /the warehouse system is offline/);
    } finally {
      await shop.stop();
    }
  });

  it('settings missing at the first request: the shopper gets 503, the log names each variable', async () => {
    const shop = await startShop({ sandbox: true }); // client amounts: taken in sandbox mode only
    try {
      const res = await post(`${shop.url}/api/checkouts`, { amount: '150000', currency: 'IDR' });
      assert.equal(res.status, 503);
      assert.match(res.json.message, /settings are incomplete/);
      const line = await lineOf(shop, /missing/);
      for (const name of [
        'KASIR_BASE_URL',
        'KASIR_CLIENT_ID',
        'KASIR_CLIENT_SECRET',
        'KASIR_ACCESS_TOKEN',
        'KASIR_WEBHOOK_SECRET',
      ])
        assert.match(line, new RegExp(name));
    } finally {
      await shop.stop();
    }
  });
});
