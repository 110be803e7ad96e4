// No order left pending (docs/orders.md): the follower reads every open checkout again at a pace and runs the hooks of
// a change whose webhook never came, once, whether webhooks are refused (a wrong secret), unreachable or working, on
// one copy or two on Redis; and the pace's bound by arithmetic on an injected clock. The newcomer's reproductions are in
// newcomer.test.ts.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createKasirApi, type KasirApi } from '../../server/merchant/api';
import type { KasirApiOptions } from '../../server/merchant/config';
import { Follower, worstFollowDelay } from '../../server/merchant/webhooks/follower';
import type { CompletedDeposit } from '../../server/merchant/hooks';
import { startMerchant, type RunningMerchant } from '../../server/merchant/server';
import { LocalState } from '../../server/merchant/state/shared-state';
import { newWebhookSecret } from '../../server/provider/accounts/merchants';
import { capturedLog, routeWebhooksTo, serviceClient, startUpstream, waitFor, type Upstream } from './support';

const redisUrl = process.env.KASIR_TEST_REDIS_URL;
/** A fast pace for the tests (the default's bound is checked by arithmetic below). */
const FOLLOW_MS = 300;
const ORDERS = 100;

interface Run {
  orderId?: string;
  checkoutId: string;
  at: number;
}

/** Reads of one checkout's deposit the backends made (GET /v1/deposit/:id). */
const depositReads = (up: Upstream, from: number) =>
  up.calls.slice(from).filter((call) => /^GET \/v1\/deposit\/[^/?]+$/.test(call) && !call.endsWith('/payment-method'))
    .length;

/** Runs `work` for 0..count-1, `width` at a time. */
async function inBatches<T>(count: number, width: number, work: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  for (let i = 0; i < count; i += width)
    results.push(...(await Promise.all(Array.from({ length: Math.min(width, count - i) }, (_, j) => work(i + j)))));
  return results;
}

/** `count` orders opened on `apis` in turn, each with its method chosen (a VA): open checkouts, their orders saved. */
async function openOrders(apis: KasirApi[], count: number, tag: string) {
  return inBatches(count, 10, async (i) => {
    const api = apis[i % apis.length]!;
    const orderId = `${tag}-${i}`;
    const { id } = await api.createCheckout({ amount: String(10_000 + i), orderId });
    await api.service.chooseMethod(id, 'BCA_VA');
    return { orderId, checkoutId: id };
  });
}

/** Pays every order at the service; answers when each was paid. */
async function payAll(up: Upstream, orders: Array<{ checkoutId: string }>) {
  const client = serviceClient(up);
  const paidAt = new Map<string, number>();
  await inBatches(orders.length, 10, async (i) => {
    await client.sandboxPay(orders[i]!.checkoutId);
    paidAt.set(orders[i]!.checkoutId, Date.now());
  });
  return paidAt;
}

/** How many of the orders' checkouts had a run. */
const ranFor = (runs: Run[], orders: Array<{ checkoutId: string }>) => {
  const ids = new Set(orders.map((order) => order.checkoutId));
  return runs.filter((run) => ids.has(run.checkoutId)).length;
};

/** Every order's onDepositCompleted ran once, with its orderId, within the bound of its payment. */
function assertEachOnce(
  all: Run[],
  orders: Array<{ orderId: string; checkoutId: string }>,
  paidAt: Map<string, number>,
) {
  // (The service's retries of earlier tests' deliveries may reach this backend: only this test's orders count.)
  const ids = new Set(orders.map((order) => order.checkoutId));
  const runs = all.filter((run) => ids.has(run.checkoutId));
  assert.equal(runs.length, orders.length, `runs: ${runs.length}`);
  const byCheckout = new Map(runs.map((run) => [run.checkoutId, run]));
  assert.equal(byCheckout.size, orders.length, 'one run per checkout');
  for (const { orderId, checkoutId } of orders) {
    const run = byCheckout.get(checkoutId);
    assert.ok(run, `${orderId}: no onDepositCompleted`);
    assert.equal(run.orderId, orderId);
    assert.ok(run.at - paidAt.get(checkoutId)! <= 60_000, `${orderId}: ${run.at - paidAt.get(checkoutId)!} ms`);
  }
}

