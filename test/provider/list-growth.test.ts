// Lists as the tables grow: the list's totals come from the counts table (migration 009) and its pages from the list
// indexes, so they must stay exactly what a COUNT and an ORDER BY over the rows say, through every way a deposit is
// written: creates, method switches (fiat <-> crypto), payments (complete, partial, late), expiry and cancel. Also:
// a list expires only the overdue rows it shows, the cursor walks the same rows as the pages, and the sweeper drains
// every overdue deposit in steps that yield to the event loop.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sweepOverdue } from '../../server/provider/deposits/expiry-sweeper';
import { switchDepositMethod } from '../../server/provider/deposits/switch-method';
import { errorOf } from '../support/envelope';
import { createTestProvider, type TestProvider } from '../support/provider';
import { addMerchant, createCrypto, createFiat, listDeposits, type DepositView } from './deposit-helpers';

type Page = Awaited<ReturnType<typeof listDeposits>> & { nextCursor?: string | null };

const STATUSES = [undefined, 'pending', 'expired', 'completed'] as const;
const TYPES = [undefined, 'fiat', 'crypto'] as const;
const SORTS = ['createdAt', '-createdAt', 'updatedAt', '-updatedAt'] as const;

describe('deposit list at any size: counts, pages and cursor', () => {
  let p: TestProvider;
  let merchantId: string;
  before(async () => {
    p = await createTestProvider();
    merchantId = (await p.deps.db.selectFrom('merchants').select('id').executeTakeFirstOrThrow()).id;
  });
  after(async () => {
    await p.close();
  });

  /** What the rows say: the matching record ids in the sort's order (ties by record id), by a plain query. */
  async function expected(
    status?: string,
    type?: string,
    sort: (typeof SORTS)[number] = 'createdAt',
  ): Promise<string[]> {
    const column = sort.includes('updated') ? 'updated_at' : 'created_at';
    const direction = sort.startsWith('-') ? 'desc' : 'asc';
    let q = p.deps.db.selectFrom('deposits').select('id').where('merchant_id', '=', merchantId);
    if (status) q = q.where('status', '=', status as 'pending');
    if (type) q = q.where('deposit_type', '=', type as 'fiat');
    return (await q.orderBy(column, direction).orderBy('id', direction).execute()).map((r) => r.id);
  }

  const query = (status: string | undefined, type: string | undefined, sort: string, extra: string) =>
    `?limit=3&sort=${sort}${status ? `&status=${status}` : ''}${type ? `&depositType=${type}` : ''}${extra}`;

  /** Every filter and sort: totalDocs equals a COUNT, the pages (by number and by cursor) walk exactly the rows. */
  async function checkEveryList(phase: string) {
    const counts = await p.deps.db
      .selectFrom('deposits')
      .select(['merchant_id', 'status', 'deposit_type'])
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .groupBy(['merchant_id', 'status', 'deposit_type'])
      .execute();
    const kept = await p.deps.db.selectFrom('deposit_counts').selectAll().where('count', '!=', 0).execute();
    const key = (r: { merchant_id: string; status: string; deposit_type: string }) =>
      `${r.merchant_id}/${r.status}/${r.deposit_type}`;
    assert.deepEqual(
      new Map(kept.map((r) => [key(r), Number(r.count)])),
      new Map(counts.map((r) => [key(r), Number(r.n)])),
      `${phase}: counts table = GROUP BY`,
    );
    for (const status of STATUSES) {
      for (const type of TYPES) {
        for (const sort of SORTS) {
          const want = await expected(status, type, sort);
          const label = `${phase}: status=${status} type=${type} sort=${sort}`;
          const byPage: string[] = [];
          for (let page = 1; ; page++) {
            const data = (await listDeposits(p, query(status, type, sort, `&page=${page}`))) as Page;
            assert.equal(data.totalDocs, want.length, `${label}: totalDocs`);
            assert.equal('nextCursor' in data, false, `${label}: the envelope stays exact without a cursor`);
            byPage.push(...data.docs.map((d) => d.id));
            if (!data.hasNextPage) break;
          }
          assert.deepEqual(byPage, want, `${label}: pages`);
          const byCursor: string[] = [];
          let cursor: string | null | undefined = 'start';
          for (let page = 1; cursor; page++) {
            const data = (await listDeposits(p, query(status, type, sort, `&cursor=${cursor}`))) as Page;
            assert.equal(data.page, page, `${label}: the cursor's page number`);
            assert.equal(data.totalDocs, want.length);
            byCursor.push(...data.docs.map((d) => d.id));
            cursor = data.nextCursor;
          }
          assert.deepEqual(byCursor, want, `${label}: cursor`);
        }
      }
    }
  }

  it('stay exact through creates, switches, payments, expiry and cancel', async () => {
    const other = await addMerchant(p);
    await p.bearer(
      'POST',
      '/v1/deposit/fiat',
      { inputCurrency: 'IDR', inputAmount: 150000, outputCurrency: 'IDR', balanceType: 'fiat', paymentMethod: 'QRIS' },
      other.token,
    );
    const fiat: DepositView[] = [];
    for (const paymentMethod of ['QRIS', 'BCA_VA', 'BCA_TRANSFER', 'BNI_VA', 'QRIS', 'BRI_TRANSFER', 'OVO'])
      fiat.push(await createFiat(p, { paymentMethod }));
    const crypto: DepositView[] = [];
    for (let i = 0; i < 4; i++)
      crypto.push(await createCrypto(p, { inputCurrency: 'USDC-POLYGON', inputAmount: 10 + i }));
    await checkEveryList('created');

    await switchDepositMethod(p.deps, fiat[0].depositId, {
      depositType: 'crypto',
      request: { inputCurrency: 'USDC-POLYGON', inputAmount: 9 },
    });
    await switchDepositMethod(p.deps, crypto[0].depositId, {
      depositType: 'fiat',
      request: {
        inputCurrency: 'IDR',
        inputAmount: 150000,
        outputCurrency: 'IDR',
        balanceType: 'fiat',
        paymentMethod: 'BCA_VA',
      },
    });
    await checkEveryList('switched');

    for (const d of [fiat[1], crypto[1]])
      assert.equal((await p.signed('POST', `/v1/deposit/${d.depositId}/payments`)).status, 200);
    assert.equal((await p.signed('POST', `/v1/deposit/${fiat[2].depositId}/payments`, { amount: 1000 })).status, 200); // partial: stays pending
    assert.equal((await p.bearer('PATCH', `/v1/deposit/${fiat[3].depositId}/cancel`)).status, 200);
    assert.equal((await p.signed('PATCH', `/v1/deposit/${crypto[2].depositId}`, { status: 'expired' })).status, 200);
    assert.equal((await p.signed('POST', `/v1/deposit/${fiat[3].depositId}/payments`, { amount: 150000 })).status, 200); // late
    await checkEveryList('paid and cancelled');

    p.clock.offsetMs = 31 * 60 * 1000; // QRIS and OVO overdue
    try {
      assert.ok((await sweepOverdue(p.deps)) >= 2);
      await checkEveryList('expired');
    } finally {
      p.clock.offsetMs = 0;
    }
  });

  it('refuses a cursor it did not give, or one of another query, with a 400', async () => {
    const bad = await p.signed('GET', '/v1/deposit?cursor=bm9wZQ');
    assert.equal(bad.status, 400);
    assert.match((await errorOf(bad)).message, /^cursor: /);
    const first = (await listDeposits(p, '?limit=1&cursor=start')) as Page;
    assert.ok(first.nextCursor);
    const other = await p.signed('GET', `/v1/deposit?limit=1&sort=-createdAt&cursor=${first.nextCursor}`);
    assert.equal(other.status, 400);
    assert.match((await errorOf(other)).message, /another query/);
  });
});

