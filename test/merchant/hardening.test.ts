// The merchant backend made hard to break: an IPv6 client counts per /64 against the
// event-stream cap, and an empty KASIR_LOG_LEVEL is unset (not a crash).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Checkout } from '@kasir/checkout';
import { startMerchant, type RunningMerchant } from '../../server/merchant/server';
import { commandArgs } from '../support/commands';
import { openEvents, startUpstream, waitFor, type Envelope, type Upstream } from './support';

describe('merchant backend: hard to break', () => {
  let up: Upstream;
  before(async () => {
    up = await startUpstream();
  });
  after(async () => {
    await up.close();
  });

  describe('event streams from IPv6 clients', () => {
    let merchant: RunningMerchant;
    let checkoutId: string;
    before(async () => {
      merchant = await startMerchant({
        ...up.config(),
        port: 0,
        sseMaxPerAddress: 2,
        heartbeatMs: 60_000,
        trustProxy: true,
      });
      const post = (path: string, body: unknown) =>
        fetch(`${merchant.url}/api${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      checkoutId = (
        (await (await post('/checkouts', { amount: '62000', currency: 'IDR' })).json()) as Envelope<Checkout>
      ).data.id;
      await post(`/checkouts/${checkoutId}/deposit`, { method: 'QRIS' });
    });
    after(async () => {
      await merchant.stop();
    });

    const at = (ip: string) =>
      openEvents(`${merchant.url}/api/checkouts/${checkoutId}/events`, { 'X-Forwarded-For': ip });

    it('counts every address of one /64 as one client, and another /64 apart', async () => {
      const open = [at('2001:db8:1:2::1'), at('2001:db8:1:2:aaaa:bbbb:cccc:dddd')];
      await waitFor(() => open.every((s) => s.events.length === 1));
      // A third address of the same /64 (written another way) is over the cap of 2.
      const third = at('2001:0db8:0001:0002:0000:0000:0000:0003');
      await waitFor(() => third.status !== 0);
      third.close();
      assert.equal(third.status, 429);
      const elsewhere = at('2001:db8:1:3::1');
      await waitFor(() => elsewhere.events.length === 1);
      assert.equal(elsewhere.status, 200);
      for (const s of [...open, elsewhere]) s.close();
    });
  });

  describe('KASIR_LOG_LEVEL', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'kasir-loglevel-'));
    after(() => rmSync(dataDir, { recursive: true, force: true }));

    /** Runs kasir-merchant until it says it listens (then stops it) or exits; its output and exit code. */
    const run = (level: string) =>
      new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
        const c = up.provider.credentials;
        const child = spawn(process.execPath, commandArgs('kasir-merchant'), {
          env: {
            ...process.env,
            KASIR_LOG_LEVEL: level,
            PORT: '0',
            HOST: '127.0.0.1',
            REDIS_URL: '',
            KASIR_DATA_DIR: dataDir,
            KASIR_BASE_URL: c.baseUrl,
            KASIR_CLIENT_ID: c.clientId,
            KASIR_CLIENT_SECRET: c.clientSecret,
            KASIR_ACCESS_TOKEN: c.accessToken,
            KASIR_WEBHOOK_SECRET: c.webhookSecret,
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let out = '';
        let err = '';
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk;
          if (out.includes('widget API on')) child.kill('SIGTERM');
        });
        child.stderr.on('data', (chunk: Buffer) => {
          err += chunk;
        });
        child.on('exit', (code) => resolve({ code, out, err }));
      });

    it('is unset when empty: the command starts and logs at info', async () => {
      const { out, err } = await run('');
      assert.match(out, /"level":30.*widget API on http:\/\/[^/]+:\d+\/api/);
      assert.doesNotMatch(err, /Error|at /);
    });

    it('names the variable in one line, without a stack trace, when it is no level', async () => {
      const { code, out, err } = await run('loud');
      assert.equal(code, 1);
      assert.equal(out, '');
      assert.equal(
        err.trim(),
        '[kasir-merchant] KASIR_LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent (got "loud")',
      );
    });
  });
});