/**
 * Test time for the follower: its clock and one-shot timers; advance() runs each timer when due and lets what it
 * started settle before the next.
 */
class TestClock {
  now = Date.UTC(2026, 10, 29);
  private timers: Array<{ at: number; seq: number; fire: () => void }> = [];
  private seq = 0;

  after = (ms: number, fire: () => void) => {
    const timer = { at: this.now + ms, seq: this.seq++, fire };
    this.timers.push(timer);
    return { stop: () => void (this.timers = this.timers.filter((t) => t !== timer)) };
  };

  /** Resolves after `ms` of test time (a read's round trip). */
  sleep = (ms: number) => new Promise<void>((resolve) => this.after(ms, resolve));

  async advance(ms: number): Promise<void> {
    const end = this.now + ms;
    for (;;) {
      await new Promise((resolve) => setImmediate(resolve));
      let next: (typeof this.timers)[number] | undefined;
      for (const timer of this.timers)
        if (!next || timer.at < next.at || (timer.at === next.at && timer.seq < next.seq)) next = timer;
      if (!next || next.at > end) break;
      this.timers = this.timers.filter((t) => t !== next);
      this.now = Math.max(this.now, next.at);
      next.fire();
    }
    this.now = end;
  }
}

describe('the follower: the pace', () => {
  it('with the defaults, a change is read within 60 s wherever the checkout is in its life, at most once per interval', async () => {
    assert.ok(worstFollowDelay(20_000) <= 60_000, `${worstFollowDelay(20_000)} ms`);
    // An injected clock and timers: one open checkout far from expiry (a VA, 24 h), one near it; the change lands at
    // each second of the first ten minutes, and the read that sees it comes within the bound.
    const clock = new TestClock();
    const start = clock.now;
    const reads: Array<{ id: string; at: number }> = [];
    const expiries: Record<string, number> = { far: start + 24 * 3600_000, near: start + 30 * 60_000 };
    const follower = new Follower(20_000, {
      list: async () => ['far', 'near'],
      claim: async () => ({ renew: async () => undefined }),
      follow: async (id) => {
        reads.push({ id, at: clock.now });
        return { expiresAt: expiries[id], finished: false };
      },
      now: () => clock.now,
      after: clock.after,
    });
    follower.start();
    await clock.advance(10 * 60_000);
    for (const id of ['far', 'near']) {
      const times = reads.filter((read) => read.id === id).map((read) => read.at);
      // First seen (listed a quarter interval after the start): read within the slower interval of it, then never
      // more than the bound apart, never twice in one interval.
      assert.ok(times[0]! - start <= 45_000, `${id} first read at +${times[0]! - start} ms`);
      for (let i = 1; i < times.length; i++) {
        const gap = times[i]! - times[i - 1]!;
        assert.ok(gap <= 60_000 && gap >= 20_000, `${id}: ${gap} ms between reads`);
      }
      // Whenever the change lands, the next read is within 60 s of it.
      for (let changedAt = start + 45_000; changedAt < start + 9 * 60_000; changedAt += 1_000) {
        const seen = times.find((at) => at >= changedAt);
        assert.ok(seen !== undefined && seen - changedAt <= 60_000, `${id}: change at +${changedAt - start}`);
      }
    }
    // The far one at the slower pace: fewer reads than the near one.
    assert.ok(reads.filter((r) => r.id === 'far').length < reads.filter((r) => r.id === 'near').length);
    await follower.stop();
  });

  const INTERVAL = 20_000;
  /** Its expiry from the start: near (read every interval), far (every two), or crossing from far to near. */
  const EXPIRY_FROM_START = { near: 30 * 60_000, far: 24 * 3600_000, crossing: 65 * 60_000 };
  type Kind = keyof typeof EXPIRY_FROM_START;
  const kindOf = (id: string) => id.split('-')[0] as Kind;

  /**
   * `copies` followers of the same checkouts (`count` of each kind) on one test clock, their read claims on one shared
   * state (as copies on Redis share theirs: a claim's round trip of a few ms, its lease timed where it lands), each
   * read a round trip of `readMs`, for `intervals` intervals. Answers every read's checkout, time and copy.
   */
  async function followed(options: { copies: number; count: Record<Kind, number>; readMs: number; intervals: number }) {
    const clock = new TestClock();
    const start = clock.now;
    const ids = (Object.keys(options.count) as Kind[]).flatMap((kind) =>
      Array.from({ length: options.count[kind] }, (_, i) => `${kind}-${i}`),
    );
    const claims = new LocalState(undefined, () => clock.now);
    const roundTrip = () => clock.sleep(1 + Math.floor(Math.random() * 4));
    const reads: Array<{ id: string; at: number; copy: number }> = [];
    const followers = Array.from(
      { length: options.copies },
      (_, copy) =>
        new Follower(INTERVAL, {
          list: async () => ids,
          claim: async (id, leaseMs) => {
            if (options.copies === 1) return { renew: async () => undefined };
            await roundTrip();
            const claim = await claims.claim(`follow:${id}`, leaseMs);
            if (claim.state !== 'claimed') return undefined;
            return { renew: async (ms) => void (await roundTrip(), await claims.extend(claim, ms)) };
          },
          follow: async (id) => {
            reads.push({ id, at: clock.now, copy });
            await clock.sleep(options.readMs);
            return { expiresAt: start + EXPIRY_FROM_START[kindOf(id)], finished: false };
          },
          now: () => clock.now,
          after: clock.after,
        }),
    );
    for (const follower of followers) follower.start();
    await clock.advance(options.intervals * INTERVAL);
    const stopped = Promise.all(followers.map((follower) => follower.stop()));
    await clock.advance(1_000); // the reads under way end
    await stopped;
    const times = new Map<string, number[]>();
    for (const read of reads) times.set(read.id, [...(times.get(read.id) ?? []), read.at]);
    return { start, reads, times };
  }

  /** Each checkout's reads in [from, to) are what its pace makes them: `intervals`, or half at the slower pace. */
  function assertReadsPerInterval(times: Map<string, number[]>, from: number, intervals: number) {
    const counted = { near: 0, far: 0 };
    for (const [id, all] of times) {
      const kind = kindOf(id);
      if (kind === 'crossing') continue;
      const count = all.filter((at) => at >= from && at < from + intervals * INTERVAL).length;
      const expected = kind === 'far' ? intervals / 2 : intervals;
      assert.ok(Math.abs(count - expected) <= 1, `${id}: ${count} reads in ${intervals} intervals, not ${expected}`);
      counted[kind] += count / expected;
    }
    return counted;
  }

  it('one copy: over 30 intervals a checkout is read 30 times (15 at the slower pace), reads taking their time', async () => {
    const { start, reads, times } = await followed({
      copies: 1,
      count: { near: 500, far: 500, crossing: 0 },
      readMs: 20,
      intervals: 35,
    });
    // From the fifth interval on (the first reads were spread over the first two, after a quarter of one).
    const counted = assertReadsPerInterval(times, start + 5 * INTERVAL, 30);
    assert.ok(Math.abs(counted.near / 500 - 1) < 0.005, `near: ${counted.near / 5} % of their reads`);
    assert.ok(Math.abs(counted.far / 500 - 1) < 0.005, `far: ${counted.far / 5} % of their reads`);
    // Spread over time: no second of those intervals has twice its share of the reads (a burst of them would).
    const perSecond = new Map<number, number>();
    for (const { at } of reads) {
      const second = Math.floor((at - start) / 1000);
      if (second >= 5 * 20 && second < 35 * 20) perSecond.set(second, (perSecond.get(second) ?? 0) + 1);
    }
    const share = 500 / 20 + 500 / 40; // reads per second at their pace
    const most = Math.max(...perSecond.values());
    assert.ok(perSecond.size === 600 && most <= 2 * share, `${most} reads in one second, ${share} on average`);
  });

  it('two copies sharing their claims: each checkout read once per interval in all, none lost, from its first read', async () => {
    const { start, reads, times } = await followed({
      copies: 2,
      count: { near: 200, far: 200, crossing: 20 },
      readMs: 20,
      intervals: 35,
    });
    assertReadsPerInterval(times, start + 5 * INTERVAL, 30);
    // Never two reads of one checkout (by either copy) closer than its claim's lease, from the first (its pace not
    // known yet); the crossing ones read every interval once near their expiry, none lost.
    for (const [id, all] of times) {
      const kind = kindOf(id);
      const nearFrom = start + EXPIRY_FROM_START[kind] - 3600_000;
      for (let i = 1; i < all.length; i++) {
        const gap = all[i]! - all[i - 1]!;
        const least = kind === 'near' || all[i - 1]! >= nearFrom ? INTERVAL * (7 / 8) : 2 * INTERVAL * (7 / 8);
        assert.ok(gap >= least, `${id}: ${gap} ms between reads at +${all[i]! - start} ms`);
        if (all[i - 1]! >= nearFrom) assert.ok(gap <= INTERVAL + 1_000, `${id}: ${gap} ms between reads, once near`);
      }
    }
    assert.equal(new Set(reads.map((read) => read.copy)).size, 2, 'both copies read');
  });
});

