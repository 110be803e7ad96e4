// One order, one payment (docs/orders.md), through real HTTP against a real sandbox: an order keeps one checkout from
// any browser, after a reload and on two copies on Redis; a paid order answers its paid checkout; an order that expired
// unpaid gets a new one, priced again, and one that expired with money keeps its own; a changed price opens a new
// checkout only while nothing was paid; amounts from the page are refused outside sandbox mode; every hook gets the
// orderId; reconcile runs a missed hook once, on one copy or on two at once.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Checkout } from '@kasir/checkout';
import type {
  CompletedDeposit,
  ExpiredDeposit,
  KasirApiOptions,
  PartiallyPaidDeposit,
  RunningMerchant,
} from '../../server/merchant/index';
import {
  ORDER_SECRET,
  orderTokenOf,
  routeWebhooksTo,
  runningMerchant,
  startUpstream,
  waitFor,
  type Envelope,
  type Upstream,
} from './support';

const redisUrl = process.env.KASIR_TEST_REDIS_URL;

/** The shop's orders and their prices (what priceOrder reads); a test changes one to re-price it. */
const prices = new Map<string, string>();
const priced: string[] = [];
const priceOrder = (orderId: string) => {
  priced.push(orderId);
  const amount = prices.get(orderId);
  return amount ? { amount, currency: 'IDR' } : null;
};

/** Each order's checkout, with the order's token its page holds (acting on the checkout takes it too). */
const tokens = new Map<string, string>();

