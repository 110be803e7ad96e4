// What the element loads ahead while the shopper reads the method list: once the browser is idle, the QRIS view (the
// screen that costs most to draw), so a tap on it waits for the deposit only. A checkout without QRIS loads no view
// ahead. One page for the file: the order of the tests matters (a module, once loaded, stays loaded).
import { expect, waitUntil } from '@open-wc/testing';
import { FakeApi } from './fake-api';
import { choose, mount, part, reached, withFakeApi } from './fixture';

/** The modules of the views the page has fetched so far (their files' names). */
const views = () =>
  performance
    .getEntriesByType('resource')
    .map((entry) => /\/widget\/views\/([\w-]+)\.[jt]s(\?|$)/.exec(entry.name)?.[1])
    .filter((name): name is string => !!name);

/** Resolves once the browser has been idle (an idle callback, where there is one) and a little longer. */
const idle = () =>
  new Promise<void>((resolve) => {
    const later = () => setTimeout(resolve, 300);
    if ('requestIdleCallback' in window) requestIdleCallback(later);
    else later();
  });

describe('<kasir-checkout> loads ahead', () => {
  let api: FakeApi;
  withFakeApi((a) => (api = a));

  it('a checkout without QRIS loads no view while its list is read', async () => {
    const checkout = api.newCheckout();
    checkout.methods = checkout.methods.filter((m) => m.kind !== 'qris');
    const el = await mount({ 'checkout-id': checkout.id });
    await reached(el, 'choosing');
    await idle();
    await idle();
    expect(views()).to.deep.equal([]);
  });

  it("once the list is shown and the browser idle, QRIS's view is loaded before any tap; the tap shows its code", async () => {
    const el = await mount();
    await reached(el, 'choosing');
    await waitUntil(() => views().includes('qris'), "QRIS's view is never loaded ahead", { timeout: 3000 });
    expect(api.requests('POST', '/deposit'), 'no deposit was made').to.have.length(0);
    await choose(el, 'QRIS');
    await reached(el, 'pending');
    expect(part(el, 'qr')!.querySelector('svg path')!.getAttribute('d')).to.match(/^M\d/);
  });
});