describe('the follower against a real sandbox', () => {
  let up: Upstream;
  before(async () => {
    up = await startUpstream();
  });
  after(() => up.close());

  const apiOf = (options: Partial<KasirApiOptions>) =>
    createKasirApi({ ...up.config({ checkoutRateLimit: 100_000 }), fetch: up.countingFetch, ...options });

  it(`webhooks refused (a wrong secret): ${ORDERS} orders paid at the service, each onDepositCompleted once, with its orderId, and the shop told once`, async () => {
    const runs: Run[] = [];
    const { logger, lines } = capturedLog();
    let merchant: RunningMerchant | undefined;
    try {
      merchant = await startMerchant({
        ...up.config({ checkoutRateLimit: 100_000 }),
        fetch: up.countingFetch,
        webhookSecret: newWebhookSecret(), // not the service's: every delivery is refused
        followMs: FOLLOW_MS,
        logger,
        port: 0,
        onDepositCompleted: (e: CompletedDeposit) =>
          void runs.push({ orderId: e.orderId, checkoutId: e.checkoutId, at: Date.now() }),
      });
      await routeWebhooksTo(up, merchant.url);
      const orders = await openOrders([merchant.app.api], ORDERS, `refused-${randomUUID()}`);
      const from = up.calls.length;
      const began = Date.now();
      const paidAt = await payAll(up, orders);
      await waitFor(() => ranFor(runs, orders) >= orders.length, 60_000);
      const elapsed = Date.now() - began;
      assertEachOnce(runs, orders, paidAt);
      // At most one read per open checkout per interval (and one more for the pass under way).
      const reads = depositReads(up, from);
      assert.ok(reads <= ORDERS * (Math.ceil(elapsed / FOLLOW_MS) + 1), `${reads} reads in ${elapsed} ms`);
      const told = lines.filter((line) => /never reached this backend/.test(line.msg));
      assert.equal(told.length, 1, JSON.stringify(lines.map((l) => l.msg)));
      assert.match(told[0]!.msg, /KASIR_WEBHOOK_SECRET/);
      assert.match(told[0]!.msg, /webhook URL/);
    } finally {
      await merchant?.stop();
    }
  });

  it(`webhooks unreachable: ${ORDERS} orders paid, each onDepositCompleted once within the bound`, async () => {
    const runs: Run[] = [];
    const api = apiOf({
      followMs: FOLLOW_MS,
      onDepositCompleted: (e) => void runs.push({ orderId: e.orderId, checkoutId: e.checkoutId, at: Date.now() }),
    });
    try {
      await routeWebhooksTo(up, 'http://127.0.0.1:9'); // nothing listens there
      const orders = await openOrders([api], ORDERS, `unreachable-${randomUUID()}`);
      const paidAt = await payAll(up, orders);
      await waitFor(() => ranFor(runs, orders) >= orders.length, 60_000);
      assertEachOnce(runs, orders, paidAt);
    } finally {
      await api.close();
    }
  });

  it('webhooks working: the follower runs nothing twice, and reads each open checkout at most once per interval', async () => {
    const runs: Run[] = [];
    let merchant: RunningMerchant | undefined;
    try {
      merchant = await startMerchant({
        ...up.config({ checkoutRateLimit: 100_000 }),
        fetch: up.countingFetch,
        followMs: FOLLOW_MS,
        port: 0,
        onDepositCompleted: (e: CompletedDeposit) =>
          void runs.push({ orderId: e.orderId, checkoutId: e.checkoutId, at: Date.now() }),
      });
      await routeWebhooksTo(up, merchant.url);
      const orders = await openOrders([merchant.app.api], 30, `working-${randomUUID()}`);
      const from = up.calls.length;
      const began = Date.now();
      const paidAt = await payAll(up, orders);
      await waitFor(() => ranFor(runs, orders) >= orders.length, 60_000);
      await new Promise((resolve) => setTimeout(resolve, 4 * FOLLOW_MS)); // what would run twice has had its chance
      assertEachOnce(runs, orders, paidAt);
      const elapsed = Date.now() - began;
      const reads = depositReads(up, from);
      assert.ok(reads <= orders.length * (Math.ceil(elapsed / FOLLOW_MS) + 1), `${reads} reads in ${elapsed} ms`);
    } finally {
      await merchant?.stop();
    }
  });

  it(
    `two copies on Redis, webhooks refused: ${ORDERS} orders, each onDepositCompleted once, one read per checkout per interval in all`,
    { skip: !redisUrl && 'KASIR_TEST_REDIS_URL is not set (run through test/support/with-redis.sh)' },
    async () => {
      const runs: Run[] = [];
      const redisPrefix = `kasir-follow-${randomUUID()}:`;
      const options = {
        redisUrl,
        redisPrefix,
        redisTimeoutMs: 3_000, // a loaded test machine: not a stall
        followMs: FOLLOW_MS,
        webhookSecret: newWebhookSecret(),
        onDepositCompleted: (e: CompletedDeposit) =>
          void runs.push({ orderId: e.orderId, checkoutId: e.checkoutId, at: Date.now() }),
      };
      const copies = [apiOf(options), apiOf(options)];
      try {
        await routeWebhooksTo(up, 'http://127.0.0.1:9');
        const orders = await openOrders(copies, ORDERS, `copies-${randomUUID()}`);
        const from = up.calls.length;
        const began = Date.now();
        const paidAt = await payAll(up, orders);
        await waitFor(() => ranFor(runs, orders) >= orders.length, 60_000);
        await new Promise((resolve) => setTimeout(resolve, 2 * FOLLOW_MS));
        const elapsed = Date.now() - began;
        assertEachOnce(runs, orders, paidAt);
        // Both copies follow every checkout; the claim of each interval keeps the reads to one per checkout in all.
        const reads = depositReads(up, from);
        assert.ok(reads <= ORDERS * (Math.ceil(elapsed / FOLLOW_MS) + 1), `${reads} reads in ${elapsed} ms`);
        assert.ok(
          copies.every((copy) => copy.follower.reads > 0),
          'both copies read',
        );
      } finally {
        await Promise.all(copies.map((copy) => copy.close()));
      }
    },
  );
});
