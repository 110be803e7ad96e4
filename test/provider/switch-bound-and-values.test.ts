// Two of the ledger's neighbours (docs/money.md), on SQLite or (with test/support/with-postgres.sh) PostgreSQL: the
// bound on method switches counts switches only (failed attempts and partial payments are no switches), and the
// payments' values as shown add up to paidValue exactly.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Decimal } from 'decimal.js';
import { dataOf, errorOf } from '../support/envelope';
import { createTestProvider, type TestProvider } from '../support/provider';
import { readDeposit, type DepositView } from './deposit-helpers';

describe('switches counted as switches; values that add up', () => {
  let p: TestProvider;
  before(async () => {
    p = await createTestProvider();
  });
  after(async () => {
    await p.close();
  });

  const choose = (id: string, paymentMethod: string) =>
    p.app.request(`http://localhost/checkout/${id}/deposit`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ paymentMethod }),
    });
  const checkout = async (paymentMethod: string, inputAmount = 150000) => {
    const { id } = await dataOf<{ id: string }>(
      await p.signed('POST', '/v1/checkout', { inputCurrency: 'IDR', inputAmount }),
    );
    assert.equal((await choose(id, paymentMethod)).status, 201);
    return id;
  };

  it('20 declined wallet attempts leave every switch still to make', async () => {
    const id = await checkout('OVO');
    for (let i = 0; i < 20; i++) {
      const res = await p.bearer('POST', `/v1/deposit/${id}/attempts`, { outcome: 'declined' });
      assert.equal(res.status, 200, `attempt ${i + 1}: ${await res.clone().text()}`);
    }
    const switched = await choose(id, 'BCA_VA');
    assert.equal(switched.status, 200, (await switched.clone().json()).message);
  });

  it('20 partial payments leave every switch still to make, and the 21st switch is still refused', async () => {
    const id = await checkout('BCA_TRANSFER');
    for (let i = 0; i < 20; i++)
      assert.equal((await p.bearer('POST', `/v1/deposit/${id}/payments`, { amount: 1000 })).status, 200);
    for (let i = 0; i < 20; i++)
      assert.equal((await choose(id, i % 2 ? 'BCA_TRANSFER' : 'BCA_VA')).status, 200, `switch ${i + 1}`);
    const refused = await choose(id, 'QRIS');
    assert.equal(refused.status, 400);
    assert.match((await errorOf(refused)).message, /^paymentMethod: the payment method was changed 20 times already/);
  });

  it("three payments of 1 USDC on a rupiah checkout: the payments' values add up to paidValue", async () => {
    const id = await checkout('USDC-POLYGON');
    for (let i = 0; i < 3; i++)
      assert.equal((await p.bearer('POST', `/v1/deposit/${id}/payments`, { amount: 1 })).status, 200);
    const d: DepositView = await readDeposit(p, id);
    const values = d.payments.map((x) => x.value);
    assert.equal(
      values.reduce((sum, v) => sum.plus(v), new Decimal(0)).toNumber(),
      d.paidValue,
      `values ${values.join(' + ')} against paidValue ${d.paidValue}`,
    );
    // Each is within one unit of what it is worth, and a payment's figure does not move when another arrives.
    assert.ok(Math.max(...values) - Math.min(...values) <= 1, values.join(', '));
  });
});
