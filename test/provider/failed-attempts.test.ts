// Failed attempts (docs/indonesian-payments.md): declined, insufficient balance, a push not approved in time. The
// deposit stays pending; history "Payment failed" with the reason; lastFailure on the Deposit; webhook
// deposit.payment_failed; the widget API's Deposit carries the failure. On SQLite or (test:server:pg) PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Deposit as WidgetDeposit } from '@kasir/checkout';
import { bodyOf, dataOf, errorOf, type Envelope } from '../support/envelope';
import { createTestProvider, type TestProvider } from '../support/provider';
import { createFiat, outbox, readDeposit, type DepositView } from './deposit-helpers';

describe('failed attempts', () => {
  let p: TestProvider;
  before(async () => {
    p = await createTestProvider();
  });
  after(async () => {
    await p.close();
  });

  const attempt = (depositId: string, body: unknown) => p.signed('POST', `/v1/deposit/${depositId}/attempts`, body);

  it('a declined attempt leaves the deposit pending, with a history entry, lastFailure and the deposit.payment_failed webhook', async () => {
    const d = await createFiat(p, { paymentMethod: 'OVO' });
    const res = await attempt(d.depositId, { outcome: 'declined' });
    assert.equal(res.status, 200);
    const failed = await dataOf<DepositView>(res);
    assert.equal(failed.status, 'pending');
    assert.equal(failed.version, d.version + 1);
    const last = failed.activityHistory.at(-1)!;
    assert.deepEqual(
      [last.activity, last.status, last.description],
      ['Payment Failed', 'pending', 'Payment failed: declined'],
    );
    assert.deepEqual(failed.lastFailure, { reason: 'declined', failedAt: last.updatedAt });
    assert.deepEqual((await readDeposit(p, d.depositId)).lastFailure, failed.lastFailure);
    const events = await outbox(p, d.depositId);
    assert.deepEqual(
      events.map((e) => e.type),
      ['deposit.payment_failed'],
    );
    assert.equal(events[0].payload.status, 'pending');
    assert.deepEqual(events[0].payload.data.lastFailure, failed.lastFailure);
  });

  it('one webhook per attempt, each with its reason; a payment after it clears lastFailure', async () => {
    const d = await createFiat(p, { paymentMethod: 'GOPAY' });
    for (const outcome of ['insufficient_balance', 'timeout'])
      assert.equal((await attempt(d.depositId, { outcome })).status, 200);
    const read = await readDeposit(p, d.depositId);
    assert.deepEqual(
      read.activityHistory.slice(-2).map((a) => a.description),
      ['Payment failed: insufficient balance', 'Payment failed: not approved in time'],
    );
    assert.equal(read.lastFailure?.reason, 'timeout');
    const events = await outbox(p, d.depositId);
    assert.deepEqual(
      events.map((e) => [e.type, e.payload.data.lastFailure?.reason]),
      [
        ['deposit.payment_failed', 'insufficient_balance'],
        ['deposit.payment_failed', 'timeout'],
      ],
    );
    const paid = await dataOf<DepositView>(await p.signed('POST', `/v1/deposit/${d.depositId}/payments`, {}));
    assert.equal(paid.status, 'completed');
    assert.equal(paid.lastFailure, undefined);
  });

  it('refuses what it cannot record: an unknown outcome, an unknown id, a deposit no longer pending', async () => {
    const d = await createFiat(p);
    const bad = await errorOf(await attempt(d.depositId, { outcome: 'stolen' }));
    assert.equal(bad.statusCode, 400);
    assert.match(bad.message, /outcome/);
    assert.deepEqual(await errorOf(await attempt('no-such-deposit', { outcome: 'declined' })), {
      statusCode: 400,
      error: 'Bad Request',
      message: 'Deposit not found',
    });
    await p.signed('PATCH', `/v1/deposit/${d.depositId}`, { status: 'completed' });
    const done = await errorOf(await attempt(d.depositId, { outcome: 'declined' }));
    assert.equal(done.statusCode, 400);
    assert.match(done.message, /^Deposit is completed/);
    assert.deepEqual(
      (await outbox(p, d.depositId)).map((e) => e.type),
      ['deposit.completed'],
    );
  });

  it('outside sandbox mode: 403', async () => {
    const prod = await createTestProvider({ sandbox: false });
    try {
      const d = await createFiat(prod);
      assert.equal(
        (await errorOf(await prod.signed('POST', `/v1/deposit/${d.depositId}/attempts`, { outcome: 'declined' })))
          .statusCode,
        403,
      );
      assert.equal((await readDeposit(prod, d.depositId)).lastFailure, undefined);
    } finally {
      await prod.close();
    }
  });

  it("the hosted checkout's widget API Deposit carries the failure (reason, time) while pending", async () => {
    const res = await p.signed('POST', '/v1/checkout', { inputCurrency: 'IDR', inputAmount: 150000 });
    const { id } = (await bodyOf<Envelope<{ id: string }>>(res)).data;
    const post = (path: string, body: unknown) =>
      p.app.request(`http://localhost${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
    const chosen = await dataOf<WidgetDeposit>(await post(`/checkout/api/checkouts/${id}/deposit`, { method: 'DANA' }));
    assert.equal(chosen.failure, undefined);
    await attempt(id, { outcome: 'insufficient_balance' });
    const d = await dataOf<WidgetDeposit>(await p.app.request(`http://localhost/checkout/api/checkouts/${id}/deposit`));
    assert.equal(d.status, 'pending');
    assert.equal(d.failure?.reason, 'insufficient_balance');
    assert.ok(Date.parse(d.failure!.failedAt) > 0);
  });
});
