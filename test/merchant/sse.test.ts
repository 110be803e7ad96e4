import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PaymentServiceClient } from '../../server/merchant/client/client';
import type { RunningMerchant } from '../../server/merchant/server';
import type { CompletedDeposit } from '../../server/merchant/hooks';
import type { Checkout, Deposit } from '@kasir/checkout';
import { bodyOf, dataOf, errorOf } from '../support/envelope';
import {
  openEvents,
  runningMerchant,
  startUpstream,
  waitFor,
  type AnyEnvelope,
  type Envelope,
  type Upstream,
} from './support';

describe("merchant backend: live status over SSE, fed by the payment service's webhooks", () => {
  let up: Upstream;
  let merchant: RunningMerchant;
  let provider: PaymentServiceClient;
  const completed: CompletedDeposit[] = [];

  before(async () => {
    up = await startUpstream();
    // Long heartbeat and refresh: a change can only arrive through a webhook.
    merchant = await runningMerchant(
      up,
      {
        heartbeatMs: 60_000,
        sseMaxPerAddress: 50,
        onDepositCompleted: (e) => {
          completed.push(e);
        },
      },
      { statusRefreshMs: 60_000 },
    );
    const c = up.provider.credentials;
    provider = new PaymentServiceClient({
      baseUrl: c.baseUrl,
      clientId: c.clientId,
      clientSecret: c.clientSecret,
      accessToken: c.accessToken,
    });
  });
  after(async () => {
    await merchant.stop();
    await up.close();
  });

  /** POSTs JSON to the running backend; its answer as the type the test expects. */
  const post = async <T = AnyEnvelope>(path: string, body?: unknown) => {
    const res = await fetch(merchant.url + path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, json: await bodyOf<T>(res) };
  };
  const newCheckout = async (amount: string) =>
    (await post<Envelope<Checkout>>('/api/checkouts', { amount, currency: 'IDR' })).json.data;

  describe('a stream opened before a method is chosen', () => {
    let checkout: Checkout;
    let stream: ReturnType<typeof openEvents>;
    let readsBefore: number;
    before(async () => {
      checkout = await newCheckout('125000');
      stream = openEvents(`${merchant.url}/api/checkouts/${checkout.id}/events`);
    });
    after(() => stream.close());

    it('opens as an event stream and sends nothing before a method is chosen', async () => {
      await waitFor(() => stream.status === 200);
      assert.match(stream.contentType, /^text\/event-stream/);
      assert.equal(stream.events.length, 0, 'nothing to send before a method is chosen');
    });

    it('pushes the chosen deposit', async () => {
      await post(`/api/checkouts/${checkout.id}/deposit`, { method: 'BRI_VA' });
      await waitFor(() => stream.events.length === 1);
      assert.equal(stream.events[0].event, 'deposit');
      const pending = JSON.parse(stream.events[0].data!) as Deposit;
      assert.equal(pending.status, 'pending');
      assert.match(pending.accountNumber!, /^\d{16}$/);
    });

    it('pushes the completion the moment its webhook lands, showing only what a shopper may see', async () => {
      // The shopper pays at the payment service: the backend hears of it only through the webhook.
      readsBefore = up.calls.length;
      await provider.sandboxUpdateDeposit(checkout.id, 'completed');
      await waitFor(() => stream.events.length === 2, 10_000);
      const done = JSON.parse(stream.events[1].data!) as Deposit;
      assert.equal(done.status, 'completed');
      assert.equal(done.id, checkout.id);
      assert.doesNotMatch(stream.events[1].data!, /userId|activityHistory|note/);
    });

    it('closes on the terminal status, having read nothing upstream: the webhook carried the change', async () => {
      await stream.done; // the server closed the stream on the terminal status
      assert.equal(up.calls.length, readsBefore, 'no upstream read: the webhook carried the change');
    });

    it('calls onDepositCompleted for the checkout', async () => {
      await waitFor(() => completed.length === 1);
      assert.equal(completed[0].checkoutId, checkout.id);
      assert.equal(completed[0].deposit.status, 'completed');
    });

    it('agrees with the status read, served from the cache', async () => {
      const res = await fetch(`${merchant.url}/api/checkouts/${checkout.id}/deposit`);
      assert.equal((await dataOf<Deposit>(res)).status, 'completed');
    });
  });

  it('sends the current deposit on connect and closes at once when it is already final', async () => {
    const checkout = await newCheckout('40000');
    await post(`/api/checkouts/${checkout.id}/deposit`, { method: 'QRIS' });
    await post(`/api/sandbox/checkouts/${checkout.id}/expire`);
    const stream = openEvents(`${merchant.url}/api/checkouts/${checkout.id}/events`);
    await stream.done;
    assert.equal(stream.events.length, 1);
    assert.equal(JSON.parse(stream.events[0].data!).status, 'expired');
  });

  it('fans one change out to many listeners', async () => {
    const checkout = await newCheckout('45000');
    await post(`/api/checkouts/${checkout.id}/deposit`, { method: 'DANA' });
    const streams = Array.from({ length: 25 }, () => openEvents(`${merchant.url}/api/checkouts/${checkout.id}/events`));
    await waitFor(() => streams.every((s) => s.events.length === 1));
    await waitFor(() => merchant.app.api.service.deposits.listenerCount(checkout.id) === 25);
    await provider.sandboxUpdateDeposit(checkout.id, 'completed');
    await Promise.all(streams.map((s) => s.done));
    for (const s of streams) assert.equal(JSON.parse(s.events[1].data!).status, 'completed');
    await waitFor(() => merchant.app.api.service.deposits.listenerCount(checkout.id) === 0);
  });

  it('stops listening when the shopper goes away', async () => {
    const checkout = await newCheckout('46000');
    const stream = openEvents(`${merchant.url}/api/checkouts/${checkout.id}/events`);
    await waitFor(() => merchant.app.api.service.deposits.listenerCount(checkout.id) === 1);
    stream.close();
    await stream.done;
    // The next change notices the closed connection and unsubscribes.
    await post(`/api/checkouts/${checkout.id}/deposit`, { method: 'QRIS' });
    await waitFor(() => merchant.app.api.service.deposits.listenerCount(checkout.id) === 0);
  });

  it('without webhooks, heartbeats re-read the status (bounded) and still push the change', async () => {
    // A second copy of the backend that receives no webhooks (they go to the first one).
    const { startMerchant } = await import('../../server/merchant/server');
    const lonely = await startMerchant({
      ...up.config({ statusRefreshMs: 100 }),
      fetch: up.countingFetch,
      heartbeatMs: 150,
      port: 0,
    });
    try {
      const created = await fetch(`${lonely.url}/api/checkouts`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ amount: '47000', currency: 'IDR' }),
      });
      const checkout = await dataOf<Checkout>(created);
      await fetch(`${lonely.url}/api/checkouts/${checkout.id}/deposit`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ method: 'QRIS' }),
      });
      const raw: string[] = [];
      const res = await fetch(`${lonely.url}/api/checkouts/${checkout.id}/events`);
      const reading = (async () => {
        const decoder = new TextDecoder();
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>)
          raw.push(decoder.decode(chunk, { stream: true }));
      })();
      await waitFor(() => raw.join('').includes('"status":"pending"'));
      await provider.sandboxUpdateDeposit(checkout.id, 'completed');
      await reading; // closed by the server after the completed deposit
      const text = raw.join('');
      assert.match(text, /^: ping$/m);
      assert.match(text, /"status":"completed"/);
    } finally {
      await lonely.stop();
    }
  });

  it('answers an unknown checkout with a 404 envelope, not a stream', async () => {
    const res = await fetch(`${merchant.url}/api/checkouts/00000000-0000-4000-8000-000000000000/events`);
    assert.equal(res.status, 404);
    assert.equal((await errorOf(res)).statusCode, 404);
  });
});
