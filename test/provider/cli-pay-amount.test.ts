// `kasir-sandbox pay <id> --amount X` and startSandbox's pay(id, {amount}) record a payment of X through the payments
// endpoint (docs/design.md, "Payments that do not go as planned" and "Seeing and testing an integration":
// POST /v1/deposit/:depositId/payments).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runSandboxCommand, startTestSandbox, type TestSandbox } from '../support/provider';

type Paid = { depositId: string; status: string; paidAmount: number; remainingAmount: number };

describe('a payment of a given amount', () => {
  let running: TestSandbox;
  before(async () => {
    running = await startTestSandbox('kasir-pay-amount-');
  });
  after(() => running.stop());

  const cryptoDeposit = async (inputAmount: number) => {
    const { url, credentials } = running.sandbox;
    const res = await fetch(`${url}/v1/deposit/crypto`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${credentials.accessToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ inputCurrency: 'USDC-POLYGON', inputAmount }),
    });
    assert.equal(res.status, 201, await res.clone().text());
    return ((await res.json()) as { data: { depositId: string } }).data.depositId;
  };
  const cli = (args: string[]) => runSandboxCommand(args, { ...process.env, KASIR_DATA_DIR: running.sandbox.dataDir });

  it('kasir-sandbox pay --amount records a partial payment, then the rest completes it', async () => {
    const id = await cryptoDeposit(10);
    const partial = await cli(['pay', id, '--amount', '4', '--json']);
    assert.equal(partial.status, 0, partial.stderr);
    const first = JSON.parse(partial.stdout) as Paid;
    assert.deepEqual([first.status, first.paidAmount, first.remainingAmount], ['pending', 4, 6]);
    const rest = await cli(['pay', id, '--amount', '6']);
    assert.equal(rest.status, 0, rest.stderr);
    assert.match(rest.stdout, new RegExp(`^${id}: paid 6 .*; status completed`));
  });

  it("startSandbox's pay(id, {amount}) does the same", async () => {
    const id = await cryptoDeposit(10);
    const paid = (await running.sandbox.pay(id, { amount: 2.5 })) as unknown as Paid;
    assert.deepEqual([paid.status, paid.paidAmount, paid.remainingAmount], ['pending', 2.5, 7.5]);
    const done = await running.sandbox.pay(id, { amount: '7.5' });
    assert.equal(done.status, 'completed');
  });
});