describe('the counts table under statements of many rows', () => {
  it('stays exact when one statement inserts, moves or deletes deposits of several merchants, statuses and types', async () => {
    const p = await createTestProvider();
    try {
      const other = await addMerchant(p);
      await p.bearer(
        'POST',
        '/v1/deposit/fiat',
        {
          inputCurrency: 'IDR',
          inputAmount: 150000,
          outputCurrency: 'IDR',
          balanceType: 'fiat',
          paymentMethod: 'QRIS',
        },
        other.token,
      );
      const template = await p.deps.db
        .selectFrom('deposits')
        .selectAll()
        .where('deposit_id', '=', (await createFiat(p, { paymentMethod: 'QRIS' })).depositId)
        .executeTakeFirstOrThrow();
      const merchants = [
        template.merchant_id,
        (
          await p.deps.db
            .selectFrom('deposits')
            .select('merchant_id')
            .where('merchant_id', '!=', template.merchant_id)
            .executeTakeFirstOrThrow()
        ).merchant_id,
      ];
      const statuses = ['pending', 'completed', 'expired'] as const;
      await p.deps.db
        .insertInto('deposits')
        .values(
          Array.from({ length: 60 }, (_, n) => ({
            ...template,
            id: `${template.id}-${n}`,
            deposit_id: `${template.deposit_id}-${n}`,
            va_number: null,
            reference: null,
            merchant_id: merchants[n % 2],
            status: statuses[n % 3],
            deposit_type: n % 5 ? ('fiat' as const) : ('crypto' as const),
          })),
        )
        .execute();
      const exact = async (phase: string) => {
        const counts = await p.deps.db
          .selectFrom('deposits')
          .select(['merchant_id', 'status', 'deposit_type'])
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .groupBy(['merchant_id', 'status', 'deposit_type'])
          .execute();
        const kept = await p.deps.db.selectFrom('deposit_counts').selectAll().where('count', '!=', 0).execute();
        const key = (r: { merchant_id: string; status: string; deposit_type: string }) =>
          `${r.merchant_id}/${r.status}/${r.deposit_type}`;
        assert.deepEqual(
          new Map(kept.map((r) => [key(r), Number(r.count)])),
          new Map(counts.map((r) => [key(r), Number(r.n)])),
          `${phase}: counts table = GROUP BY`,
        );
      };
      await exact('inserted 60 at once');
      // One update that moves some rows' status, others' type, some both, and leaves the rest as they were.
      await p.deps.db
        .updateTable('deposits')
        .set((eb) => ({
          status: eb
            .case()
            .when('status', '=', 'pending')
            .then(eb.val('expired' as const))
            .else(eb.ref('status'))
            .end(),
          deposit_type: eb
            .case()
            .when('id', 'like', `${template.id}-1%`)
            .then(eb.val('crypto' as const))
            .else(eb.ref('deposit_type'))
            .end(),
        }))
        .execute();
      await exact('moved at once');
      await p.deps.db.updateTable('deposits').set({ updated_at: new Date().toISOString() }).execute();
      await exact('updated, no count moved');
      await p.deps.db.deleteFrom('deposits').where('id', 'like', `${template.id}-2%`).execute();
      await exact('deleted at once');
    } finally {
      await p.close();
    }
  });
});

