// The whole of docs/design.md, "More than one copy" at once: two copies of the payment service (compiled kasir-sandbox)
// on one fresh PostgreSQL database and two copies of the merchant backend (`npm run start:merchant`, compiled
// dist/server/merchant.js) on one Redis, each reached through a small load balancer in this process (the service's
// copies by the merchants, the merchants' copies by the service's webhooks; a dead target is skipped, as a balancer's
// health check would). Orders are created on one merchant copy and their methods chosen on the other, shoppers hold
// event streams on both, and the deposits are paid through both; midway one service copy and one merchant copy are
// killed with SIGKILL. Then: every acknowledged deposit and completion is in the database once, every completion
// reached the shop's hook exactly once (counted from both merchant processes' `deposit completed` log lines, with the
// right orderId), and every shopper's stream (reconnecting to the surviving copy, as EventSource behind a balancer
// does) got its completion. Run by `npm run test:multi` (KASIR_TEST_DATABASE_URL and KASIR_TEST_REDIS_URL); build first
// (`npm run build`).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import type { Deposit } from '@kasir/checkout';
import { kill, startCopies, type Copies, type Proc } from '../support/multi';

const ORDERS = 24;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Follows a checkout's event stream as EventSource would: when the stream breaks or ends before the deposit is final
 * (its copy was killed, or it was told to reconnect), it reconnects, to the other copy. Resolves with the last status.
 */
async function follow(checkoutId: string, copies: Proc[], first: number, deadline: number): Promise<string> {
  let index = first;
  let status = '';
  while (Date.now() < deadline) {
    const copy = copies[index % copies.length]!;
    index++;
    if (!copy.alive) continue;
    try {
      const res = await fetch(`${copy.url}/api/checkouts/${checkoutId}/events`, {
        headers: { accept: 'text/event-stream' },
        signal: AbortSignal.timeout(Math.max(1, deadline - Date.now())),
      });
      if (res.status !== 200 || !res.body) throw new Error(`status ${res.status}`);
      let buffer = '';
      const decoder = new TextDecoder();
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        for (const line of buffer.split('\n')) {
          if (line.startsWith('data: ')) status = (JSON.parse(line.slice(6)) as Deposit).status;
        }
        buffer = buffer.slice(buffer.lastIndexOf('\n') + 1);
        if (status === 'completed') return status;
      }
    } catch {
      /* the copy went away mid-stream: reconnect */
    }
    await sleep(200);
  }
  return status;
}

interface HookRun {
  msg: string;
  checkoutId: string;
  orderId?: string;
  webhookId: string;
}

function hookRuns(proc: Proc): HookRun[] {
  return proc.output
    .join('')
    .split('\n')
    .flatMap((line) => {
      try {
        const parsed = JSON.parse(line) as HookRun;
        return parsed.msg === 'deposit completed' ? [parsed] : [];
      } catch {
        return [];
      }
    });
}

