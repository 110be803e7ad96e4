// kasir-sandbox pay --currency/--method and startSandbox's pay(id, {amount, currency, method}) (docs/money.md): money
// still arriving to the method a checkout's deposit had before a switch is recorded as it arrived.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runSandboxCommand, signHeaders, startTestSandbox, type TestSandbox } from '../support/provider';

type Payments = {
  status: string;
  inputCurrency: string;
  payments: Array<{ amount: number; currency: string; method: string }>;
};

describe('a payment to an earlier method, from the command and startSandbox', () => {
  let running: TestSandbox;
  before(async () => {
    running = await startTestSandbox('kasir-pay-method-');
  });
  after(() => running.stop());

  const post = async (path: string, body: unknown, signed = true) => {
    const { url, credentials } = running.sandbox;
    const text = JSON.stringify(body);
    const res = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: {
        ...(signed ? signHeaders(credentials.clientId, credentials.clientSecret, 'POST', path, text) : {}),
        'Content-Type': 'application/json',
      },
      body: text,
    });
    assert.ok(res.status < 300, await res.clone().text());
    return ((await res.json()) as { data: { id: string } }).data;
  };
  const cli = (args: string[]) => runSandboxCommand(args, { ...process.env, KASIR_DATA_DIR: running.sandbox.dataDir });

  it('a transfer paid in part, a switch to USDC, then rupiah to the transfer account: recorded in IDR to BCA_TRANSFER', async () => {
    const { id } = await post('/v1/checkout', { inputCurrency: 'IDR', inputAmount: 150000 });
    await post(`/checkout/${id}/deposit`, { paymentMethod: 'BCA_TRANSFER' }, false);
    await running.sandbox.pay(id, { amount: 50000 });
    await post(`/checkout/${id}/deposit`, { paymentMethod: 'USDC-POLYGON' }, false);
    const paid = await cli(['pay', id, '--amount', '30000', '--method', 'BCA_TRANSFER', '--json']);
    assert.equal(paid.status, 0, paid.stderr);
    const d = JSON.parse(paid.stdout) as Payments;
    assert.deepEqual(
      [d.status, d.inputCurrency, d.payments.at(-1)],
      ['pending', 'USDC-POLYGON', { ...d.payments.at(-1), amount: 30000, currency: 'IDR', method: 'BCA_TRANSFER' }],
    );
    const more = (await running.sandbox.pay(id, { amount: 1000, currency: 'IDR' })) as unknown as Payments;
    assert.deepEqual([more.payments.at(-1)!.currency, more.payments.at(-1)!.method], ['IDR', 'BCA_TRANSFER']);
    await assert.rejects(
      running.sandbox.pay(id, { amount: 1000, method: 'BNI_VA' }),
      /Payment does not match the deposit/,
    );
  });
});
