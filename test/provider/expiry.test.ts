import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startExpirySweeper, sweepOverdue } from '../../server/provider/deposits/expiry-sweeper';
import { recordPayment } from '../../server/provider/deposits/payments';
import { expireIfOverdue } from '../../server/provider/deposits/expire';
import { errorOf } from '../support/envelope';
import { createTestProvider, type TestProvider } from '../support/provider';
import { createCrypto, createFiat, listDeposits, outbox, readDeposit } from './deposit-helpers';

describe('deposit expiry', () => {
  let p: TestProvider;
  before(async () => {
    p = await createTestProvider();
  });
  after(async () => {
    await p.close();
  });

  const windows: Array<[string, number]> = [
    ['BNI_VA', 24 * 3600],
    ['BCA_TRANSFER', 24 * 3600],
    ['QRIS', 30 * 60],
    ['GOPAY', 15 * 60],
  ];
  for (const [paymentMethod, seconds] of windows) {
    it(`sets expiredAt ${seconds} s after creation for ${paymentMethod}`, async () => {
      const d = await createFiat(p, { paymentMethod });
      assert.equal((Date.parse(d.expiredAt) - Date.parse(d.createdAt)) / 1000, seconds);
    });
  }

  it('honours configured windows', async () => {
    const q = await createTestProvider({ expirySeconds: { va: 60, bank: 45, qris: 5, ewallet: 7, crypto: 9 } });
    try {
      const d = await createFiat(q, { paymentMethod: 'QRIS' });
      assert.equal((Date.parse(d.expiredAt) - Date.parse(d.createdAt)) / 1000, 5);
      const bank = await createFiat(q, { paymentMethod: 'BRI_TRANSFER' });
      assert.equal((Date.parse(bank.expiredAt) - Date.parse(bank.createdAt)) / 1000, 45);
    } finally {
      await q.close();
    }
  });

  it('an overdue bank transfer expired on read frees its unique code for the next transfer', async () => {
    const d = await createFiat(p, { paymentMethod: 'MANDIRI_TRANSFER' });
    const held = () =>
      p.deps.db.selectFrom('bank_transfer_codes').select('unique_code').where('deposit_row_id', '=', d.id).execute();
    assert.deepEqual(
      (await held()).map((r) => String(r.unique_code)),
      [d.paymentFiat.uniqueCode],
    );
    p.clock.offsetMs = 24 * 3600 * 1000;
    try {
      assert.equal((await readDeposit(p, d.depositId)).status, 'expired');
      assert.deepEqual(await held(), []);
    } finally {
      p.clock.offsetMs = 0;
    }
  });

  it('no read shows pending past expiredAt: the detail read expires it lazily, once, with a webhook', async () => {
    const d = await createFiat(p, { paymentMethod: 'QRIS', reference: 'lazy-1' });
    // warm the read cache while pending
    assert.equal((await readDeposit(p, d.depositId)).status, 'pending');
    p.clock.offsetMs = 30 * 60 * 1000; // exactly at expiredAt
    const reads = await Promise.all([readDeposit(p, d.depositId), readDeposit(p, 'lazy-1')]);
    for (const data of reads) {
      assert.equal(data.status, 'expired');
      assert.deepEqual(
        data.activityHistory.map((x) => x.status),
        ['pending', 'expired'],
      );
    }
    const events = await outbox(p, d.depositId);
    assert.deepEqual(
      events.map((e) => e.type),
      ['deposit.expired'],
      'exactly one transition',
    );
    p.clock.offsetMs = 0;
  });

  it('the list never shows pending past expiredAt either', async () => {
    const q = await createTestProvider();
    try {
      const d = await createFiat(q, { paymentMethod: 'OVO' });
      q.clock.offsetMs = 15 * 60 * 1000 + 1;
      const data = await listDeposits(q, '?status=pending');
      assert.equal(data.totalDocs, 0);
      const all = await listDeposits(q);
      assert.equal(all.docs.find((x) => x.depositId === d.depositId)!.status, 'expired');
    } finally {
      await q.close();
    }
  });

  it('an expired deposit can no longer be paid, cancelled or completed', async () => {
    const d = await createFiat(p, { paymentMethod: 'DANA' });
    p.clock.offsetMs = 16 * 60 * 1000;
    try {
      const res = await p.bearer('PATCH', `/v1/deposit/${d.depositId}`, { status: 'completed' });
      assert.equal(res.status, 400);
      assert.match((await errorOf(res)).message, /deposit is expired/);
      assert.equal((await p.bearer('PATCH', `/v1/deposit/${d.depositId}/cancel`)).status, 400);
      await p.app.request(`http://localhost/sandbox/ewallet/${d.depositId}/approve`, { method: 'POST' });
      assert.equal((await readDeposit(p, d.depositId)).status, 'expired');
      assert.deepEqual(
        (await outbox(p, d.depositId)).map((e) => e.type),
        ['deposit.expired'],
      );
    } finally {
      p.clock.offsetMs = 0;
    }
  });

  it('the sweeper moves overdue deposits to expired in the background and leaves others alone', async () => {
    const q = await createTestProvider({ sweepIntervalMs: 20 });
    try {
      const overdue = await createFiat(q, { paymentMethod: 'QRIS' });
      const fresh = await createFiat(q, { paymentMethod: 'BCA_VA' });
      const done = await createFiat(q, { paymentMethod: 'QRIS' });
      await q.bearer('PATCH', `/v1/deposit/${done.depositId}`, { status: 'completed' });
      q.clock.offsetMs = 31 * 60 * 1000;
      const stop = startExpirySweeper(q.deps);
      const status = async (id: string) =>
        (await q.deps.db.selectFrom('deposits').select('status').where('deposit_id', '=', id).executeTakeFirstOrThrow())
          .status;
      for (let i = 0; i < 100 && (await status(overdue.depositId)) !== 'expired'; i++)
        await new Promise((r) => setTimeout(r, 10));
      await stop();
      assert.equal(await status(overdue.depositId), 'expired');
      assert.equal(await status(fresh.depositId), 'pending');
      assert.equal(await status(done.depositId), 'completed');
      assert.deepEqual(
        (await outbox(q, overdue.depositId)).map((e) => e.type),
        ['deposit.expired'],
      );
      const history = await q.deps.db
        .selectFrom('deposit_activities')
        .innerJoin('deposits', 'deposits.id', 'deposit_activities.deposit_row_id')
        .select(['deposit_activities.status', 'deposit_activities.description'])
        .where('deposits.deposit_id', '=', overdue.depositId)
        .orderBy('seq')
        .execute();
      assert.deepEqual(
        history.map((h) => h.status),
        ['pending', 'expired'],
      );
      assert.match(history[1].description, /expired/);
    } finally {
      await q.close();
    }
  });

  describe('the sweep of a backlog (>= 1,000 a second, batches that yield)', () => {
    /** Counts the statements run through the database it is plugged into. */
    type Plugin = Parameters<TestProvider['deps']['db']['withPlugin']>[0];
    const counter = () => {
      let statements = 0;
      const plugin: Plugin = {
        transformQuery: (args) => {
          statements++;
          return args.node;
        },
        transformResult: async (args) => args.result,
      };
      return {
        plugin,
        get statements() {
          return statements;
        },
      };
    };

    it('expires 1,200 overdue deposits of two kinds in batches: each once, with its history entry, webhook and freed code, in few statements', async () => {
      const q = await createTestProvider();
      try {
        const qris = await createFiat(q, { paymentMethod: 'QRIS' });
        const transfer = await createFiat(q, { paymentMethod: 'BCA_TRANSFER' });
        const crypto = await createCrypto(q, { inputCurrency: 'USDC-POLYGON', inputAmount: 5 });
        const template = await q.deps.db
          .selectFrom('deposits')
          .selectAll()
          .where('deposit_id', '=', qris.depositId)
          .executeTakeFirstOrThrow();
        const overdue = new Date(Date.now() - 60_000).toISOString();
        for (let i = 0; i < 1200; i += 200) {
          await q.deps.db
            .insertInto('deposits')
            .values(
              Array.from({ length: 200 }, (_, n) => ({
                ...template,
                id: `${template.id}-${i + n}`,
                deposit_id: `${template.deposit_id}-${i + n}`,
                va_number: null,
                reference: null,
                expired_at: overdue,
              })),
            )
            .execute();
        }
        q.clock.offsetMs = 25 * 3600 * 1000; // the three made through the API are due too; one made now is not
        const fresh = await createFiat(q, { paymentMethod: 'BCA_VA' });
        const count = counter();
        let turns = 0;
        let spinning = true;
        const spin = () => {
          turns++;
          if (spinning) setImmediate(spin);
        };
        setImmediate(spin);
        const moved = await sweepOverdue({ ...q.deps, db: q.deps.db.withPlugin(count.plugin) });
        spinning = false;
        assert.equal(moved, 1203);
        // A webhook insert per row and a few statements per batch (10 rows on SQLite, 100 on PostgreSQL): the old sweep
        // ran six per row (7,226 here).
        assert.ok(count.statements < 2 * 1203, `${count.statements} statements for 1,203 expiries`);
        // A batch's statements do not grow with its rows: its webhooks go to the outbox in one insert (an insert
        // per row would be 1,203 here on its own).
        assert.ok(count.statements < 1203, `${count.statements} statements for 1,203 expiries`);
        assert.ok(turns >= 12, `the event loop turned ${turns} times during the sweep`);
        for (const d of [qris, transfer, crypto]) {
          const read = await readDeposit(q, d.depositId);
          assert.equal(read.status, 'expired');
          assert.deepEqual(
            read.activityHistory.map((a) => [a.status, a.description]),
            [
              ['pending', 'Waiting for payment'],
              ['expired', 'No payment was received before the deposit expired'],
            ],
          );
          const events = await outbox(q, d.depositId);
          assert.deepEqual(
            events.map((e) => e.type),
            ['deposit.expired'],
          );
          assert.deepEqual(events[0].payload.data, read, 'the webhook carries the deposit as a read shows it');
        }
        assert.equal((await readDeposit(q, fresh.depositId)).status, 'pending');
        assert.deepEqual(
          await q.deps.db
            .selectFrom('bank_transfer_codes')
            .select('unique_code')
            .where('deposit_row_id', '=', transfer.id)
            .execute(),
          [],
        );
        const expiredCount = await q.deps.db
          .selectFrom('deposit_activities')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('status', '=', 'expired')
          .executeTakeFirstOrThrow();
        assert.equal(Number(expiredCount.n), 1203);
        const list = await listDeposits(q, '?status=pending');
        assert.equal(list.totalDocs, 1, 'the counts moved with the rows');
      } finally {
        await q.close();
      }
    });

    it('two sweeps, a lazy expiry and a late payment at once: expired once, paid late once', async () => {
      const q = await createTestProvider();
      try {
        for (let round = 0; round < 5; round++) {
          const ds = await Promise.all(
            Array.from({ length: 6 }, () => createCrypto(q, { inputCurrency: 'USDC-POLYGON', inputAmount: 5 })),
          );
          q.clock.offsetMs = 60 * 60 * 1000;
          const row = await q.deps.db
            .selectFrom('deposits')
            .select('id')
            .where('deposit_id', '=', ds[1].depositId)
            .executeTakeFirstOrThrow();
          try {
            await Promise.all([
              recordPayment(q.deps, ds[0].depositId, { amount: 5 }),
              sweepOverdue(q.deps),
              sweepOverdue(q.deps),
              expireIfOverdue(q.deps, row.id),
            ]);
            await sweepOverdue(q.deps); // what a locked row left for the next tick
          } finally {
            q.clock.offsetMs = 0;
          }
          const paid = await readDeposit(q, ds[0].depositId);
          assert.deepEqual([paid.status, paid.paidAmount, paid.payments.map((x) => x.late)], ['expired', 5, [true]]);
          assert.deepEqual(
            (await outbox(q, ds[0].depositId)).map((e) => e.type),
            ['deposit.expired', 'deposit.paid_late'],
          );
          for (const d of ds.slice(1)) {
            assert.deepEqual(
              (await outbox(q, d.depositId)).map((e) => e.type),
              ['deposit.expired'],
              `round ${round}`,
            );
            assert.deepEqual(
              (await readDeposit(q, d.depositId)).activityHistory.map((a) => a.status),
              ['pending', 'expired'],
            );
          }
        }
      } finally {
        await q.close();
      }
    });
  });
});
