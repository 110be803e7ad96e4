// An order with money never leaves its checkout (docs/orders.md), through real HTTP against a real sandbox (SQLite, or
// PostgreSQL under test:server:pg): a re-priced order decides from a read that nothing was paid, then cancels the old
// deposit; a payment that the service answers 200 in between must keep the order on its checkout.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Checkout } from '@kasir/checkout';
import type { RunningMerchant } from '../../server/merchant/index';
import { ORDER_SECRET, orderTokenOf, runningMerchant, startUpstream, type Envelope, type Upstream } from './support';

describe('a re-priced order and a payment racing its cancel', () => {
  let up: Upstream;
  let merchant: RunningMerchant;
  const prices = new Map<string, string>();
  /** Deposits to pay just before the backend's cancel of them reaches the service. */
  const payBeforeCancel = new Set<string>();
  const paid: number[] = [];

  before(async () => {
    up = await startUpstream();
    const racingFetch: typeof fetch = async (input, init) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      const cancel = /^\/v1\/deposit\/([^/]+)\/cancel$/.exec(url.pathname);
      if (init?.method === 'PATCH' && cancel && payBeforeCancel.delete(cancel[1]!)) {
        // The shopper's payment commits between the backend's "nothing paid" and its cancel.
        const { baseUrl, accessToken } = up.config();
        const res = await fetch(`${baseUrl}/v1/deposit/${cancel[1]}/payments`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${accessToken}` },
          body: JSON.stringify({ amount: 20000 }),
        });
        paid.push(res.status);
      }
      return up.countingFetch(input, init);
    };
    merchant = await runningMerchant(
      up,
      { priceOrder: (orderId: string) => ({ amount: prices.get(orderId)!, currency: 'IDR' }), fetch: racingFetch },
      { sandbox: false, orderSecret: ORDER_SECRET },
    );
  });
  after(async () => {
    await merchant.stop();
    await up.close();
  });

  const orderId = 'ORD-race-1';
  /** The shopper's page: it holds the order's token, rendered by the shop's server, and sends it with every request. */
  const orderToken = orderTokenOf(orderId);
  const api = async <T>(method: string, path: string, body?: unknown) => {
    const res = await fetch(`${merchant.url}/api${path}`, {
      method,
      headers: { 'Content-Type': 'application/json', 'X-Kasir-Order-Token': orderToken },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json()) as Envelope<T> };
  };

  it('a payment answered 200 between the decision and the cancel keeps the order on its checkout', async () => {
    prices.set(orderId, '150000');
    const first = await api<Checkout>('POST', '/checkouts', { orderId, orderToken });
    assert.equal(first.status, 201, JSON.stringify(first.json));
    const id = first.json.data.id;
    assert.equal((await api('POST', `/checkouts/${id}/deposit`, { method: 'BCA_TRANSFER' })).status, 201);

    payBeforeCancel.add(id);
    prices.set(orderId, '160000');
    const again = await api<Checkout>('POST', '/checkouts', { orderId, orderToken });
    assert.deepEqual(paid, [200], 'the racing payment was answered 200');
    assert.equal(again.json.data.id, id, 'money arrived: the order stays on its checkout');
    const read = await api<{ paidAmount: string; status: string }>('GET', `/checkouts/${id}/deposit`);
    assert.equal(read.json.data.paidAmount, '20000');
    // And it stays there on the next load of the page.
    assert.equal((await api<Checkout>('POST', '/checkouts', { orderId, orderToken })).json.data.id, id);
  });
});
