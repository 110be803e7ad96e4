import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startExpirySweeper } from '../../server/provider/deposits/expiry-sweeper';
import { errorOf } from '../support/envelope';
import { createTestProvider, type TestProvider } from '../support/provider';
import { createFiat, listDeposits, outbox, readDeposit } from './deposit-helpers';

describe('deposit expiry', () => {
  let p: TestProvider;
  before(async () => { p = await createTestProvider(); });
  after(async () => { await p.close(); });

  const windows: Array<[string, number]> = [['BNI_VA', 24 * 3600], ['BCA_TRANSFER', 24 * 3600], ['QRIS', 30 * 60], ['GOPAY', 15 * 60]];
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
    } finally { await q.close(); }
  });

  it('an overdue bank transfer expired on read frees its unique code for the next transfer', async () => {
    const d = await createFiat(p, { paymentMethod: 'MANDIRI_TRANSFER' });
    const held = () => p.deps.db.selectFrom('bank_transfer_codes').select('unique_code').where('deposit_row_id', '=', d.id).execute();
    assert.deepEqual((await held()).map((r) => String(r.unique_code)), [d.paymentFiat.uniqueCode]);
    p.clock.offsetMs = 24 * 3600 * 1000;
    try {
      assert.equal((await readDeposit(p, d.depositId)).status, 'expired');
      assert.deepEqual(await held(), []);
    } finally { p.clock.offsetMs = 0; }
  });

  it('no read shows pending past expiredAt: the detail read expires it lazily, once, with a webhook', async () => {
    const d = await createFiat(p, { paymentMethod: 'QRIS', reference: 'lazy-1' });
    // warm the read cache while pending
    assert.equal((await readDeposit(p, d.depositId)).status, 'pending');
    p.clock.offsetMs = 30 * 60 * 1000; // exactly at expiredAt
    const reads = await Promise.all([readDeposit(p, d.depositId), readDeposit(p, 'lazy-1')]);
    for (const data of reads) {
      assert.equal(data.status, 'expired');
      assert.deepEqual(data.activityHistory.map((x) => x.status), ['pending', 'expired']);
    }
    const events = await outbox(p, d.depositId);
    assert.deepEqual(events.map((e) => e.type), ['deposit.expired'], 'exactly one transition');
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
    } finally { await q.close(); }
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
      assert.deepEqual((await outbox(p, d.depositId)).map((e) => e.type), ['deposit.expired']);
    } finally { p.clock.offsetMs = 0; }
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
      const status = async (id: string) => (await q.deps.db.selectFrom('deposits').select('status').where('deposit_id', '=', id).executeTakeFirstOrThrow()).status;
      for (let i = 0; i < 100 && (await status(overdue.depositId)) !== 'expired'; i++) await new Promise((r) => setTimeout(r, 10));
      await stop();
      assert.equal(await status(overdue.depositId), 'expired');
      assert.equal(await status(fresh.depositId), 'pending');
      assert.equal(await status(done.depositId), 'completed');
      assert.deepEqual((await outbox(q, overdue.depositId)).map((e) => e.type), ['deposit.expired']);
      const history = await q.deps.db.selectFrom('deposit_activities').innerJoin('deposits', 'deposits.id', 'deposit_activities.deposit_row_id')
        .select(['deposit_activities.status', 'deposit_activities.description']).where('deposits.deposit_id', '=', overdue.depositId).orderBy('seq').execute();
      assert.deepEqual(history.map((h) => h.status), ['pending', 'expired']);
      assert.match(history[1].description, /expired/);
    } finally { await q.close(); }
  });
});
