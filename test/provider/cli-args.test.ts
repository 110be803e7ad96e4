// kasir-sandbox's arguments as a terminal user types them: an option before the command
// (`--data-dir D pay latest`) and a negative amount (`--amount -5`, answered by the amount rule, not parseArgs' own
// "ambiguous" text).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runSandboxCommand, startTestSandbox, type TestSandbox } from '../support/provider';

describe('kasir-sandbox: options before the command, negative values', () => {
  let running: TestSandbox;
  before(async () => {
    running = await startTestSandbox('kasir-cli-args-');
  });
  after(() => running.stop());

  // No KASIR_DATA_DIR: the data dir comes from --data-dir alone. Not spawnSync: the sandbox answers from this process.
  const cli = (args: string[]) => runSandboxCommand(args, { ...process.env, KASIR_DATA_DIR: undefined });
  const pendingDeposit = async () => {
    const { url, credentials } = running.sandbox;
    const res = await fetch(`${url}/v1/deposit/crypto`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${credentials.accessToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ inputCurrency: 'USDC-POLYGON', inputAmount: 10 }),
    });
    assert.equal(res.status, 201, await res.clone().text());
    return ((await res.json()) as { data: { depositId: string } }).data.depositId;
  };

  it('--data-dir D pay latest pays the newest pending deposit of the sandbox in D', async () => {
    const id = await pendingDeposit();
    const paid = await cli(['--data-dir', running.sandbox.dataDir, 'pay', 'latest', '--json']);
    assert.equal(paid.status, 0, paid.stderr);
    const deposit = JSON.parse(paid.stdout) as { depositId: string; status: string };
    assert.deepEqual([deposit.depositId, deposit.status], [id, 'completed']);
    const listed = await cli(['--data-dir=' + running.sandbox.dataDir, '--json', 'deposits', '--limit', '1']);
    assert.equal(listed.status, 0, listed.stderr);
    assert.equal((JSON.parse(listed.stdout) as Array<{ depositId: string }>)[0]?.depositId, id);
  });

  it('--amount -5 answers the amount rule, as --amount=-5 does', async () => {
    const id = await pendingDeposit();
    for (const args of [
      ['pay', id, '--amount', '-5'],
      ['pay', id, '--amount=-5'],
      ['--data-dir', running.sandbox.dataDir, 'pay', id, '--amount', '-5'],
    ]) {
      const refused = await cli([...args, '--data-dir', running.sandbox.dataDir]);
      assert.equal(refused.status, 1);
      assert.match(
        refused.stderr,
        /^kasir-sandbox: --amount: must be a positive decimal number like 150000 or 12\.5, not "-5"\n$/,
        args.join(' '),
      );
    }
    const deposits = await cli(['deposits', '--limit', '-1', '--data-dir', running.sandbox.dataDir]);
    assert.match(deposits.stderr, /--limit: must be a whole number from 1 to 100, not "-1"/);
  });
});
