// A server-rendered element (@kasir/merchant's renderCheckout: a declarative shadow root and the `served` attribute)
// takes over from what the page holds: the server's shadow root emptied and the same checkout rendered into it, no
// request for the checkout, `kasir-ready` fired; the list keeps the server's order (the shopper's last choice is not
// moved first, which would move the list under the shopper's finger); a tap makes the deposit as usual. A served
// pending deposit is loaded as usual (its screen is a chunk of its own). The page is parsed as a browser parses HTML
// (setHTMLUnsafe reads declarative shadow roots), in real Chromium against the fake widget API.
import { expect, waitUntil } from '@open-wc/testing';
import type { Checkout, KasirCheckout, Served } from '../../widget/kasir-checkout';
import en from '../../widget/locales/en';
import { FakeApi } from './fake-api';
import { method, parts, reached, withFakeApi } from './fixture';

/** The element as renderCheckout writes it, its shadow root holding `shadow`, parsed into the page. */
function serve(checkout: Checkout, shadow = '<p id="server">the server\'s list</p>', modal = false) {
  const served: Served = { checkout, words: en };
  const attribute = JSON.stringify(served).replace(/&/g, '&amp;').replace(/"/g, '&quot;');
  const host = document.createElement('div');
  const ready: Event[] = [];
  host.addEventListener('kasir-ready', (e) => ready.push(e));
  document.body.append(host);
  host.setHTMLUnsafe(
    `<kasir-checkout endpoint="/api" checkout-id="${checkout.id}" locale="en"${modal ? ' modal' : ''} served="${attribute}"><template shadowrootmode="open">${shadow}</template></kasir-checkout>`,
  );
  // Firefox upgrades an element parsed by setHTMLUnsafe later; the page's parser (and this) at once.
  customElements.upgrade(host);
  return { el: host.querySelector('kasir-checkout') as KasirCheckout, ready, host };
}

describe('<kasir-checkout> rendered by the server', () => {
  let api: FakeApi;
  withFakeApi((a) => (api = a));
  afterEach(() => document.querySelectorAll('div:has(> kasir-checkout)').forEach((host) => host.remove()));

  it('takes over the declarative shadow root from the served checkout, asking for nothing', async () => {
    const checkout = api.newCheckout();
    const { el, ready } = serve(checkout);
    await el.updateComplete;
    expect(el.state).to.equal('choosing');
    expect(el.shadowRoot!.querySelector('#server'), "the server's markup is replaced").to.be.null;
    const listed = parts(el, 'method').map((m) => m.dataset.method);
    expect(listed.sort()).to.deep.equal(checkout.methods.map((m) => m.code).sort());
    expect(ready).to.have.length(1);
    expect(api.calls, 'no request').to.deep.equal([]);
    method(el, 'QRIS').click();
    await reached(el, 'pending');
    // The deposit is made (then followed, as always); the checkout itself is never asked for.
    expect(api.calls[0].method + ' ' + api.calls[0].path).to.equal(`POST /checkouts/${checkout.id}/deposit`);
    expect(api.requests('GET', `/checkouts/${checkout.id}`)).to.deep.equal([]);
  });

  it('modal: open() shows the served checkout in its dialog, asking for nothing but the dialog', async () => {
    const checkout = api.newCheckout();
    const { el } = serve(checkout, '<dialog part="dialog"><p id="server">the server\'s list</p></dialog>', true);
    await el.updateComplete;
    await el.open();
    expect(el.shadowRoot!.querySelector('dialog')!.open).to.be.true;
    expect(el.shadowRoot!.querySelector('#server')).to.be.null;
    expect(parts(el, 'method')).to.have.length(checkout.methods.length);
    expect(api.calls, 'no request').to.deep.equal([]);
  });

  it("keeps the server's order: the shopper's last choice is not moved first", async () => {
    localStorage.setItem(`kasir-checkout:last:${location.origin}`, 'QRIS');
    const checkout = api.newCheckout();
    const { el } = serve(checkout);
    await el.updateComplete;
    expect(parts(el, 'method')[0].dataset.method).to.equal(checkout.methods[0].code);
    expect(checkout.methods[0].code).not.to.equal('QRIS');
  });

  it('a served pending deposit: the loading state, then the checkout and its screen loaded as usual', async () => {
    const created = api.newCheckout();
    const choose = await fetch(`/api/checkouts/${created.id}/deposit`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ method: 'BCA_VA' }),
    });
    expect(choose.status).to.equal(201);
    const checkout = (await (await fetch(`/api/checkouts/${created.id}`)).json()).data as Checkout;
    api.calls.length = 0;
    const { el } = serve(checkout);
    await el.updateComplete;
    expect(el.state).to.equal('loading');
    await reached(el, 'pending');
    await waitUntil(() => el.shadowRoot!.querySelector('[part="va-number"]'), 'the account number is shown');
    expect(api.requests('GET', `/checkouts/${created.id}`)).to.have.length(1);
  });
});