describe('a list expires only what it shows', () => {
  it('answers the overdue rows of its page as expired and leaves the rest to the sweeper', async () => {
    const p = await createTestProvider();
    try {
      const made: DepositView[] = [];
      for (let i = 0; i < 5; i++) made.push(await createFiat(p, { paymentMethod: 'QRIS' }));
      p.clock.offsetMs = 31 * 60 * 1000;
      const page = await listDeposits(p, '?limit=2');
      assert.deepEqual(
        page.docs.map((d) => [d.depositId, d.status]),
        made.slice(0, 2).map((d) => [d.depositId, 'expired']),
      );
      assert.deepEqual(
        page.docs[0].activityHistory.map((a) => a.status),
        ['pending', 'expired'],
      );
      const pending = await p.deps.db
        .selectFrom('deposits')
        .select('deposit_id')
        .where('status', '=', 'pending')
        .orderBy('created_at')
        .execute();
      assert.deepEqual(
        pending.map((r) => r.deposit_id),
        made.slice(2).map((d) => d.depositId),
        'the rows the page did not show are still pending',
      );
      const onlyPending = await listDeposits(p, '?status=pending&limit=2');
      assert.ok(
        onlyPending.docs.every(
          (d) => d.status === 'expired' || d.expiredAt > new Date(Date.now() + p.clock.offsetMs).toISOString(),
        ),
      );
      assert.equal(
        onlyPending.totalDocs,
        await p.deps.db
          .selectFrom('deposits')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('status', '=', 'pending')
          .executeTakeFirstOrThrow()
          .then((r) => Number(r.n)),
      );
    } finally {
      await p.close();
    }
  });
});

describe('the expiry sweep', () => {
  it('expires every overdue deposit, not a fixed batch, yielding to the event loop between them', async () => {
    const p = await createTestProvider();
    try {
      const template = await createFiat(p, { paymentMethod: 'QRIS' });
      const row = await p.deps.db
        .selectFrom('deposits')
        .selectAll()
        .where('deposit_id', '=', template.depositId)
        .executeTakeFirstOrThrow();
      const overdue = new Date(Date.now() - 60_000).toISOString();
      for (let i = 0; i < 1200; i += 200) {
        await p.deps.db
          .insertInto('deposits')
          .values(
            Array.from({ length: 200 }, (_, n) => ({
              ...row,
              id: `${row.id}-${i + n}`,
              deposit_id: `${row.deposit_id}-${i + n}`,
              va_number: null,
              reference: null,
              expired_at: overdue,
            })),
          )
          .execute();
      }
      let turns = 0;
      let spinning = true;
      const spin = () => {
        turns++;
        if (spinning) setImmediate(spin);
      };
      setImmediate(spin);
      const moved = await sweepOverdue(p.deps);
      spinning = false;
      assert.equal(moved, 1200);
      // A batch of expiries per transaction (10 on SQLite, each a few statements for all its rows), then a turn of the
      // event loop: at least one turn per batch.
      assert.ok(turns >= 1200 / 10, `the event loop turned ${turns} times during the sweep of 1,200 deposits`);
      const left = await p.deps.db
        .selectFrom('deposits')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('status', '=', 'pending')
        .where('expired_at', '<=', new Date().toISOString())
        .executeTakeFirstOrThrow();
      assert.equal(Number(left.n), 0);
    } finally {
      await p.close();
    }
  });
});
