// Idempotency-Key on the service's creates and sandbox payments (docs/idempotency.md), on SQLite and
// on PostgreSQL (test:server:pg): the same key with the same request gets the first answer again (status, body,
// Idempotent-Replayed: true) and changes nothing; another request under the key is a 422; a key still held by a
// request in progress is a 409; keys are per merchant and forgotten after 24 h; a malformed key is a 400 naming it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { databaseIdempotencyStore } from '../../server/provider/http/idempotency-store';
import { bodyOf, type Envelope } from '../support/envelope';
import { createTestProvider, type TestProvider } from '../support/provider';
import { addMerchant, fiatBody, listDeposits, readDeposit, type DepositView } from './deposit-helpers';

describe('Idempotency-Key', () => {
  let p: TestProvider;
  before(async () => {
    p = await createTestProvider();
  });
  after(async () => {
    await p.close();
  });

  let n = 0;
  const key = () => `key-${Date.now()}-${(n += 1)}`;
  const bearerWithKey = (path: string, body: unknown, idempotencyKey: string, token = p.creds.accessToken) =>
    p.app.request(`http://localhost${path}`, {
      method: 'POST',
      body: JSON.stringify(body),
      headers: {
        Authorization: `Bearer ${token}`,
        'Content-Type': 'application/json',
        'Idempotency-Key': idempotencyKey,
      },
    });
  // Each signed call its own timestamp: the same signature twice would be refused as a replay before any key is read.
  let tick = 0;
  const signedWithKey = (path: string, body: unknown, idempotencyKey: string) =>
    p.signed('POST', path, body, {
      headers: { 'Idempotency-Key': idempotencyKey },
      timestamp: new Date(Date.now() + p.clock.offsetMs + (tick += 1)).toISOString(),
    });
  const total = async () => (await listDeposits(p, '?limit=1')).totalDocs;

  it('a fiat create sent twice with one key: one deposit, the first answer again, marked replayed', async () => {
    const before = await total();
    const k = key();
    const first = await bearerWithKey('/v1/deposit/fiat', fiatBody(), k);
    const firstText = await first.text();
    assert.equal(first.status, 201, firstText);
    assert.equal(first.headers.get('idempotent-replayed'), null);
    const again = await bearerWithKey('/v1/deposit/fiat', fiatBody(), k);
    assert.equal(again.status, 201);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.match(again.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal(await again.text(), firstText);
    assert.equal(await total(), before + 1);
    // Without a key, the same body makes another deposit, as before.
    assert.equal((await p.bearer('POST', '/v1/deposit/fiat', fiatBody())).status, 201);
    assert.equal(await total(), before + 2);
  });

  it('a crypto create and a checkout: replayed the same way (a signed request, each with its own signature)', async () => {
    const k = key();
    const crypto = { inputCurrency: 'USDC-POLYGON', inputAmount: 10 };
    const first = await bearerWithKey('/v1/deposit/crypto', crypto, k);
    assert.equal(first.status, 201);
    const again = await bearerWithKey('/v1/deposit/crypto', crypto, k);
    assert.deepEqual(
      [again.status, again.headers.get('idempotent-replayed'), await again.text()],
      [201, 'true', await first.text()],
    );

    const checkoutKey = key();
    const order = { inputCurrency: 'IDR', inputAmount: 150000 };
    const checkout = await signedWithKey('/v1/checkout', order, checkoutKey);
    const checkoutText = await checkout.text();
    assert.equal(checkout.status, 200, checkoutText);
    const replayed = await signedWithKey('/v1/checkout', order, checkoutKey);
    assert.deepEqual(
      [replayed.status, replayed.headers.get('idempotent-replayed'), await replayed.text()],
      [200, 'true', checkoutText],
    );
  });

  it('a sandbox payment sent twice with one key is recorded once', async () => {
    const deposit = (
      await bodyOf<Envelope<DepositView>>(
        await p.bearer('POST', '/v1/deposit/fiat', fiatBody({ paymentMethod: 'BCA_TRANSFER' })),
      )
    ).data;
    const k = key();
    const first = await signedWithKey(`/v1/deposit/${deposit.depositId}/payments`, { amount: 1000 }, k);
    const firstBody = await bodyOf<Envelope<DepositView>>(first);
    assert.equal(first.status, 200, JSON.stringify(firstBody));
    assert.equal(firstBody.data.paidAmount, 1000);
    const again = await signedWithKey(`/v1/deposit/${deposit.depositId}/payments`, { amount: 1000 }, k);
    assert.deepEqual([again.status, again.headers.get('idempotent-replayed')], [200, 'true']);
    assert.deepEqual(await bodyOf(again), firstBody);
    assert.equal((await readDeposit(p, deposit.depositId)).paidAmount, 1000);
  });

  it('the same key with another body, or on another path: 422, nothing made', async () => {
    const before = await total();
    const k = key();
    assert.equal((await bearerWithKey('/v1/deposit/fiat', fiatBody(), k)).status, 201);
    const other = await bearerWithKey('/v1/deposit/fiat', fiatBody({ inputAmount: 160000 }), k);
    assert.equal(other.status, 422);
    assert.deepEqual(await other.json(), {
      statusCode: 422,
      error: 'Unprocessable Entity',
      message: 'Idempotency-Key reused with another request',
    });
    const elsewhere = await bearerWithKey('/v1/deposit/crypto', { inputCurrency: 'USDC-POLYGON', inputAmount: 10 }, k);
    assert.equal(elsewhere.status, 422);
    assert.equal(await total(), before + 1);
  });

  it("keys are per merchant: another merchant's same key makes its own deposit", async () => {
    const other = await addMerchant(p);
    const k = key();
    const mine = await bodyOf<Envelope<DepositView>>(await bearerWithKey('/v1/deposit/fiat', fiatBody(), k));
    const theirs = await bearerWithKey('/v1/deposit/fiat', fiatBody(), k, other.token);
    assert.equal(theirs.status, 201);
    assert.equal(theirs.headers.get('idempotent-replayed'), null);
    assert.notEqual((await bodyOf<Envelope<DepositView>>(theirs)).data.depositId, mine.data.depositId);
  });

  it('a refusal is kept too; a malformed key is a 400 naming the header', async () => {
    const k = key();
    const refused = await bearerWithKey('/v1/deposit/fiat', fiatBody({ paymentMethod: 'NOPE' }), k);
    assert.equal(refused.status, 400);
    const again = await bearerWithKey('/v1/deposit/fiat', fiatBody({ paymentMethod: 'NOPE' }), k);
    assert.deepEqual([again.status, again.headers.get('idempotent-replayed')], [400, 'true']);
    for (const bad of ['', 'x'.repeat(256), 'with space', 'caf\u00e9']) {
      const res = await p.app.request('http://localhost/v1/deposit/fiat', {
        method: 'POST',
        body: JSON.stringify(fiatBody()),
        headers: {
          Authorization: `Bearer ${p.creds.accessToken}`,
          'Content-Type': 'application/json',
          'Idempotency-Key': bad,
        },
      });
      assert.equal(res.status, 400, JSON.stringify(bad));
      assert.match(
        ((await res.json()) as { message: string }).message,
        /^Idempotency-Key: send 1 to 255 visible ASCII characters/,
      );
    }
  });

  it('after 24 h a key is forgotten: the same request makes a new deposit', async () => {
    const k = key();
    const first = await bodyOf<Envelope<DepositView>>(await bearerWithKey('/v1/deposit/fiat', fiatBody(), k));
    p.clock.offsetMs += 24 * 3600_000 + 1000;
    try {
      const later = await bearerWithKey('/v1/deposit/fiat', fiatBody(), k);
      assert.deepEqual([later.status, later.headers.get('idempotent-replayed')], [201, null]);
      assert.notEqual((await bodyOf<Envelope<DepositView>>(later)).data.depositId, first.data.depositId);
    } finally {
      p.clock.offsetMs -= 24 * 3600_000 + 1000;
    }
  });

  it('the store: a key held by a request in progress is in flight for another; a lapsed hold is taken over; expired keys are swept', async () => {
    const store = databaseIdempotencyStore(p.deps);
    const times = { leaseMs: 60_000, ttlMs: 24 * 3600_000 };
    const first = await store.claim('m1', 'held', 'f1', times);
    assert.equal(first.state, 'claimed');
    assert.deepEqual(await store.claim('m1', 'held', 'f1', times), { state: 'in-flight' });
    assert.deepEqual(await store.claim('m1', 'held', 'f2', times), { state: 'mismatch' });
    // Concurrent claims of a fresh key: exactly one wins.
    const racing = await Promise.all(Array.from({ length: 8 }, () => store.claim('m1', 'race', 'f', times)));
    assert.equal(racing.filter((c) => c.state === 'claimed').length, 1);
    // The holder never finished (its copy died): after the lease another request takes the key over.
    p.clock.offsetMs += 61_000;
    try {
      const taken = await store.claim('m1', 'held', 'f1', times);
      assert.equal(taken.state, 'claimed');
      // The first holder's late answer is not kept: the key is the new holder's.
      await store.save('m1', 'held', (first as { token: string }).token, { status: 201, body: 'late' }, times.ttlMs);
      assert.deepEqual(await store.claim('m1', 'held', 'f1', times), { state: 'in-flight' });
      await store.save(
        'm1',
        'held',
        (taken as { token: string }).token,
        { status: 201, contentType: 'application/json', body: '{}' },
        times.ttlMs,
      );
      assert.deepEqual(await store.claim('m1', 'held', 'f1', times), {
        state: 'replay',
        answer: { status: 201, contentType: 'application/json', body: '{}' },
      });
    } finally {
      p.clock.offsetMs -= 61_000;
    }
    // A released key is free at once.
    const released = await store.claim('m1', 'released', 'f', times);
    await store.release('m1', 'released', (released as { token: string }).token);
    assert.equal((await store.claim('m1', 'released', 'f', times)).state, 'claimed');
    // Past their lifetime, keys are deleted by the next claim's sweep (at most once a minute per store).
    p.clock.offsetMs += 2 * 24 * 3600_000;
    try {
      await databaseIdempotencyStore(p.deps).claim('m1', 'sweeper', 'f', times);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const left = await p.deps.db
        .selectFrom('idempotency_keys')
        .select('idempotency_key')
        .where('merchant_id', '=', 'm1')
        .execute();
      assert.deepEqual(
        left.map((row) => row.idempotency_key),
        ['sweeper'],
      );
    } finally {
      p.clock.offsetMs -= 2 * 24 * 3600_000;
    }
  });
});
