// What must hold on either engine (SQLite by default; PostgreSQL when KASIR_TEST_DATABASE_URL is set, see
// test/support/with-postgres.sh): the engine asked for, value types, generated ids, and state changes that
// stay atomic when transactions run in parallel (PostgreSQL's pool) rather than one at a time (SQLite).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openDatabase } from '../../server/provider/db/database';
import { engineOf } from '../../server/provider/db/engine';
import { createTestProvider, testDatabaseUrl, type TestProvider } from '../support/provider';
import { createFiat, outbox } from './deposit-helpers';

const expected = testDatabaseUrl ? 'postgres' : 'sqlite';

describe(`database engine (${expected})`, () => {
  let p: TestProvider;
  before(async () => {
    p = await createTestProvider();
  });
  after(async () => {
    await p.close();
  });

  it('runs on the engine the suite asked for', () => {
    assert.equal(engineOf(p.deps.db), expected);
    assert.equal(p.deps.config.databaseUrl === undefined, expected === 'sqlite');
  });

  it('refuses a DATABASE_URL that is not PostgreSQL, naming what it takes', async () => {
    await assert.rejects(
      openDatabase({ dataDir: p.deps.config.dataDir, databaseUrl: 'mysql://localhost/kasir' }),
      /postgres:\/\/ or postgresql:\/\//,
    );
  });

  it('returns bigint columns and counts as numbers', async () => {
    const big = 2 ** 53 - 1;
    await p.deps.db
      .insertInto('signature_nonces')
      .values([
        { signature: 'engine-a', expires_at: big },
        { signature: 'engine-b', expires_at: 1_700_000_000_000 },
      ])
      .execute();
    const rows = await p.deps.db
      .selectFrom('signature_nonces')
      .select(['signature', 'expires_at'])
      .where('signature', 'in', ['engine-a', 'engine-b'])
      .orderBy('signature')
      .execute();
    assert.deepEqual(rows, [
      { signature: 'engine-a', expires_at: big },
      { signature: 'engine-b', expires_at: 1_700_000_000_000 },
    ]);
    const { n } = await p.deps.db
      .selectFrom('signature_nonces')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('signature', 'like', 'engine-%')
      .executeTakeFirstOrThrow();
    assert.equal(n, 2);
    const updated = await p.deps.db
      .updateTable('signature_nonces')
      .set({ expires_at: 1 })
      .where('signature', 'like', 'engine-%')
      .executeTakeFirst();
    assert.equal(Number(updated.numUpdatedRows), 2);
  });

  it('numbers webhook attempts itself, in order', async () => {
    const d = await createFiat(p);
    assert.equal((await p.bearer('PATCH', `/v1/deposit/${d.depositId}`, { status: 'completed' })).status, 200);
    const [delivery] = await p.deps.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('deposit_id', '=', d.depositId)
      .execute();
    const at = new Date().toISOString();
    await p.deps.db
      .insertInto('webhook_attempts')
      .values({ delivery_id: delivery.id, attempted_at: at, response_status: 500, error: 'x', duration_ms: 1 })
      .execute();
    await p.deps.db
      .insertInto('webhook_attempts')
      .values({ delivery_id: delivery.id, attempted_at: at, response_status: 200, error: null, duration_ms: 2 })
      .execute();
    const ids = (
      await p.deps.db
        .selectFrom('webhook_attempts')
        .select('id')
        .where('delivery_id', '=', delivery.id)
        .orderBy('id')
        .execute()
    ).map((r) => r.id);
    assert.equal(ids.length, 2);
    assert.ok(ids.every((id) => typeof id === 'number'));
    assert.ok(ids[1] > ids[0]);
  });

  it('moves a deposit once under concurrent transitions, and the others see the status it left', async () => {
    const d = await createFiat(p);
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        i % 2
          ? p.bearer('PATCH', `/v1/deposit/${d.depositId}/cancel`)
          : p.bearer('PATCH', `/v1/deposit/${d.depositId}`, { status: 'completed' }),
      ),
    );
    const bodies = await Promise.all(
      results.map(async (r) => ({ status: r.status, body: (await r.json()) as { message: string } })),
    );
    assert.equal(bodies.filter((b) => b.status === 200).length, 1, JSON.stringify(bodies));
    for (const b of bodies.filter((x) => x.status !== 200)) {
      assert.equal(b.status, 400);
      assert.match(
        b.body.message,
        /^(Deposit|status: deposit) is (completed|expired)[:;] /,
        'a loser reports the status the winner left',
      );
    }
    const row = await p.deps.db
      .selectFrom('deposits')
      .select(['id', 'status'])
      .where('deposit_id', '=', d.depositId)
      .executeTakeFirstOrThrow();
    const seqs = (
      await p.deps.db
        .selectFrom('deposit_activities')
        .select('seq')
        .where('deposit_row_id', '=', row.id)
        .orderBy('seq')
        .execute()
    ).map((a) => a.seq);
    assert.deepEqual(seqs, [1, 2]);
    assert.equal((await outbox(p, d.depositId)).length, 1, 'one webhook');
  });

  it('deletes a recipient once under concurrent deletes', async () => {
    const created = await p.signed('POST', '/v1/recipient', {
      name: 'Concurrent Delete',
      email: 'cd@example.test',
      address: 'Jl. 1',
      city: 'Jakarta',
      postCode: '10110',
      bank: { accountName: 'CD', bankName: 'BCA', accountNumber: '0123', currency: 'IDR', country: 'ID' },
    });
    assert.equal(created.status, 200, await created.clone().text());
    const { data } = (await created.json()) as { data: { id: string } };
    // Distinct timestamps: six different signed requests, not replays of one.
    const t0 = p.deps.now().getTime();
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        p.signed('DELETE', `/v1/recipient?id=${data.id}`, undefined, { timestamp: new Date(t0 - i).toISOString() }),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    assert.deepEqual(statuses, [200, 404, 404, 404, 404, 404]);
  });
});