describe(
  'two service copies on PostgreSQL and two merchant copies on Redis, one of each killed mid-load',
  { timeout: 240_000 },
  () => {
    let database: Copies['database'];
    let services: Proc[];
    let merchants: Proc[];
    let merchantBalancer: Copies['merchantBalancer'];
    let stop: Copies['stop'] | undefined;

    before(async () => {
      ({ database, services, merchantBalancer, merchants, stop } = await startCopies({
        prefix: 'kasir-multi',
        serviceEnv: { KASIR_WEBHOOK_TIMEOUT_MS: '20000' },
        merchantEnv: { KASIR_STATUS_REFRESH_MS: '1000' },
      }));
    });

    after(async () => {
      await stop?.();
    });

    const postTo = async (proc: Proc, path: string, body?: unknown) => {
      const res = await fetch(`${proc.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body ?? {}),
      });
      return {
        status: res.status,
        json: (await res.json()) as { message: string; orderId?: string; checkoutId?: string },
      };
    };
    /** A POST to the first live merchant copy from `first` on, retried on the other when its copy dies under it. */
    const postAny = async (first: number, path: string, body?: unknown) => {
      for (let i = 0; i < 20; i++) {
        const proc = merchants[(first + i) % merchants.length]!;
        if (!proc.alive) continue;
        try {
          return await postTo(proc, path, body);
        } catch {
          await sleep(100);
        }
      }
      throw new Error(`POST ${path}: no merchant copy answered`);
    };

    const orders: Array<{ orderId: string; checkoutId: string }> = [];
    const paid = new Set<string>();
    let streams: Array<Promise<string>>;

    it('takes orders on one copy and the method choice on the other, with a stream on each copy', async () => {
      for (let i = 0; i < ORDERS; i++) {
        const created = await postTo(merchants[i % 2]!, '/shop/orders', {
          items: [{ sku: 'teh', quantity: 1 + (i % 3) }],
        });
        assert.equal(created.status, 201, created.json.message);
        const { orderId, checkoutId } = created.json as { orderId: string; checkoutId: string };
        const chosen = await postTo(merchants[(i + 1) % 2]!, `/api/checkouts/${checkoutId}/deposit`, {
          method: i % 3 ? 'BCA_VA' : 'QRIS',
        });
        assert.equal(chosen.status, 201, chosen.json.message);
        orders.push({ orderId, checkoutId });
      }
      const deadline = Date.now() + 120_000;
      streams = orders.map((o, i) => follow(o.checkoutId, merchants, i % 2, deadline));
    });

    it('acknowledges every payment while one service copy and one merchant copy are killed midway', async () => {
      // Shoppers polling both copies meanwhile.
      let polling = true;
      const pollers = Array.from({ length: 4 }, async (_, n) => {
        while (polling) {
          const o = orders[Math.floor(Math.random() * orders.length)]!;
          const copy = merchants[n % 2]!;
          if (copy.alive)
            await fetch(`${copy.url}/api/checkouts/${o.checkoutId}/deposit`)
              .then((r) => r.arrayBuffer())
              .catch(() => undefined);
          await sleep(5);
        }
      });
      let next = 0;
      const payers = Array.from({ length: 4 }, async () => {
        while (next < orders.length) {
          const i = next++;
          if (i === ORDERS / 2) {
            kill(services[1]!);
            kill(merchants[1]!);
          }
          const { checkoutId } = orders[i]!;
          // Retried until acknowledged: a payment in flight on a killed copy may or may not have landed.
          for (let attempt = 0; attempt < 20 && !paid.has(checkoutId); attempt++) {
            const answer = await postAny(i, `/api/sandbox/checkouts/${checkoutId}/pay`).catch(() => undefined);
            if (answer?.status === 200) paid.add(checkoutId);
            else if (answer?.status === 400 && /completed/i.test(answer.json.message))
              paid.add(checkoutId); // it had landed
            else await sleep(200);
          }
        }
      });
      await Promise.all(payers);
      polling = false;
      await Promise.all(pollers);
      assert.equal(paid.size, ORDERS);
      assert.equal(services[1]!.alive, false);
      assert.equal(merchants[1]!.alive, false);
    });

    it('has every deposit once in the database, completed', async () => {
      const sql = new pg.Client({ connectionString: database.url });
      await sql.connect();
      try {
        const { rows } = await sql.query<{ deposit_id: string; status: string }>(
          'select deposit_id, status from deposits where deposit_id = any($1)',
          [orders.map((o) => o.checkoutId)],
        );
        assert.equal(rows.length, ORDERS);
        assert.deepEqual(new Set(rows.map((r) => r.deposit_id)).size, ORDERS);
        for (const row of rows) assert.equal(row.status, 'completed', row.deposit_id);
      } finally {
        await sql.end();
      }
    });

    it("runs the shop's completion hook exactly once per deposit, with its order, across both merchant copies", async () => {
      const runs = () => merchants.flatMap(hookRuns);
      const deadline = Date.now() + 90_000;
      while (new Set(runs().map((r) => r.checkoutId)).size < ORDERS && Date.now() < deadline) await sleep(250);
      const all = runs();
      const missing = orders.filter((o) => !all.some((r) => r.checkoutId === o.checkoutId)).map((o) => o.checkoutId);
      assert.deepEqual(
        missing,
        [],
        `no hook run for ${missing.join(', ')}; service log: ${services
          .map((s) => s.output.join(''))
          .join('\n')
          .slice(-3000)}`,
      );
      for (const { orderId, checkoutId } of orders) {
        const mine = all.filter((r) => r.checkoutId === checkoutId);
        assert.equal(mine.length, 1, `hook runs for ${checkoutId}: ${mine.length}`);
        assert.equal(mine[0]!.orderId, orderId);
      }
      assert.equal(new Set(all.map((r) => r.webhookId)).size, all.length, 'no webhook ran a hook twice');
    });

    it("delivers every shopper's stream its completion (reconnecting to the surviving copy)", async () => {
      const finals = await Promise.all(streams);
      assert.deepEqual(
        finals,
        orders.map(() => 'completed'),
      );
    });

    it('keeps the surviving merchant copy ready', async () => {
      const ready = await fetch(`${merchants[0]!.url}/readyz`);
      assert.equal(ready.status, 200);
      const healthy = await fetch(`${merchantBalancer.url}/healthz`);
      assert.equal(healthy.status, 200);
    });
  },
);
