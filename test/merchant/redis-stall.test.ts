// A stalled Redis: a copy on a Redis frozen with SIGSTOP keeps answering status reads from its own
// state within a bound, answers webhooks 503 (the sender retries) and /readyz 503 at once, and is back to normal once
// Redis answers again. Runs its own redis-server (it is frozen), so it needs the binary with-redis.sh provides.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Checkout } from '@kasir/checkout';
import { webhookHeaders } from '../../server/common/standard-webhooks';
import { RedisState } from '../../server/merchant/state/redis-state';
import { startMerchant, type RunningMerchant } from '../../server/merchant/server';
import { depositEvent, sleep, startUpstream, upstreamDeposit, waitFor, type Envelope, type Upstream } from './support';

/** How long Redis stays frozen, and the longest any answer may take meanwhile (a loaded 2-core machine included). */
const STALL_MS = 5000;
const BOUND_MS = 2000;

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

describe(
  'merchant backend: a stalled Redis',
  {
    skip:
      !process.env.KASIR_TEST_REDIS_URL && 'KASIR_TEST_REDIS_URL is not set (run through test/support/with-redis.sh)',
  },
  () => {
    let up: Upstream;
    let redis: ChildProcess;
    let dir: string;
    let merchant: RunningMerchant;
    let checkoutId: string;

    before(async () => {
      up = await startUpstream();
      dir = mkdtempSync(join(tmpdir(), 'kasir-redis-stall-'));
      const port = await freePort();
      redis = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
        { stdio: 'ignore' },
      );
      const url = `redis://127.0.0.1:${port}`;
      await waitFor(async () => {
        const probe = new RedisState({ url, timeoutMs: 1000 });
        try {
          await probe.ping();
          return true;
        } catch {
          return false;
        } finally {
          await probe.close();
        }
      });
      // A short refresh: every few polls go to the shared layer (Redis) again.
      merchant = await startMerchant({
        ...up.config({ statusRefreshMs: 300 }),
        port: 0,
        redisUrl: url,
        redisPrefix: `stall-${randomUUID()}:`,
      });
      const post = (path: string, body: unknown) =>
        fetch(`${merchant.url}/api${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      checkoutId = (
        (await (await post('/checkouts', { amount: '73000', currency: 'IDR' })).json()) as Envelope<Checkout>
      ).data.id;
      assert.equal((await post(`/checkouts/${checkoutId}/deposit`, { method: 'QRIS' })).status, 201);
      assert.equal((await fetch(`${merchant.url}/readyz`)).status, 200);
    });
    after(async () => {
      if (redis.pid) process.kill(redis.pid, 'SIGCONT');
      await merchant?.stop();
      redis.kill('SIGKILL');
      await up.close();
      rmSync(dir, { recursive: true, force: true });
    });

    const timed = async (path: string, init?: RequestInit) => {
      const started = performance.now();
      const res = await fetch(merchant.url + path, init);
      const body = (await res.json()) as { statusCode: number; data?: { status: string } };
      return { status: res.status, body, ms: performance.now() - started };
    };
    const webhookBody = depositEvent(upstreamDeposit(randomUUID(), 'completed'));
    const webhook = (webhookId: string, body = webhookBody) =>
      timed('/api/webhooks/kasir', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...webhookHeaders(up.provider.credentials.webhookSecret, webhookId, body),
        },
        body,
      });

    it(`answers polls, /readyz and webhooks within ${BOUND_MS} ms while Redis is frozen for ${STALL_MS} ms`, async () => {
      const polls: Array<Awaited<ReturnType<typeof timed>>> = [];
      process.kill(redis.pid!, 'SIGSTOP');
      const frozenAt = performance.now();
      // Thawed on time whatever the copy does (a copy that waits on Redis would otherwise wait for ever).
      const thaw = setTimeout(() => process.kill(redis.pid!, 'SIGCONT'), STALL_MS);
      let ready: Awaited<ReturnType<typeof timed>> | undefined;
      let hook: Awaited<ReturnType<typeof timed>> | undefined;
      try {
        const probes = (async () => {
          await sleep(1000);
          ready = await timed('/readyz');
          hook = await webhook(`msg_stall_${checkoutId}`);
        })();
        while (performance.now() - frozenAt < STALL_MS - BOUND_MS) {
          polls.push(await timed(`/api/checkouts/${checkoutId}/deposit`));
          await sleep(100);
        }
        await probes;
      } finally {
        clearTimeout(thaw);
        process.kill(redis.pid!, 'SIGCONT');
      }
      const slowest = Math.max(...polls.map((p) => p.ms));
      console.log(
        `# ${polls.length} polls during the stall, slowest ${Math.round(slowest)} ms; readyz ${Math.round(ready!.ms)} ms; webhook ${Math.round(hook!.ms)} ms`,
      );
      assert.ok(polls.length >= 3, `only ${polls.length} polls answered during the stall`);
      for (const poll of polls) {
        assert.equal(poll.status, 200);
        assert.equal(poll.body.data?.status, 'pending');
      }
      assert.ok(slowest < BOUND_MS, `a poll took ${Math.round(slowest)} ms`);
      assert.equal(ready!.status, 503);
      assert.equal(ready!.body.statusCode, 503);
      assert.ok(ready!.ms < BOUND_MS, `/readyz took ${Math.round(ready!.ms)} ms`);
      assert.equal(hook!.status, 503, 'a webhook is refused, so the sender retries it');
      assert.ok(hook!.ms < BOUND_MS, `the webhook took ${Math.round(hook!.ms)} ms`);
    });

    it('is ready again once Redis answers, and processes the retried webhook', async () => {
      await waitFor(async () => (await timed('/readyz')).status === 200, 10_000);
      assert.equal((await webhook(`msg_stall_${checkoutId}`)).status, 200);
      assert.equal((await timed(`/api/checkouts/${checkoutId}/deposit`)).status, 200);
    });
  },
);
