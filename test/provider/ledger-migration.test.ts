// Migration 013 (the payment ledger, docs/money.md) on deposits written before it: a database is taken back to 012
// (the ledger's columns and table dropped), its rows left as the code before the ledger kept them (paid_amount carried
// over at each switch, in the current currency), then migrated again. The backfill must keep every figure the
// deposits showed, and value the payments sensibly in the order's currency. On SQLite or PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { migrations } from '../../server/provider/db/migrations/index';
import { readDepositById } from '../../server/provider/deposits/service';
import { dataOf } from '../support/envelope';
import { createTestProvider, type TestProvider } from '../support/provider';
import { createFiat, type DepositView } from './deposit-helpers';

describe('migration 013: the payment ledger backfilled from the rows before it', () => {
  let p: TestProvider;
  before(async () => {
    p = await createTestProvider();
  });
  after(async () => {
    await p.close();
  });

  const request = (method: string, path: string, body?: unknown) =>
    p.app.request(`http://localhost${path}`, {
      method,
      headers: { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const pay = async (id: string, body: unknown) =>
    dataOf<DepositView>(await p.bearer('POST', `/v1/deposit/${id}/payments`, body));
  const checkout = async (paymentMethod: string) => {
    const { id } = await dataOf<{ id: string }>(
      await p.signed('POST', '/v1/checkout', { inputCurrency: 'IDR', inputAmount: 150000 }),
    );
    return dataOf<DepositView>(await request('POST', `/checkout/${id}/deposit`, { paymentMethod }));
  };
  const figures = (d: DepositView) => [
    d.status,
    d.inputCurrency,
    d.paidAmount,
    d.remainingAmount,
    d.overpaidAmount,
    d.payments.map((x) => [x.amount, x.currency]),
  ];

  it("keeps each deposit's figures and values its payments in the order's currency", async () => {
    const transfer = await createFiat(p, { paymentMethod: 'BCA_TRANSFER' });
    await pay(transfer.depositId, { amount: 100000 });
    const usdc = await checkout('USDC-POLYGON');
    await pay(usdc.depositId, { amount: Number((usdc.inputAmount * 0.6).toFixed(6)) });
    const switched = await checkout('USDC-POLYGON');
    await pay(switched.depositId, { amount: Number((switched.inputAmount * 0.6).toFixed(6)) });
    await request('POST', `/checkout/${switched.depositId}/deposit`, { paymentMethod: 'BCA_VA' });
    const ids = [transfer.depositId, usdc.depositId, switched.depositId];
    const read = async () => Promise.all(ids.map(async (id) => (await readDepositById(p.deps, id))!.view));
    const before = await read();

    const ledger = migrations['013_payment_ledger'];
    await ledger.down!(p.deps.db);
    await ledger.up(p.deps.db);
    const after = await read();

    for (const [i, d] of after.entries()) assert.deepEqual(figures(d), figures(before[i]), ids[i]);
    const [t, u, s] = after;
    assert.deepEqual([t.orderCurrency, t.paidValue, t.remainingValue], ['IDR', 100000, t.inputAmount - 100000]);
    // A USDC deposit of a 150,000 IDR checkout: the order in IDR, 60 % of it paid.
    assert.deepEqual([u.orderCurrency, u.paidValue, u.remainingValue], ['IDR', 90000, 60000]);
    // Switched to a VA after 60 % in USDC: the USDC payment is worth what the switch carried over.
    assert.equal(s.orderCurrency, 'IDR');
    assert.equal(s.paidValue, before[2].paidAmount);
    assert.equal(s.payments[0].value, before[2].paidAmount);
    // And the ledger goes on: the VA still takes exactly what it asks, and completes the deposit.
    const done = await pay(s.depositId, { amount: s.remainingAmount });
    assert.deepEqual([done.status, done.overpaidAmount, done.remainingValue], ['completed', 0, 0]);
  });
});
