// Failed attempts in the merchant backend (docs/indonesian-payments.md): onPaymentFailed once per attempt (a resend
// of the same webhook runs nothing again), with the reason and time; the widget API's Deposit carries the failure.
// Attempts made with startSandbox().decline() and the real `kasir-sandbox decline` command.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Checkout, Deposit } from '@kasir/checkout';
import type { FailedPayment, RunningMerchant } from '../../server/merchant/index';
import { SandboxClient } from '../../server/provider/sandbox/client';
import { commandArgs } from '../support/commands';
import { call, merchantApp, runningMerchant, startUpstream, waitFor, type Envelope, type Upstream } from './support';

const ROOT = join(import.meta.dirname, '../..');

describe('failed attempts: onPaymentFailed', () => {
  let up: Upstream;
  let merchant: RunningMerchant;
  const failed: FailedPayment[] = [];

  before(async () => {
    up = await startUpstream();
    merchant = await runningMerchant(up, {
      onPaymentFailed: (e: FailedPayment) => {
        failed.push(e);
      },
    });
  });
  after(async () => {
    await merchant.stop();
    await up.close();
  });

  const api = (method: string, path: string, body?: unknown) =>
    fetch(`${merchant.url}/api${path}`, {
      method,
      headers: method === 'GET' ? {} : { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const cli = (...args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [...commandArgs('kasir-sandbox'), ...args, '--data-dir', up.provider.dataDir],
        { cwd: ROOT, encoding: 'utf8', timeout: 30_000 },
        (err, stdout, stderr) =>
          resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });

  it('runs once per attempt, with the reason; the widget shows the failure; a resent webhook runs nothing again', async () => {
    const { data: checkout } = (await (
      await api('POST', '/checkouts', { amount: '150000', currency: 'IDR' })
    ).json()) as Envelope<Checkout>;
    assert.equal((await api('POST', `/checkouts/${checkout.id}/deposit`, { method: 'DANA' })).status, 201);

    const declined = await up.provider.decline(checkout.id);
    assert.equal(declined.status, 'pending');
    await waitFor(() => failed.length === 1);
    assert.deepEqual(
      [failed[0].checkoutId, failed[0].reason, failed[0].failedAt],
      [checkout.id, 'declined', declined.lastFailure!.failedAt],
    );
    assert.equal(failed[0].deposit.status, 'pending');
    const shown = await waitFor(async () => {
      const { data } = (await (await api('GET', `/checkouts/${checkout.id}/deposit`)).json()) as Envelope<Deposit>;
      return data.failure ? data : undefined;
    });
    assert.deepEqual([shown!.status, shown!.failure!.reason], ['pending', 'declined']);

    const run = await cli('decline', checkout.id, '--reason', 'insufficient_balance');
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /payment failed \(insufficient_balance/);
    await waitFor(() => failed.length === 2);
    assert.equal(failed[1].reason, 'insufficient_balance');
    assert.notEqual(failed[1].eventId, failed[0].eventId);

    const sandbox = new SandboxClient(up.provider.credentials);
    const resent = await sandbox.resend(checkout.id);
    // The backend answers a delivery once it has processed it (any hook ran before its 2xx).
    await waitFor(async () =>
      (await sandbox.webhooks({ depositId: checkout.id })).some((a) => a.deliveryId === resent.id && a.status === 200),
    );
    assert.equal(failed.length, 2, 'the same attempt, resent, runs the hook no second time');
  });

  it("a redirect wallet comes back to the page the element is on, or to the shop's returnUrl when it has one", async () => {
    const sandbox = new SandboxClient(up.provider.credentials);
    for (const [options, expected] of [
      [{ allowedOrigins: ['http://localhost'] }, 'http://localhost/cart?x=1'],
      [
        { returnUrl: 'https://shop.example/thanks', allowedOrigins: ['http://localhost'] },
        'https://shop.example/thanks',
      ],
    ] as const) {
      const app = merchantApp(up, {}, options);
      const { json } = await call<Envelope<Checkout>>(app, 'POST', '/api/checkouts', {
        amount: '150000',
        currency: 'IDR',
      });
      const id = json.data.id;
      assert.equal((await call(app, 'POST', `/api/checkouts/${id}/deposit`, { method: 'DANA' })).status, 201);
      const again = await call<Envelope<Deposit>>(app, 'POST', `/api/checkouts/${id}/deposit`, {
        method: 'DANA',
        returnUrl: 'http://localhost/cart?x=1',
      });
      assert.equal(again.status, 200, again.text);
      assert.equal((await sandbox.deposit(id)).paymentFiat.returnUrl, expected);
      const foreign = await call(app, 'POST', `/api/checkouts/${id}/deposit`, {
        method: 'DANA',
        returnUrl: 'https://evil.example/',
      });
      assert.equal(foreign.status, 400);
    }
  });

  it('kasir-sandbox decline refuses an unknown reason, naming the choices', async () => {
    const run = await cli('decline', 'latest', '--reason', 'stolen');
    assert.equal(run.code, 1);
    assert.match(run.stderr, /--reason: must be declined, insufficient_balance or timeout/);
  });
});