async function api<T = unknown>(merchant: RunningMerchant, method: string, path: string, body?: unknown) {
  const token = tokens.get(/^\/checkouts\/([^/]+)\//.exec(path)?.[1] ?? '');
  const res = await fetch(`${merchant.url}/api${path}`, {
    method,
    headers:
      method === 'GET'
        ? {}
        : { 'Content-Type': 'application/json', ...(token ? { 'X-Kasir-Order-Token': token } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Envelope<T> & { message: string } };
}

/** What a page with `<kasir-checkout order-id=...>` asks for (each load of the page on any device). */
async function openOrder(merchant: RunningMerchant, orderId: string): Promise<Checkout> {
  const orderToken = orderTokenOf(orderId);
  const res = await api<Checkout>(merchant, 'POST', '/checkouts', { orderId, orderToken });
  assert.equal(res.status, 201, JSON.stringify(res.json));
  tokens.set(res.json.data.id, orderToken);
  return res.json.data;
}

async function choose(merchant: RunningMerchant, id: string, method = 'BCA_TRANSFER') {
  const res = await api(merchant, 'POST', `/checkouts/${id}/deposit`, { method });
  assert.equal(res.status, 201, JSON.stringify(res.json));
}

const newOrder = (amount = '150000') => {
  const orderId = `ORD-${randomUUID().slice(0, 8)}`;
  prices.set(orderId, amount);
  return orderId;
};

describe('orders: one order, one checkout (one process, data dir)', () => {
  let up: Upstream;
  let merchant: RunningMerchant;
  let dataDir: string;
  const completed: CompletedDeposit[] = [];
  const expired: ExpiredDeposit[] = [];
  const partial: PartiallyPaidDeposit[] = [];

  before(async () => {
    up = await startUpstream();
    dataDir = mkdtempSync(join(tmpdir(), 'kasir-orders-'));
    merchant = await runningMerchant(
      up,
      {
        priceOrder,
        onDepositCompleted: (e) => {
          completed.push(e);
        },
        onDepositExpired: (e) => {
          expired.push(e);
        },
        onDepositPartiallyPaid: (e) => {
          partial.push(e);
        },
      },
      { dataDir, sandbox: false, orderSecret: ORDER_SECRET },
    );
  });
  after(async () => {
    await merchant.stop();
    await up.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('the same order from two browsers at once and after a reload gets one checkout', async () => {
    const orderId = newOrder();
    const [first, second] = await Promise.all([openOrder(merchant, orderId), openOrder(merchant, orderId)]);
    assert.equal(second.id, first.id);
    assert.equal((await openOrder(merchant, orderId)).id, first.id, 'a reload resumes it');
    await choose(merchant, first.id);
    const again = await openOrder(merchant, orderId);
    assert.equal(again.id, first.id, 'a pending deposit is resumed on another device');
    assert.equal(again.deposit?.status, 'pending');
  });

  it('a paid order answers its paid checkout (the element shows completed), without asking priceOrder again', async () => {
    const orderId = newOrder();
    const { id } = await openOrder(merchant, orderId);
    await choose(merchant, id, 'BCA_VA');
    await up.provider.pay(id);
    const asked = priced.length;
    prices.delete(orderId); // the shop may have archived the order: it is paid
    const reloaded = await openOrder(merchant, orderId);
    assert.equal(reloaded.id, id);
    assert.equal(reloaded.deposit?.status, 'completed');
    assert.equal(priced.length, asked, 'a paid order is not priced again');
  });

  it('an order that expired unpaid gets a new checkout, priced again; a reload then resumes the new one', async () => {
    const orderId = newOrder();
    const { id } = await openOrder(merchant, orderId);
    await choose(merchant, id, 'BCA_VA');
    await up.provider.expire(id);
    prices.set(orderId, '175000');
    const renewed = await openOrder(merchant, orderId);
    assert.notEqual(renewed.id, id);
    assert.equal(renewed.amount, '175000');
    assert.equal(renewed.deposit, null);
    assert.equal((await openOrder(merchant, orderId)).id, renewed.id);
  });

  it('an order that expired with money received keeps its checkout (the refund is owed on it)', async () => {
    const orderId = newOrder();
    const { id } = await openOrder(merchant, orderId);
    await choose(merchant, id);
    await up.provider.pay(id, { amount: '50000' });
    await up.provider.expire(id);
    const reloaded = await openOrder(merchant, orderId);
    assert.equal(reloaded.id, id);
    assert.equal(reloaded.deposit?.status, 'expired');
    assert.equal(reloaded.deposit?.paidAmount, '50000');
  });

  it('a changed price opens a new checkout while nothing was paid (the old one takes no method), and not after a payment', async () => {
    const orderId = newOrder();
    const { id } = await openOrder(merchant, orderId);
    prices.set(orderId, '160000');
    const repriced = await openOrder(merchant, orderId);
    assert.notEqual(repriced.id, id);
    assert.equal(repriced.amount, '160000');
    const stale = await api(merchant, 'POST', `/checkouts/${id}/deposit`, { method: 'BCA_VA' });
    assert.equal(stale.status, 409, JSON.stringify(stale.json));

    await choose(merchant, repriced.id);
    await up.provider.pay(repriced.id, { amount: '10000' });
    prices.set(orderId, '170000');
    const kept = await openOrder(merchant, orderId);
    assert.equal(kept.id, repriced.id, 'money arrived: the price no longer moves the order');
  });

  it('refuses an amount from the page outside sandbox mode, naming priceOrder and createCheckout', async () => {
    const plain = await runningMerchant(up, {}, { sandbox: false });
    try {
      const res = await api(plain, 'POST', '/checkouts', { amount: '1', currency: 'IDR' });
      assert.equal(res.status, 400);
      assert.equal(res.json.message, 'amount: this shop prices orders on its server (priceOrder or createCheckout)');
    } finally {
      await plain.stop();
    }
    const allowing = await runningMerchant(up, {}, { sandbox: false, allowClientAmounts: true });
    try {
      assert.equal((await api(allowing, 'POST', '/checkouts', { amount: '150000', currency: 'IDR' })).status, 201);
    } finally {
      await allowing.stop();
    }
    await routeWebhooksTo(up, merchant.url);
  });

  it('createCheckout on the shop server: one checkout per order too, and every hook gets the orderId', async () => {
    const kasir = merchant.app.api;
    const orderId = `SRV-${randomUUID().slice(0, 8)}`;
    const first = await kasir.createCheckout({ orderId, amount: '150000' });
    assert.equal((await kasir.createCheckout({ orderId, amount: '150000' })).id, first.id, 'the page rendered again');
    await choose(merchant, first.id);
    await up.provider.pay(first.id, { amount: '50000' });
    await up.provider.pay(first.id);
    await waitFor(() => completed.some((e) => e.checkoutId === first.id), 10_000);
    assert.deepEqual(
      partial.filter((e) => e.checkoutId === first.id).map((e) => e.orderId),
      [orderId],
    );
    assert.deepEqual(
      completed.filter((e) => e.checkoutId === first.id).map((e) => e.orderId),
      [orderId],
    );
  });
});

describe('reconcile (one process)', () => {
  let up: Upstream;
  let merchant: RunningMerchant;
  let dataDir: string;
  const completed: CompletedDeposit[] = [];

  before(async () => {
    up = await startUpstream();
    dataDir = mkdtempSync(join(tmpdir(), 'kasir-reconcile-'));
    merchant = await runningMerchant(
      up,
      {
        priceOrder,
        onDepositCompleted: (e) => {
          completed.push(e);
        },
      },
      { dataDir, sandbox: false, orderSecret: ORDER_SECRET },
    );
    await routeWebhooksTo(up, 'http://127.0.0.1:9'); // the receiver is away: no webhook arrives
  });
  after(async () => {
    await merchant.stop();
    await up.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('runs a missed completion hook once, with its orderId; a second reconcile runs nothing', async () => {
    const orderId = newOrder();
    const { id } = await openOrder(merchant, orderId);
    await choose(merchant, id, 'BCA_VA');
    await up.provider.pay(id);
    const open = newOrder();
    await openOrder(merchant, open);

    const first = await merchant.app.api.reconcile();
    const line = first.find((l) => l.checkoutId === id);
    assert.deepEqual(
      { ...line },
      {
        orderId,
        checkoutId: id,
        status: 'completed',
        paid: '150000',
        currency: 'IDR',
        hooksRun: ['onDepositCompleted'],
      },
    );
    assert.equal(first.find((l) => l.orderId === open)?.status, 'open');
    assert.deepEqual(
      completed.map((e) => [e.checkoutId, e.orderId]),
      [[id, orderId]],
    );

    const second = await merchant.app.api.reconcile();
    assert.equal(
      second.find((l) => l.checkoutId === id),
      undefined,
      'settled: passed by',
    );
    assert.deepEqual(
      second.flatMap((l) => l.hooksRun),
      [],
    );
    const since = await merchant.app.api.reconcile({ since: new Date(Date.now() - 60_000) });
    assert.deepEqual(
      since.find((l) => l.checkoutId === id)?.hooksRun,
      [],
      'looked at again with since, and nothing runs twice',
    );
    assert.equal(completed.length, 1);
  });
});

describe(
  'orders and reconcile on two copies on one Redis',
  { skip: !redisUrl && 'KASIR_TEST_REDIS_URL is not set (run through test/support/with-redis.sh)' },
  () => {
    let up: Upstream;
    let a: RunningMerchant;
    let b: RunningMerchant;
    const completed: CompletedDeposit[] = [];

    before(async () => {
      up = await startUpstream();
      const options: Partial<KasirApiOptions> = {
        priceOrder,
        onDepositCompleted: async (e) => {
          completed.push(e);
          await new Promise((r) => setTimeout(r, 50));
        },
      };
      const config = {
        redisUrl,
        redisPrefix: `kasir-orders-${randomUUID()}:`,
        sandbox: false,
        orderSecret: ORDER_SECRET,
      };
      a = await runningMerchant(up, options, config);
      b = await runningMerchant(up, options, config);
    });
    after(async () => {
      await a?.stop();
      await b?.stop();
      await up.close();
    });

    it('two browsers racing on one order through two copies get one checkout (every time)', async () => {
      for (let round = 0; round < 5; round++) {
        const orderId = newOrder();
        const [first, second] = await Promise.all([openOrder(a, orderId), openOrder(b, orderId)]);
        assert.equal(second.id, first.id, `round ${round}`);
        assert.equal((await openOrder(b, orderId)).id, first.id);
      }
    });

    it('a paid order opened through the other copy answers its paid checkout', async () => {
      const orderId = newOrder();
      const { id } = await openOrder(a, orderId);
      await choose(b, id, 'BCA_VA');
      await up.provider.pay(id);
      const reloaded = await openOrder(b, orderId);
      assert.equal(reloaded.id, id);
      assert.equal(reloaded.deposit?.status, 'completed');
    });

    it('two copies reconciling at once run each missed hook once', async () => {
      await routeWebhooksTo(up, 'http://127.0.0.1:9'); // no webhook arrives
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const { id } = await openOrder(i % 2 ? a : b, newOrder());
        await choose(a, id, 'BCA_VA');
        await up.provider.pay(id);
        ids.push(id);
      }
      const before = completed.length;
      const [fromA, fromB] = await Promise.all([a.app.api.reconcile(), b.app.api.reconcile()]);
      const runs = [...fromA, ...fromB].filter((l) => ids.includes(l.checkoutId)).flatMap((l) => l.hooksRun);
      assert.equal(runs.length, 3, JSON.stringify([fromA, fromB]));
      assert.deepEqual(
        completed
          .slice(before)
          .map((e) => e.checkoutId)
          .sort(),
        [...ids].sort(),
      );
      const again = await b.app.api.reconcile();
      assert.deepEqual(
        again.flatMap((l) => l.hooksRun),
        [],
      );
    });
  },
);
