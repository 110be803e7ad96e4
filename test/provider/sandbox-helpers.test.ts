// startSandbox's result drives payments from a shop's own tests (docs/design.md, "Seeing and testing an integration"):
// pay(id), expire(id), webhooks(), and startDelivery(webhookUrl) for a receiver that listens only after the sandbox
// (port 0).
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startTestSandbox, type TestSandbox } from '../support/provider';

describe("startSandbox's pay, expire, webhooks and startDelivery(webhookUrl)", () => {
  let running: TestSandbox;
  const hooks: string[] = [];
  const receiver = createServer((req, res) => {
    let body = '';
    req
      .setEncoding('utf8')
      .on('data', (d: string) => (body += d))
      .on('end', () => {
        hooks.push((JSON.parse(body) as { type: string }).type);
        res.writeHead(204).end();
      });
  });
  before(async () => {
    running = await startTestSandbox('kasir-helpers-');
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  });
  after(async () => {
    receiver.closeAllConnections();
    receiver.close();
    await running.stop();
  });

  const deposit = async () => {
    const { url, credentials } = running.sandbox;
    const res = await fetch(`${url}/v1/deposit/fiat`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${credentials.accessToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        inputCurrency: 'IDR',
        inputAmount: 150000,
        outputCurrency: 'IDR',
        balanceType: 'fiat',
        paymentMethod: 'BCA_VA',
      }),
    });
    return ((await res.json()) as { data: { depositId: string } }).data.depositId;
  };

  it('sends to the receiver given to startDelivery; pays the newest pending deposit, expires one, and lists the attempts', async () => {
    const { sandbox } = running;
    await sandbox.startDelivery(`http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`);
    const older = await deposit();
    const newest = await deposit();
    const paid = await sandbox.pay('latest');
    assert.deepEqual([paid.depositId, paid.status], [newest, 'completed']);
    const expired = await sandbox.expire(older);
    assert.deepEqual([expired.depositId, expired.status], [older, 'expired']);

    const deadline = Date.now() + 10_000;
    let attempts = await sandbox.webhooks();
    while (attempts.length < 2 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      attempts = await sandbox.webhooks();
    }
    assert.deepEqual(
      attempts.map((a) => [a.event, a.depositId, a.status]),
      [
        ['deposit.expired', older, 204],
        ['deposit.completed', newest, 204],
      ],
    );
    assert.deepEqual(hooks.sort(), ['deposit.completed', 'deposit.expired']);
    assert.deepEqual(
      (await sandbox.webhooks({ depositId: newest })).map((a) => a.event),
      ['deposit.completed'],
    );

    // Each attempt keeps the URL it went to: a webhook URL changed since does not rewrite the list.
    const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    await sandbox.startDelivery('http://127.0.0.1:9/elsewhere');
    assert.deepEqual([...new Set((await sandbox.webhooks()).map((a) => a.url))], [hook]);
    await sandbox.startDelivery(hook);
  });

  it("rejects with the service's message, and a bad webhookUrl", async () => {
    const { sandbox } = running;
    const id = await deposit();
    await sandbox.pay(id);
    await assert.rejects(
      sandbox.pay(id),
      /400 status: deposit is completed; only a pending deposit can move to completed/,
    );
    await assert.rejects(sandbox.expire('no-such-deposit'), /No deposit no-such-deposit/);
    await assert.rejects(
      sandbox.startDelivery('ftp://shop.example/hook'),
      /Invalid webhookUrl: must be an http:\/\/ or https:\/\/ URL/,
    );
  });
});
