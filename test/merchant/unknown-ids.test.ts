// Ids the backend does not know: each may cost a call to the payment service, so an unknown id is
// remembered briefly (negative cache, nothing else kept of it) and each client address may look up only so many per
// minute; and an event stream does not lean on webhooks: while none reaches the backend, a stream re-reads the
// deposit as often as a poll would. Through real HTTP against a real sandbox.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Checkout, Deposit } from '@kasir/checkout';
import type { RunningMerchant } from '../../server/merchant/index';
import {
  openEvents,
  routeWebhooksTo,
  runningMerchant,
  startUpstream,
  waitFor,
  type Envelope,
  type Upstream,
} from './support';

describe('unknown checkout ids', () => {
  let up: Upstream;
  let merchant: RunningMerchant;
  // The backend's clock runs ahead of the real one by what a test lets pass.
  let ahead = 0;
  before(async () => {
    up = await startUpstream();
    merchant = await runningMerchant(
      up,
      { now: () => Date.now() + ahead },
      { statusRefreshMs: 100, unknownCheckoutRateLimit: 20 },
    );
  });
  after(async () => {
    await merchant.stop();
    await up.close();
  });
  const sessionCalls = (id: string) => up.calls.filter((call) => call.includes(id)).length;

  it('remembers an unknown id past the refresh interval: one upstream call, not one per read', async () => {
    const id = randomUUID();
    for (let i = 0; i < 3; i++) {
      assert.equal((await fetch(`${merchant.url}/api/checkouts/${id}/deposit`)).status, 404);
      assert.equal((await fetch(`${merchant.url}/api/checkouts/${id}`)).status, 404);
      ahead += 250; // past statusRefreshMs
    }
    assert.equal(sessionCalls(id), 1);
  });

  it('bounds the unknown ids one address may look up (429 past the bound, no upstream call), keeps no entry for them, and lets known checkouts through', async () => {
    const created = await fetch(`${merchant.url}/api/checkouts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ amount: '150000', currency: 'IDR' }),
    });
    const known = ((await created.json()) as Envelope<Checkout>).data.id;
    const { service } = merchant.app.api;
    const held = [service.checkouts.size, service.sessions.size];
    const before = up.calls.length;
    const statuses: number[] = [];
    for (let i = 0; i < 60; i++)
      statuses.push((await fetch(`${merchant.url}/api/checkouts/${randomUUID()}/deposit`)).status);
    // The first test's id counted too (its two reads in this minute missed).
    assert.ok(up.calls.length - before <= 20, `${up.calls.length - before} upstream calls for 60 unknown ids`);
    assert.ok(statuses.filter((s) => s === 404).length <= 20);
    assert.equal(statuses.at(-1), 429);
    assert.deepEqual([service.checkouts.size, service.sessions.size], held, 'no reader entry kept for an unknown id');
    assert.equal(
      (await fetch(`${merchant.url}/api/checkouts/${known}`)).status,
      200,
      'a known checkout is not refused',
    );
  });
});

describe('event streams when no webhook reaches the backend', () => {
  let up: Upstream;
  let merchant: RunningMerchant;
  before(async () => {
    up = await startUpstream();
    merchant = await runningMerchant(up, {}, { statusRefreshMs: 500 });
    await routeWebhooksTo(up, 'http://127.0.0.1:9'); // the receiver is elsewhere: no webhook arrives
  });
  after(async () => {
    await merchant.stop();
    await up.close();
  });

  it('a partial payment reaches the stream within about one refresh interval (as a poller sees it), not at the next heartbeat', async () => {
    const post = (path: string, body: unknown) =>
      fetch(`${merchant.url}/api${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const { data: checkout } = (await (
      await post('/checkouts', { amount: '150000', currency: 'IDR' })
    ).json()) as Envelope<Checkout>;
    assert.equal((await post(`/checkouts/${checkout.id}/deposit`, { method: 'BCA_TRANSFER' })).status, 201);
    const stream = openEvents(`${merchant.url}/api/checkouts/${checkout.id}/events`);
    try {
      await waitFor(() => stream.events.length > 0, 5000);
      await up.provider.pay(checkout.id, { amount: '50000' });
      const paidAt = Date.now();
      await waitFor(
        () => stream.events.some((e) => (JSON.parse(e.data ?? '{}') as Deposit).paidAmount === '50000'),
        3000,
      );
      assert.ok(Date.now() - paidAt < 3000);
    } finally {
      stream.close();
    }
  });
});
