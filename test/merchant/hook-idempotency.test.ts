// Hooks after a crash: a process killed after a hook returned and before the backend marked it run
// runs it again on the replayed delivery, with the same eventId. The recipe of README "Idempotent hooks" (the shop's
// order update and the event id in one transaction, here on SQLite through better-sqlite3) then writes once.
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { webhookHeaders } from '../../server/common/standard-webhooks';
import type { DepositHookEvent } from '../../server/merchant/hooks';
import { call, depositEvent, merchantApp, startUpstream, upstreamDeposit, type Upstream } from './support';

/** The shop's own database and the recipe, as README "Idempotent hooks" writes it. */
function shopDatabase(file: string) {
  const db = new Database(file);
  db.exec(`
    CREATE TABLE IF NOT EXISTS orders (id TEXT PRIMARY KEY, status TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS payments (order_id TEXT NOT NULL, amount TEXT NOT NULL, currency TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS kasir_events (event_id TEXT PRIMARY KEY);`);
  const seen = db.prepare('INSERT INTO kasir_events (event_id) VALUES (?) ON CONFLICT DO NOTHING');
  const pay = db.prepare('INSERT INTO payments (order_id, amount, currency) VALUES (?, ?, ?)');
  const markPaid = db.prepare("UPDATE orders SET status = 'paid' WHERE id = ? AND status = 'pending'");
  // One transaction: the event id is recorded with the order's update, or neither is.
  const onDepositCompleted = db.transaction(({ eventId, orderId, deposit }: DepositHookEvent) => {
    if (seen.run(eventId).changes === 0) return; // this event was written before: a replay
    if (markPaid.run(orderId).changes === 0) return; // paid already (another event of the same payment)
    pay.run(orderId, String(deposit.inputAmount), deposit.inputCurrency);
  });
  return { db, onDepositCompleted };
}

describe('merchant backend: a hook replayed after a crash writes once with the README recipe', () => {
  let up: Upstream;
  let dir: string;
  before(async () => {
    up = await startUpstream();
    dir = mkdtempSync(join(tmpdir(), 'kasir-hook-replay-'));
  });
  after(async () => {
    await up.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('gives the replayed hook the same eventId, and the shop records one payment', async () => {
    const shop = shopDatabase(join(dir, 'shop.db'));
    const calls: DepositHookEvent[] = [];
    const options = {
      dataDir: join(dir, 'kasir'),
      onDepositCompleted: (event: DepositHookEvent) => {
        calls.push(event);
        shop.onDepositCompleted(event);
      },
    };
    // The first process creates the checkout for the shop's order.
    const first = merchantApp(up, options);
    const checkout = await first.api.createCheckout({ amount: '150000', orderId: 'order-1' });
    shop.db.prepare("INSERT INTO orders (id, status) VALUES ('order-1', 'pending')").run();

    // It is killed after the hook returned and before its mark was written: the mark never reaches the state file.
    const { shared } = first.service;
    const finish = shared.finish.bind(shared);
    shared.finish = async (claim, ttlMs) => {
      if (claim.key.startsWith('hook:')) throw new Error('killed before the mark was written');
      return finish(claim, ttlMs);
    };
    const body = depositEvent(upstreamDeposit(checkout.id, 'completed'));
    const deliver = (app: typeof first) =>
      call(app, 'POST', '/api/webhooks/kasir', body, {
        'Content-Type': 'application/json',
        ...webhookHeaders(up.provider.credentials.webhookSecret, `msg_${checkout.id}`, body),
      });
    assert.notEqual((await deliver(first)).status, 200, 'the delivery was not acknowledged');
    await first.api.close();

    // The restarted process gets the payment service's retry of the same delivery and runs the hook again.
    const restarted = merchantApp(up, options);
    assert.equal((await deliver(restarted)).status, 200);
    await restarted.api.close();

    assert.equal(calls.length, 2, 'the hook ran again after the crash');
    assert.deepEqual(
      calls.map((e) => e.eventId),
      [`msg_${checkout.id}`, `msg_${checkout.id}`],
    );
    assert.deepEqual(
      calls.map((e) => e.orderId),
      ['order-1', 'order-1'],
    );
    assert.deepEqual(shop.db.prepare('SELECT order_id, amount, currency FROM payments').all(), [
      { order_id: 'order-1', amount: '150000', currency: 'IDR' },
    ]);
    assert.deepEqual(shop.db.prepare('SELECT status FROM orders').all(), [{ status: 'paid' }]);
    shop.db.close();
  });
});
