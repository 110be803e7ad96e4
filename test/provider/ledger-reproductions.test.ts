// Reproductions of four ways money was miscounted (a review of commit 9dc12f4), each named after what went wrong,
// on SQLite or (with test/support/with-postgres.sh) PostgreSQL. Money is counted by the payment ledger (docs/money.md):
// each payment as it arrived, its value toward the order, the rest priced inside the switch's locked transaction.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Checkout as WidgetCheckout } from '@kasir/checkout';
import { chooseMethod, requireCheckout } from '../../server/provider/deposits/checkout';
import { recordPayment } from '../../server/provider/deposits/payments';
import type { ProviderDeps } from '../../server/provider/instance/deps';
import { dataOf, errorOf } from '../support/envelope';
import { createTestProvider, testDatabaseUrl, type TestProvider } from '../support/provider';
import { createFiat, outbox, readDeposit, type DepositView } from './deposit-helpers';

const ORDER = 150000;

describe("every rupiah accounted for (the red team's reproductions)", () => {
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
      headers: method === 'GET' ? {} : { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const pay = (depositId: string, body?: unknown) => p.bearer('POST', `/v1/deposit/${depositId}/payments`, body);
  const paid = async (depositId: string, body?: unknown) => dataOf<DepositView>(await pay(depositId, body));
  const choose = async (id: string, paymentMethod: string) =>
    dataOf<DepositView>(await request('POST', `/checkout/${id}/deposit`, { paymentMethod }));
  const checkoutWith = async (paymentMethod: string) => {
    const { id } = await dataOf<{ id: string }>(
      await p.signed('POST', '/v1/checkout', { inputCurrency: 'IDR', inputAmount: ORDER }),
    );
    await choose(id, paymentMethod);
    return id;
  };
  const sum = (d: DepositView) => d.payments.reduce((s, x) => s + x.amount, 0);
  /** The figures a shop reconciles with: those of a read, a webhook and an answer must be the same. */
  const figures = (d: DepositView) => [
    d.status,
    d.paidAmount,
    d.remainingAmount,
    d.overpaidAmount,
    d.paidValue,
    d.remainingValue,
    d.overpaidValue,
    d.orderCurrency,
  ];

  it('item 1, the rest is priced from a stale read: a partial payment committing while the shopper switches leaves the rest at what the order lacks', async () => {
    // The payment is started between chooseMethod's read of the deposit and its switch (at its first look at the clock,
    // once the deposit was read): the rest must not be priced from that read; on PostgreSQL it then races the
    // switch for real, so a few rounds are run there.
    for (let round = 0; round < (testDatabaseUrl ? 8 : 3); round++) {
      const id = await checkoutWith('BCA_TRANSFER');
      const checkout = await requireCheckout(p.deps, id);
      let payment: Promise<DepositView> | undefined;
      const racing: ProviderDeps = {
        ...p.deps,
        now: () => {
          payment ??= recordPayment(p.deps, id, { amount: 80000, method: 'BCA_TRANSFER' });
          return p.deps.now();
        },
      };
      await chooseMethod(racing, checkout, 'BCA_VA');
      await payment;
      const d = await readDeposit(p, id);
      assert.deepEqual(
        [d.status, d.paidAmount, d.remainingAmount, d.paidValue, d.remainingValue],
        ['pending', 80000, ORDER - 80000, 80000, ORDER - 80000],
        `round ${round}`,
      );
      const done = await paid(id, { amount: d.remainingAmount });
      assert.deepEqual([done.status, done.overpaidAmount, done.overpaidValue, sum(done)], ['completed', 0, 0, ORDER]);
      assert.ok(Math.abs(done.paidValue - ORDER) <= 1);
      const events = await outbox(p, id);
      assert.deepEqual(figures(events.at(-1)!.payload.data), figures(await readDeposit(p, id)));
    }
  });

  it('item 2, a payment carries no currency: IDR still arriving to the transfer account after a switch to USDC is recorded as IDR to that transfer', async () => {
    const id = await checkoutWith('BCA_TRANSFER');
    await paid(id, { amount: 50000 });
    const usdc = await choose(id, 'USDC-POLYGON');
    const late = await paid(id, { amount: 30000, currency: 'IDR', method: 'BCA_TRANSFER' });
    assert.deepEqual(
      [late.status, late.overpaidAmount, ...late.payments.map((x) => [x.amount, x.currency])],
      ['pending', 0, [50000, 'IDR'], [30000, 'IDR']],
    );
    assert.deepEqual(
      late.payments.map((x) => x.method),
      ['BCA_TRANSFER', 'BCA_TRANSFER'],
    );
    assert.deepEqual(
      [usdc.inputCurrency, usdc.orderCurrency, usdc.paidValue, usdc.remainingValue],
      ['USDC-POLYGON', 'IDR', 50000, ORDER - 50000],
    );
    assert.deepEqual([late.paidValue, late.remainingValue], [80000, ORDER - 80000]);
    // The USDC still asked is its price of what the order lacks: 70,000 of the 100,000 it was priced for.
    assert.ok(
      Math.abs(late.remainingAmount - usdc.remainingAmount * 0.7) <= 0.000002,
      `${late.remainingAmount} of ${usdc.remainingAmount}`,
    );
    // The currency alone names the old method too; a method or currency the deposit never had is refused.
    const more = await paid(id, { amount: 1000, currency: 'IDR' });
    assert.deepEqual(more.payments.at(-1)!.method, 'BCA_TRANSFER');
    for (const body of [
      { amount: 1000, method: 'BNI_VA' },
      { amount: 1000, currency: 'USD' },
      { amount: 1000, currency: 'USDC-POLYGON', method: 'BCA_TRANSFER' },
    ]) {
      const err = await errorOf(await pay(id, body));
      assert.deepEqual(
        [err.statusCode, err.message],
        [400, 'Payment does not match the deposit'],
        JSON.stringify(body),
      );
    }
    // The widget API shows the rupiah that arrived as rupiah.
    const widget = await dataOf<WidgetCheckout>(await request('GET', `/checkout/api/checkouts/${id}`));
    assert.deepEqual(widget.deposit!.received, [{ amount: '81000', currency: 'IDR' }]);
    const done = await paid(id);
    assert.deepEqual(
      [done.status, done.overpaidAmount, done.overpaidValue, done.payments.at(-1)!.currency],
      ['completed', 0, 0, 'USDC-POLYGON'],
    );
    assert.ok(Math.abs(done.paidValue - ORDER) <= 1, String(done.paidValue));
  });

  it('item 3, what arrived is not what is shown: 100,000 IDR to a transfer, then a VA asks 50,000, steady over switches back and forth; paying it completes at 150,000', async () => {
    const id = await checkoutWith('BCA_TRANSFER');
    await paid(id, { amount: 100000 });
    const va = await choose(id, 'BCA_VA');
    assert.deepEqual(
      [va.paidAmount, va.remainingAmount, va.inputAmount, va.paidValue, va.remainingValue],
      [100000, 50000, ORDER, 100000, 50000],
    );
    for (const method of ['BRI_TRANSFER', 'BCA_VA', 'BNI_VA', 'MANDIRI_TRANSFER', 'BCA_VA']) {
      const d = await choose(id, method);
      const code = Number(d.paymentFiat.uniqueCode ?? 0);
      assert.deepEqual([d.paidAmount, d.remainingAmount], [100000, 50000 + code], method);
    }
    const widget = await dataOf<WidgetCheckout>(await request('GET', `/checkout/api/checkouts/${id}`));
    assert.deepEqual([widget.deposit!.paidAmount, widget.deposit!.remainingAmount], ['100000', '50000']);
    const done = await paid(id, { amount: 50000 });
    assert.deepEqual(
      [done.status, done.paidAmount, done.overpaidAmount, done.paidValue, sum(done)],
      ['completed', ORDER, 0, ORDER, ORDER],
    );
  });

  it('item 5, payments have no upper bound: {"amount":1e308} twice is a 400 naming amount, and no figure of an answer or webhook is ever null', async () => {
    const d = await createFiat(p, { paymentMethod: 'BCA_TRANSFER' });
    for (let i = 0; i < 2; i++) {
      const err = await errorOf(await pay(d.depositId, { amount: 1e308 }));
      assert.equal(err.statusCode, 400);
      assert.match(err.message, /^amount: IDR amounts are at most 1000000000000$/);
    }
    assert.deepEqual((await readDeposit(p, d.depositId)).payments, []);
    await p.signed('PATCH', `/v1/deposit/${d.depositId}`, { status: 'expired' });
    const answers = [await paid(d.depositId, { amount: 1e12 }), await paid(d.depositId, { amount: 1e12 })];
    const nulls = (value: unknown, path: string): string[] =>
      value === null
        ? [path]
        : typeof value === 'object'
          ? Object.entries(value as object).flatMap(([k, v]) => nulls(v, `${path}.${k}`))
          : [];
    const events = await outbox(p, d.depositId);
    assert.deepEqual(
      events.map((e) => e.type),
      ['deposit.expired', 'deposit.paid_late', 'deposit.paid_late'],
    );
    for (const view of [...answers, await readDeposit(p, d.depositId), ...events.map((e) => e.payload.data)])
      assert.deepEqual(nulls(view, 'deposit'), []);
    assert.equal(answers[1].paidAmount, 2e12);
  });
});
