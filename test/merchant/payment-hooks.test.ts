// docs/design.md, "Payments that do not go as planned" in the merchant backend: onDepositPartiallyPaid and
// onDepositPaidLate beside onDepositCompleted (with paidAmount and overpaidAmount) and onDepositExpired (with
// paidAmount), each once per event across redeliveries and a restart on the same data dir; the widget API's paid
// fields; the sandbox pay route with an amount. Webhooks are the sandbox's own deliveries to a running merchant
// backend.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Checkout, Deposit } from '@kasir/checkout';
import { webhookHeaders } from '../../server/common/standard-webhooks';
import { merchantStateFile } from '../../server/merchant/config';
import type {
  CompletedDeposit,
  ExpiredDeposit,
  PaidLateDeposit,
  PartiallyPaidDeposit,
  RunningMerchant,
} from '../../server/merchant/index';
import { call, merchantApp, runningMerchant, startUpstream, waitFor, type Envelope, type Upstream } from './support';

describe('payment hooks (docs/design.md, "Payments that do not go as planned")', () => {
  let up: Upstream;
  let merchant: RunningMerchant;
  let dataDir: string;
  const partial: PartiallyPaidDeposit[] = [];
  const late: PaidLateDeposit[] = [];
  const completed: CompletedDeposit[] = [];
  const expired: ExpiredDeposit[] = [];
  const hooks = {
    onDepositPartiallyPaid: (e: PartiallyPaidDeposit) => {
      partial.push(e);
    },
    onDepositPaidLate: (e: PaidLateDeposit) => {
      late.push(e);
    },
    onDepositCompleted: (e: CompletedDeposit) => {
      completed.push(e);
    },
    onDepositExpired: (e: ExpiredDeposit) => {
      expired.push(e);
    },
  };

  before(async () => {
    up = await startUpstream();
    dataDir = mkdtempSync(join(tmpdir(), 'kasir-payment-hooks-'));
    merchant = await runningMerchant(up, hooks, { dataDir });
  });
  after(async () => {
    await merchant.stop();
    await up.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const api = (method: string, path: string, body?: unknown) =>
    fetch(`${merchant.url}/api${path}`, {
      method,
      headers: method === 'GET' ? {} : { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const newCheckout = async (method: string, amount = '150000') => {
    const { data } = (await (
      await api('POST', '/checkouts', { amount, currency: 'IDR' })
    ).json()) as Envelope<Checkout>;
    assert.equal((await api('POST', `/checkouts/${data.id}/deposit`, { method })).status, 201);
    return data.id;
  };
  const pay = async (id: string, amount?: string) => {
    const res = await api('POST', `/sandbox/checkouts/${id}/pay`, amount === undefined ? undefined : { amount });
    assert.equal(res.status, 200, await res.clone().text());
    return ((await res.json()) as Envelope<Deposit>).data;
  };

  it('a short bank transfer: onDepositPartiallyPaid once per payment, with the payment and what is still due; the widget shows it', async () => {
    const id = await newCheckout('BCA_TRANSFER');
    const first = await pay(id, '50000');
    assert.deepEqual(
      [first.status, first.paidAmount, first.overpaidAmount, first.paidLate],
      ['pending', '50000', '0', false],
    );
    const due = Number(first.amount);
    assert.equal(first.remainingAmount, String(due - 50000));
    await waitFor(() => partial.length === 1);
    assert.deepEqual(
      [partial[0].checkoutId, partial[0].paidAmount, partial[0].remainingAmount],
      [id, '50000', String(due - 50000)],
    );
    assert.deepEqual(
      [partial[0].payment.amount, partial[0].payment.currency, partial[0].payment.late],
      ['50000', 'IDR', false],
    );

    await pay(id, '30000');
    await waitFor(() => partial.length === 2);
    assert.deepEqual(
      partial.map((e) => e.paidAmount),
      ['50000', '80000'],
    );

    // Cancelled with money received: onDepositExpired carries it; a payment after that is late, once.
    assert.equal((await api('POST', `/checkouts/${id}/cancel`)).status, 200);
    await waitFor(() => expired.some((e) => e.checkoutId === id));
    assert.equal(expired.find((e) => e.checkoutId === id)!.paidAmount, '80000');
    const after = await pay(id, '1000');
    assert.deepEqual([after.status, after.paidLate, after.paidAmount], ['expired', true, '81000']);
    await waitFor(() => late.length === 1);
    assert.deepEqual(
      [late[0].checkoutId, late[0].paidAmount, late[0].payment.amount, late[0].payment.late],
      [id, '81000', '1000', true],
    );

    // Each webhook again, with new ids (a dashboard resend), here and on a restarted copy on the same data dir: no hook runs twice.
    // The restarted copy reads the data dir when it starts: once the first copy has marked its hooks done (a hook's
    // return comes a moment before its mark), as after a real restart.
    const stateFile = merchantStateFile(dataDir);
    const marked = (key: string) => existsSync(stateFile) && readFileSync(stateFile, 'utf8').includes(`"k":"${key}`);
    await waitFor(() => marked(`hook:paid_late:${id}:`) && marked(`hook:expired:${id}`));
    const { credentials } = up.provider;
    const restarted = merchantApp(up, hooks, { dataDir });
    const deposit = await restarted.service.client.getDeposit(id);
    const again = [
      {
        type: 'deposit.partially_paid',
        status: 'pending',
        data: { ...deposit, status: 'pending', payments: deposit.payments.slice(0, 1) },
      },
      { type: 'deposit.paid_late', status: 'expired', data: deposit },
      { type: 'deposit.expired', status: 'expired', data: deposit },
    ];
    for (const [n, target] of [merchant.url, undefined].entries()) {
      for (const event of again) {
        const body = JSON.stringify({
          ...event,
          orderId: id,
          depositId: id,
          reference: '',
          timestamp: new Date().toISOString(),
        });
        const headers = {
          'Content-Type': 'application/json',
          ...webhookHeaders(credentials.webhookSecret, `msg_again_${n}_${event.type}`, body),
        };
        const res = target
          ? await fetch(`${target}/api/webhooks/kasir`, { method: 'POST', headers, body })
          : await call(restarted, 'POST', '/api/webhooks/kasir', body, headers).then((r) => r.res);
        assert.equal(res.status, 200);
      }
    }
    assert.deepEqual([partial.length, late.length, expired.filter((e) => e.checkoutId === id).length], [2, 1, 1]);
  });

  it('an overpaid bank transfer: onDepositCompleted once, with paidAmount and overpaidAmount', async () => {
    const id = await newCheckout('MANDIRI_TRANSFER');
    const done = await pay(id, '200000');
    assert.equal(done.status, 'completed');
    assert.equal(done.overpaidAmount, String(200000 - Number(done.amount)));
    await waitFor(() => completed.some((e) => e.checkoutId === id));
    const event = completed.find((e) => e.checkoutId === id)!;
    assert.deepEqual(
      [event.paidAmount, event.overpaidAmount, event.overpaidValue],
      ['200000', done.overpaidAmount, done.overpaidAmount],
    );
    assert.equal(event.deposit.payments.at(-1)!.method, 'MANDIRI_TRANSFER');
  });

  it('a paid VA: onDepositCompleted with overpaidAmount "0"; a wrong amount is the service\'s 400', async () => {
    const id = await newCheckout('BNI_VA');
    const wrong = await api('POST', `/sandbox/checkouts/${id}/pay`, { amount: '1' });
    assert.equal(wrong.status, 400);
    assert.equal(((await wrong.json()) as { message: string }).message, 'Amount must equal the amount due');
    await pay(id);
    await waitFor(() => completed.some((e) => e.checkoutId === id));
    const event = completed.find((e) => e.checkoutId === id)!;
    assert.deepEqual([event.paidAmount, event.overpaidAmount], ['150000', '0']);
  });
});
