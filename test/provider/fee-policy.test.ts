// Fee policy per method kind (docs/indonesian-payments.md): QRIS is never surcharged, whatever feesPaidBy says, and
// a policy that passes the QRIS fee to the shopper is refused, naming the rule.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Checkout as WidgetCheckout, Deposit as WidgetDeposit } from '@kasir/checkout';
import type { CheckoutSession } from '../../server/provider/checkout/session';
import { checkMerchantOptions, loadMerchantConfig } from '../../server/merchant/config';
import { bodyOf, dataOf, type Envelope } from '../support/envelope';
import { createTestProvider, type TestProvider } from '../support/provider';

describe('fee policy per method kind', () => {
  let p: TestProvider;
  before(async () => {
    p = await createTestProvider();
  });
  after(async () => {
    await p.close();
  });

  const create = async (body: Record<string, unknown>) => {
    const res = await p.signed('POST', '/v1/checkout', body);
    const json = await bodyOf<Envelope<{ id: string }>>(res);
    assert.equal(res.status, 200, JSON.stringify(json));
    return json.data.id;
  };
  const widgetCheckout = async (id: string) =>
    dataOf<WidgetCheckout>(await p.app.request(`http://localhost/checkout/api/checkouts/${id}`));
  const totals = (c: WidgetCheckout, ...codes: string[]) =>
    codes.map((code) => {
      const m = c.methods.find((x) => x.code === code)!;
      return [code, m.fee, m.total];
    });

  it('QRIS costs the order amount with fees passed to the shopper (the others carry their fee)', async () => {
    const id = await create({ inputCurrency: 'IDR', outputAmount: 100000 });
    const c = await widgetCheckout(id);
    assert.equal(c.feesPaidBy, 'shopper');
    assert.deepEqual(totals(c, 'QRIS', 'BCA_VA', 'OVO'), [
      ['QRIS', '0', '100000'],
      ['BCA_VA', '4000', '104000'],
      ['OVO', '1523', '101523'],
    ]);
    const session = await dataOf<CheckoutSession>(await p.app.request(`http://localhost/checkout/${id}/session`));
    const qris = session.methods.find((m) => m.bankCode === 'QRIS')!;
    assert.deepEqual([qris.paymentAmount, qris.shopperFee], [100000, 0]);
    // The deposit asks for the order amount, and the widget shows no fee on it.
    const res = await p.app.request(`http://localhost/checkout/api/checkouts/${id}/deposit`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ method: 'QRIS' }),
    });
    const d = await dataOf<WidgetDeposit>(res);
    assert.deepEqual([d.amount, d.fee], ['100000', '0']);
  });

  it('takes the policy per kind: the kinds passed on carry their fee, the rest cost the order', async () => {
    const id = await create({
      inputCurrency: 'IDR',
      inputAmount: 150000,
      feesPaidBy: { va: 'shopper', ewallet: 'merchant' },
    });
    const c = await widgetCheckout(id);
    assert.equal(c.feesPaidBy, 'shopper');
    assert.equal(c.amount, '150000');
    assert.deepEqual(totals(c, 'BCA_VA', 'QRIS', 'OVO', 'BCA_TRANSFER'), [
      ['BCA_VA', '4000', '154000'],
      ['QRIS', '0', '150000'],
      ['OVO', '0', '150000'],
      ['BCA_TRANSFER', '0', '150000'],
    ]);
    const everyMerchant = await widgetCheckout(
      await create({ inputCurrency: 'IDR', outputAmount: 150000, feesPaidBy: 'merchant' }),
    );
    assert.equal(everyMerchant.feesPaidBy, 'merchant');
    assert.deepEqual(totals(everyMerchant, 'BCA_VA', 'OVO'), [
      ['BCA_VA', '0', '150000'],
      ['OVO', '0', '150000'],
    ]);
  });

  it('refuses QRIS as shopper, naming the rule', async () => {
    const res = await p.signed('POST', '/v1/checkout', {
      inputCurrency: 'IDR',
      outputAmount: 100000,
      feesPaidBy: { va: 'shopper', qris: 'shopper' },
    });
    assert.equal(res.status, 400);
    const body = (await res.json()) as { statusCode: number; error: string; message: string };
    assert.equal(body.statusCode, 400);
    assert.match(
      body.message,
      /^feesPaidBy\.qris: QRIS is never surcharged: Bank Indonesia rules that the QRIS MDR is borne by the merchant/,
    );
  });

  it('the merchant backend refuses QRIS as shopper at start, naming the rule (option and environment)', () => {
    assert.throws(
      () => checkMerchantOptions({ feesPaidBy: { va: 'shopper', qris: 'shopper' } }),
      /feesPaidBy\.qris: QRIS is never surcharged: Bank Indonesia/,
    );
    const env = {
      KASIR_BASE_URL: 'http://localhost:4000',
      KASIR_CLIENT_ID: 'id',
      KASIR_CLIENT_SECRET: 'secret',
      KASIR_ACCESS_TOKEN: 'token',
      KASIR_WEBHOOK_SECRET: 'whsec_' + Buffer.alloc(24).toString('base64'),
    };
    assert.throws(
      () => loadMerchantConfig({ ...env, KASIR_FEES_PAID_BY: 'va:shopper,qris:shopper' }),
      /KASIR_FEES_PAID_BY\.qris: QRIS is never surcharged/,
    );
    const perKind = loadMerchantConfig({ ...env, KASIR_FEES_PAID_BY: 'va:shopper,ewallet:shopper' });
    assert.deepEqual(perKind.feesPaidBy, { va: 'shopper', ewallet: 'shopper' });
    // One answer for every kind is fine: QRIS is simply not surcharged.
    assert.equal(checkMerchantOptions({ feesPaidBy: 'shopper' }).settings.feesPaidBy, 'shopper');
  });
});
