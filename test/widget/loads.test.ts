// The element's loads (the checkout, a deposit being made) run one at a time: a newer one aborts the requests of the
// one before it (their AbortSignal), whose answer is never shown. In real Chromium against the fake widget API.
import { expect, waitUntil } from '@open-wc/testing';
import { FakeApi } from './fake-api';
import { method, mount, part, reached, text, withFakeApi } from './fixture';

/** Holds the fake API's answers to POSTs whose path ends with `suffix` until released; records each request's signal. */
function holdPosts(suffix: string) {
  const fetch = window.fetch;
  const held: Array<{ body: string; signal?: AbortSignal | null; release: () => void }> = [];
  window.fetch = (input, init) => {
    if (init?.method !== 'POST' || !String(input).endsWith(suffix)) return fetch(input, init);
    return new Promise<Response>((resolve, reject) => {
      const request = { body: String(init.body), signal: init.signal, release: () => resolve(fetch(input, init)) };
      held.push(request);
      init.signal?.addEventListener('abort', () => reject(new DOMException('Aborted', 'AbortError')));
    });
  };
  return held;
}

describe('<kasir-checkout> loads', () => {
  let api: FakeApi;
  withFakeApi((a) => (api = a));

  it('a change of amount while the checkout is being made aborts that request; the newer checkout is shown', async () => {
    const held = holdPosts('/checkouts');
    const el = await mount({ amount: '150000' });
    await waitUntil(() => held.length === 1, 'the first checkout is asked for');
    el.amount = '160000';
    await waitUntil(() => held.length === 2, 'the second checkout is asked for');
    expect(held[0].signal?.aborted, 'the first request is aborted').to.be.true;
    expect(held[1].signal?.aborted).to.be.false;
    held[1].release();
    await reached(el, 'choosing');
    expect(api.only.amount).to.equal('160000');
    expect(text(part(el, 'amount'))).to.equal('Rp 160,000');
    // The aborted one's answer, were it to come, changes nothing.
    held[0].release();
    await new Promise((r) => setTimeout(r, 50));
    await el.updateComplete;
    expect(el.state).to.equal('choosing');
    expect(text(part(el, 'amount'))).to.equal('Rp 160,000');
  });

  it('a new load while a deposit is being made aborts the choice: no deposit of the old checkout is shown', async () => {
    const el = await mount({ amount: '150000' });
    await reached(el, 'choosing');
    const held = holdPosts('/deposit');
    method(el, 'BCA_VA').click();
    await waitUntil(() => held.length === 1, 'the deposit is asked for');
    el.amount = '170000';
    await waitUntil(() => held[0].signal?.aborted, 'the choice is aborted');
    await reached(el, 'choosing');
    expect(el.shadowRoot!.querySelector('[part="method"][aria-busy="true"]'), 'no choice is busy').to.not.exist;
  });
});
