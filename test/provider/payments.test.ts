// Payments that do not go as planned (docs/design.md, "Payments that do not go as planned"). Every row of the section
// (exact, partial, over, within the underpayment tolerance, late, fixed-amount refusals, the expired webhook's
// paidAmount), the sandbox payments endpoint, two races (two payments on one deposit; a late payment and the expiry
// sweeper) and paying the rest another way. Through app.request(), on SQLite or (with test/support/with-postgres.sh)
// PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Checkout as WidgetCheckout } from '@kasir/checkout';
import type { CheckoutSession } from '../../server/provider/checkout/session';
import { recordPayment } from '../../server/provider/deposits/payments';
import { sweepOverdue } from '../../server/provider/deposits/expiry-sweeper';
import { dataOf, errorOf } from '../support/envelope';
import { createTestProvider, type TestProvider } from '../support/provider';
import {
  addMerchant,
  createCrypto,
  createFiat,
  listDeposits,
  outbox,
  readDeposit,
  type DepositView,
} from './deposit-helpers';

describe('payments (docs/design.md, "Payments that do not go as planned")', () => {
  let p: TestProvider;
  before(async () => {
    p = await createTestProvider();
  });
  after(async () => {
    await p.close();
  });

  const pay = (depositId: string, body?: unknown) => p.signed('POST', `/v1/deposit/${depositId}/payments`, body);
  // With a token: identical requests at once are no replay (a signed one would be refused as one).
  const payA = (depositId: string, body?: unknown) => p.bearer('POST', `/v1/deposit/${depositId}/payments`, body);
  const paid = async (depositId: string, body?: unknown) => dataOf<DepositView>(await pay(depositId, body));
  const types = async (depositId: string) => (await outbox(p, depositId)).map((e) => e.type);
  const history = (d: DepositView) => d.activityHistory.map((a) => a.description);
  const bank = () => createFiat(p, { paymentMethod: 'BCA_TRANSFER' });
  const setTolerance = (value: number) =>
    p.bearer('PUT', '/dashboard/api/underpayment-tolerance', { underpaymentTolerance: value });

  it('a new deposit has paid nothing: paidAmount 0, all of it remaining, no payments, in create, read and list', async () => {
    const created = await createFiat(p);
    const read = await readDeposit(p, created.depositId);
    const listed = (await listDeposits(p, '?limit=100')).docs.find((d) => d.depositId === created.depositId)!;
    for (const d of [created, read, listed]) {
      assert.deepEqual([d.paidAmount, d.remainingAmount, d.overpaidAmount, d.payments], [0, 150000, 0, []]);
    }
  });

  it('without an amount, pays exactly what is due: completed, one payment, one deposit.completed webhook carrying the amounts', async () => {
    const d = await createFiat(p);
    const done = await paid(d.depositId);
    assert.equal(done.status, 'completed');
    assert.deepEqual([done.paidAmount, done.remainingAmount, done.overpaidAmount], [150000, 0, 0]);
    assert.equal(done.payments.length, 1);
    assert.deepEqual(
      { ...done.payments[0], receivedAt: undefined },
      { amount: 150000, currency: 'IDR', method: 'BCA_VA', value: 150000, receivedAt: undefined, late: false },
    );
    assert.ok(history(done).includes('Payment received'));
    const events = await outbox(p, d.depositId);
    assert.deepEqual(
      events.map((e) => e.type),
      ['deposit.completed'],
    );
    assert.deepEqual([events[0].payload.data.paidAmount, events[0].payload.data.overpaidAmount], [150000, 0]);
  });

  for (const paymentMethod of ['BCA_VA', 'QRIS', 'OVO']) {
    it(`${paymentMethod} (a fixed amount) refuses any other amount with 400 and changes nothing`, async () => {
      const d = await createFiat(p, { paymentMethod });
      for (const amount of [149999, 150001, 50000]) {
        const err = await errorOf(await pay(d.depositId, { amount }));
        assert.deepEqual([err.statusCode, err.message], [400, 'Amount must equal the amount due']);
      }
      const after = await readDeposit(p, d.depositId);
      assert.deepEqual(
        [after.status, after.paidAmount, after.payments, after.activityHistory.length],
        ['pending', 0, [], 1],
      );
      assert.deepEqual(await types(d.depositId), []);
      assert.equal((await paid(d.depositId, { amount: 150000 })).status, 'completed');
    });
  }

  it('bank transfer: a short payment keeps it pending ("Partial payment received", deposit.partially_paid), the rest completes it', async () => {
    const d = await bank();
    const due = d.inputAmount;
    const partial = await paid(d.depositId, { amount: 100000 });
    assert.equal(partial.status, 'pending');
    assert.deepEqual([partial.paidAmount, partial.remainingAmount, partial.overpaidAmount], [100000, due - 100000, 0]);
    assert.equal(history(partial).at(-1), 'Partial payment received');
    const events = await outbox(p, d.depositId);
    assert.deepEqual(
      events.map((e) => [e.type, e.payload.status]),
      [['deposit.partially_paid', 'pending']],
    );
    assert.equal(events[0].payload.data.remainingAmount, due - 100000);
    const done = await paid(d.depositId);
    assert.equal(done.status, 'completed');
    assert.deepEqual(
      [done.paidAmount, done.remainingAmount, done.payments.map((x) => x.amount)],
      [due, 0, [100000, due - 100000]],
    );
    assert.deepEqual(await types(d.depositId), ['deposit.partially_paid', 'deposit.completed']);
  });

  it('bank transfer: more than due completes it with overpaidAmount and the history entry "Overpaid"', async () => {
    const d = await bank();
    const done = await paid(d.depositId, { amount: 200000 });
    assert.equal(done.status, 'completed');
    assert.deepEqual([done.paidAmount, done.remainingAmount, done.overpaidAmount], [200000, 0, 200000 - d.inputAmount]);
    assert.deepEqual(history(done).slice(-2), ['Payment received', 'Overpaid']);
    assert.deepEqual(await types(d.depositId), ['deposit.completed']);
  });

  it("crypto takes any amount, exactly, in the token's decimals", async () => {
    const d = await createCrypto(p, { inputCurrency: 'USDC-POLYGON', inputAmount: 10 });
    const partial = await paid(d.depositId, { amount: 3.123456 });
    assert.deepEqual([partial.status, partial.paidAmount, partial.remainingAmount], ['pending', 3.123456, 6.876544]);
    const err = await errorOf(await pay(d.depositId, { amount: 0.0000001 }));
    assert.deepEqual(
      [err.statusCode, err.message],
      [400, 'amount: USDC-POLYGON amounts have at most 6 decimal places'],
    );
    const done = await paid(d.depositId, { amount: '6.876545' });
    assert.deepEqual([done.status, done.overpaidAmount], ['completed', 0.000001]);
  });

  it('the underpayment tolerance (dashboard): a payment short by no more completes the deposit; by more, it is partial', async () => {
    const saved = await setTolerance(1.5);
    assert.equal(saved.status, 200);
    assert.equal(
      (await dataOf<{ underpaymentTolerance: number }>(await p.bearer('GET', '/dashboard/api/account')))
        .underpaymentTolerance,
      1.5,
    );
    try {
      const d = await createCrypto(p, { inputCurrency: 'USDC-POLYGON', inputAmount: 100 });
      const within = await paid(d.depositId, { amount: 98.5 });
      assert.deepEqual(
        [within.status, within.paidAmount, within.remainingAmount, within.overpaidAmount],
        ['completed', 98.5, 0, 0],
      );
      const e = await createCrypto(p, { inputCurrency: 'USDC-POLYGON', inputAmount: 100 });
      assert.equal((await paid(e.depositId, { amount: 98.49 })).status, 'pending');
      for (const bad of [-1, 100.5, 'x', 1.234])
        assert.equal((await setTolerance(bad as number)).status, 400, String(bad));
    } finally {
      await setTolerance(0);
    }
  });

  it("the sandbox option underpaymentTolerance sets the seeded merchant's tolerance", async () => {
    const q = await createTestProvider({ underpaymentTolerance: 10 });
    try {
      const d = await createCrypto(q, { inputCurrency: 'USDC-POLYGON', inputAmount: 100 });
      const done = await dataOf<DepositView>(
        await q.signed('POST', `/v1/deposit/${d.depositId}/payments`, { amount: 90 }),
      );
      assert.equal(done.status, 'completed');
    } finally {
      await q.close();
    }
  });

  it('after a cancel, a payment is late: recorded with late: true, status stays expired, deposit.paid_late', async () => {
    const d = await bank();
    await paid(d.depositId, { amount: 50000 });
    assert.equal((await p.bearer('PATCH', `/v1/deposit/${d.depositId}/cancel`)).status, 200);
    const events = await outbox(p, d.depositId);
    // The expiry webhook carries what was paid: the merchant owes it back.
    assert.deepEqual(
      events.map((e) => e.type),
      ['deposit.partially_paid', 'deposit.expired'],
    );
    assert.equal(events[1].payload.data.paidAmount, 50000);
    const late = await paid(d.depositId, { amount: 70000 });
    assert.equal(late.status, 'expired');
    assert.deepEqual(
      late.payments.map((x) => [x.amount, x.late]),
      [
        [50000, false],
        [70000, true],
      ],
    );
    assert.equal(late.paidAmount, 120000);
    assert.equal(history(late).at(-1), 'Payment received after expiry');
    const all = await outbox(p, d.depositId);
    assert.deepEqual(all.map((e) => [e.type, e.payload.status]).at(-1), ['deposit.paid_late', 'expired']);
  });

  it('a payment to a deposit pending past its expiredAt expires it first, then is late (one webhook each)', async () => {
    const d = await createFiat(p, { paymentMethod: 'QRIS' });
    p.clock.offsetMs = 30 * 60 * 1000;
    try {
      const late = await paid(d.depositId);
      assert.equal(late.status, 'expired');
      assert.deepEqual(
        late.payments.map((x) => x.late),
        [true],
      );
      assert.deepEqual(await types(d.depositId), ['deposit.expired', 'deposit.paid_late']);
    } finally {
      p.clock.offsetMs = 0;
    }
  });

  it('two payments racing on one deposit: both recorded, one after the other, one completion', async () => {
    const d = await createCrypto(p, { inputCurrency: 'USDC-POLYGON', inputAmount: 30 });
    const answers = await Promise.all([10, 10, 10].map((amount) => payA(d.depositId, { amount })));
    assert.deepEqual(
      answers.map((r) => r.status),
      [200, 200, 200],
    );
    const read = await readDeposit(p, d.depositId);
    assert.deepEqual([read.status, read.paidAmount, read.payments.length], ['completed', 30, 3]);
    assert.deepEqual((await types(d.depositId)).sort(), [
      'deposit.completed',
      'deposit.partially_paid',
      'deposit.partially_paid',
    ]);
    const seen = (await Promise.all(answers.map((r) => r.json() as Promise<{ data: DepositView }>)))
      .map((b) => b.data.paidAmount)
      .sort();
    assert.deepEqual(seen, [10, 20, 30], 'each payment saw the one before it');
  });

  it('two partial payments racing: both count, two partially_paid webhooks, what remains is exact', async () => {
    const d = await bank();
    await Promise.all([payA(d.depositId, { amount: 40000 }), payA(d.depositId, { amount: 40000 })]);
    const read = await readDeposit(p, d.depositId);
    assert.deepEqual([read.status, read.paidAmount, read.remainingAmount], ['pending', 80000, d.inputAmount - 80000]);
    assert.deepEqual(await types(d.depositId), ['deposit.partially_paid', 'deposit.partially_paid']);
  });

  it('a late payment racing the expiry sweeper: expired once, paid late once, one consistent result', async () => {
    for (let round = 0; round < 5; round++) {
      const d = await createCrypto(p, { inputCurrency: 'USDC-POLYGON', inputAmount: 5 });
      p.clock.offsetMs = 60 * 60 * 1000;
      try {
        await Promise.all([
          recordPayment(p.deps, d.depositId, { amount: 5 }),
          sweepOverdue(p.deps),
          sweepOverdue(p.deps),
        ]);
      } finally {
        p.clock.offsetMs = 0;
      }
      const read = await readDeposit(p, d.depositId);
      assert.deepEqual([read.status, read.paidAmount, read.payments.map((x) => x.late)], ['expired', 5, [true]]);
      assert.deepEqual(await types(d.depositId), ['deposit.expired', 'deposit.paid_late']);
    }
  });

  it('the sandbox status update to completed is a payment of exactly what is still due', async () => {
    const d = await bank();
    await paid(d.depositId, { amount: 1000 });
    const res = await p.signed('PATCH', `/v1/deposit/${d.depositId}`, { status: 'completed' });
    const done = await dataOf<DepositView>(res);
    assert.deepEqual(
      [done.status, done.paidAmount, done.payments.map((x) => x.amount)],
      ['completed', d.inputAmount, [1000, d.inputAmount - 1000]],
    );
    assert.equal(history(done).at(-1), 'Completed by the sandbox status update');
  });

  it('a completion is one transaction of 7 statements (each is a round trip on PostgreSQL), with the same answer', async () => {
    const statements: string[] = [];
    const counting: Parameters<TestProvider['deps']['db']['withPlugin']>[0] = {
      transformQuery: (args) => {
        statements.push(args.node.kind);
        return args.node;
      },
      transformResult: async (args) => args.result,
    };
    const deps = { ...p.deps, db: p.deps.db.withPlugin(counting) };
    // A virtual account; a bank transfer also frees its unique code.
    for (const [d, expected] of [
      [await createFiat(p), 7],
      [await bank(), 8],
    ] as const) {
      statements.length = 0;
      const done = await recordPayment(deps, d.depositId, { pendingOnly: true });
      // Read locked, its payments and history read, a payment, the update, a history entry, the webhook in the outbox.
      assert.equal(statements.length, expected, statements.join(' '));
      const read = await readDeposit(p, d.depositId);
      assert.deepEqual([done.status, done.payments.length, done.activityHistory.length], ['completed', 1, 2]);
      assert.deepEqual(
        { ...done, isReconciled: undefined, payerInfo: undefined },
        { ...read, isReconciled: undefined, payerInfo: undefined },
      );
    }
  });

  describe('the endpoint', () => {
    it('takes A (a bearer token) or S (a signature)', async () => {
      const d = await bank();
      const res = await p.bearer('POST', `/v1/deposit/${d.depositId}/payments`, { amount: 1 });
      assert.equal((await dataOf<DepositView>(res)).paidAmount, 1);
      assert.equal(
        (await p.app.request(`http://localhost/v1/deposit/${d.depositId}/payments`, { method: 'POST' })).status,
        401,
      );
    });

    it("unknown id, or another merchant's: 400 Deposit not found", async () => {
      const other = await addMerchant(p);
      const theirs = await createFiat(p, {}, other.token);
      for (const id of ['00000000-0000-4000-8000-000000000000', theirs.depositId]) {
        const err = await errorOf(await pay(id, { amount: 1 }));
        assert.deepEqual([err.statusCode, err.error, err.message], [400, 'Bad Request', 'Deposit not found']);
      }
    });

    it('a completed deposit takes no payment; bad amounts are 400s that change nothing', async () => {
      const d = await createFiat(p);
      await paid(d.depositId);
      assert.deepEqual([(await errorOf(await pay(d.depositId, { amount: 1 }))).statusCode], [400]);
      const e = await bank();
      for (const amount of [0, -5, 'ten', 1.5])
        assert.equal((await pay(e.depositId, { amount })).status, 400, String(amount));
      assert.deepEqual((await readDeposit(p, e.depositId)).payments, []);
    });

    it('outside sandbox mode: 403', async () => {
      const prod = await createTestProvider({ sandbox: false });
      try {
        const d = await createFiat(prod);
        const err = await errorOf(await prod.signed('POST', `/v1/deposit/${d.depositId}/payments`, {}));
        assert.equal(err.statusCode, 403);
        assert.deepEqual((await readDeposit(prod, d.depositId)).payments, []);
      } finally {
        await prod.close();
      }
    });
  });

  describe('paying the rest another way (checkout)', () => {
    const request = (method: string, path: string, body?: unknown) =>
      p.app.request(`http://localhost${path}`, {
        method,
        headers: method === 'GET' ? {} : { 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });

    it('after 60 % in USDC the methods are priced for the rest; a VA then asks only the rest, keeps the payment, and completes once', async () => {
      const { id } = await dataOf<{ id: string }>(
        await p.signed('POST', '/v1/checkout', { inputCurrency: 'IDR', inputAmount: 150000 }),
      );
      const usdc = await dataOf<DepositView>(
        await request('POST', `/checkout/${id}/deposit`, { paymentMethod: 'USDC-POLYGON' }),
      );
      const sixty = Number((usdc.inputAmount * 0.6).toFixed(6));
      const partial = await paid(id, { amount: sixty });
      assert.equal(partial.status, 'pending');

      // The hosted widget's crypto QR asks for the rest only.
      const widget = await dataOf<WidgetCheckout>(await request('GET', `/checkout/api/checkouts/${id}`));
      assert.equal(widget.deposit!.remainingAmount, partial.remainingAmount.toFixed(6));
      assert.match(widget.deposit!.paymentUri!, new RegExp(`uint256=${Math.round(partial.remainingAmount * 1e6)}$`));
      const session = await dataOf<CheckoutSession>(await request('GET', `/checkout/${id}/session`));
      const va = session.methods.find((m) => m.bankCode === 'BCA_VA')!;
      assert.ok(va.paymentAmount >= 60000 && va.paymentAmount <= 60001, `the rest of 150000 IDR: ${va.paymentAmount}`);
      assert.equal(widget.methods.find((m) => m.code === 'BCA_VA')!.total, String(va.paymentAmount));

      const switched = await dataOf<DepositView>(
        await request('POST', `/checkout/${id}/deposit`, { paymentMethod: 'BCA_VA' }),
      );
      assert.deepEqual(
        [switched.status, switched.inputCurrency, switched.remainingAmount],
        ['pending', 'IDR', va.paymentAmount],
      );
      assert.ok(switched.paidAmount > 0);
      assert.deepEqual(
        switched.payments.map((x) => [x.amount, x.currency]),
        [[sixty, 'USDC-POLYGON']],
      );
      const err = await errorOf(await pay(id, { amount: 150000 }));
      assert.equal(err.message, 'Amount must equal the amount due');
      const done = await paid(id, { amount: va.paymentAmount });
      assert.equal(done.status, 'completed');
      assert.deepEqual(
        done.payments.map((x) => x.currency),
        ['USDC-POLYGON', 'IDR'],
      );
      assert.deepEqual(await types(id), ['deposit.partially_paid', 'deposit.completed']);
    });

    it('the hosted page has a sandbox panel that pays a chosen amount (sandbox mode only)', async () => {
      const { id } = await dataOf<{ id: string }>(
        await p.signed('POST', '/v1/checkout', { inputCurrency: 'IDR', inputAmount: 150000 }),
      );
      const html = await (await request('GET', `/checkout/${id}`)).text();
      assert.match(html, new RegExp(`<form id="kasir-sandbox-pay" data-checkout="${id}">`));
      assert.match(html, /<input name="amount"/);
      const script = await request('GET', '/checkout/sandbox-panel.js');
      assert.equal(script.status, 200);
      assert.match(await script.text(), /\/checkout\/api\/sandbox\/checkouts\/.*\/pay/);
      const prod = await createTestProvider({ sandbox: false });
      try {
        const other = await dataOf<{ id: string }>(
          await prod.signed('POST', '/v1/checkout', { inputCurrency: 'IDR', inputAmount: 150000 }),
        );
        assert.doesNotMatch(
          await (await prod.app.request(`http://localhost/checkout/${other.id}`)).text(),
          /kasir-sandbox-pay/,
        );
        assert.equal((await prod.app.request('http://localhost/checkout/sandbox-panel.js')).status, 404);
      } finally {
        await prod.close();
      }
    });

    it("the hosted widget API's sandbox pay takes {amount}", async () => {
      const { id } = await dataOf<{ id: string }>(
        await p.signed('POST', '/v1/checkout', { inputCurrency: 'IDR', inputAmount: 150000 }),
      );
      await request('POST', `/checkout/api/checkouts/${id}/deposit`, { method: 'BRI_TRANSFER' });
      const partial = await dataOf<{ status: string; paidAmount: string; remainingAmount: string }>(
        await request('POST', `/checkout/api/sandbox/checkouts/${id}/pay`, { amount: '1000' }),
      );
      assert.deepEqual([partial.status, partial.paidAmount], ['pending', '1000']);
      const done = await dataOf<{ status: string; remainingAmount: string }>(
        await request('POST', `/checkout/api/sandbox/checkouts/${id}/pay`),
      );
      assert.deepEqual([done.status, done.remainingAmount], ['completed', '0']);
    });
  });
});

describe('payments in the OpenAPI document (docs/design.md, "Payments that do not go as planned")', () => {
  it("documents the Deposit's payment fields, the sandbox payments endpoint and the two webhook types", async () => {
    const p = await createTestProvider();
    try {
      const doc = (await (await p.app.request('http://localhost/v1/openapi.json')).json()) as {
        paths: Record<string, Record<string, unknown>>;
        webhooks: Record<string, unknown>;
        components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
      };
      for (const field of [
        'paidAmount',
        'remainingAmount',
        'overpaidAmount',
        'paidValue',
        'remainingValue',
        'overpaidValue',
        'orderCurrency',
        'payments',
      ])
        assert.ok(doc.components.schemas.Deposit.properties![field], field);
      assert.deepEqual(Object.keys(doc.components.schemas.DepositPayment.properties!).sort(), [
        'amount',
        'currency',
        'late',
        'method',
        'receivedAt',
        'value',
      ]);
      assert.ok(doc.paths['/v1/deposit/{depositId}/payments'].post);
      assert.ok(doc.webhooks['deposit.partially_paid'] && doc.webhooks['deposit.paid_late']);
    } finally {
      await p.close();
    }
  });
});
