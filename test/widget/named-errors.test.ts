// Errors a shop meets, named for its developers (kasir-error kind `config`): the shop's server refusing this page's
// origin (a 403 it lets the page read, naming the origin and KASIR_ALLOWED_ORIGINS), and an amount written with a
// thousands separator ("150.000" is Rp 150,000, not Rp 150), refused before any request.
import { expect } from '@open-wc/testing';
import type { FakeApi } from './fake-api';
import { choose, mount, part, reached, text, withFakeApi } from './fixture';

describe('<kasir-checkout>: errors named for the shop', () => {
  let api: FakeApi;
  withFakeApi((a) => (api = a));
  let details: Array<{ kind: string; message: string; status?: number; url?: string }>;
  const record = (e: Event) => details.push((e as CustomEvent).detail);
  beforeEach(() => {
    details = [];
    document.addEventListener('kasir-error', record);
  });
  afterEach(() => document.removeEventListener('kasir-error', record));

  it("order-token: sent with the order's creation and every action on its checkout (X-Kasir-Order-Token)", async () => {
    const el = await mount({ 'order-id': 'ORD-1001', 'order-token': '1764.t0ken', amount: '', currency: '' });
    await reached(el, 'choosing');
    const created = api.requests('POST', '/checkouts');
    expect(created.map((c) => [c.body, c.headers.get('x-kasir-order-token')])).to.deep.equal([
      [{ orderId: 'ORD-1001' }, '1764.t0ken'],
    ]);
    await choose(el, 'BCA_VA');
    const chosen = api.requests('POST', '/deposit');
    expect(chosen.map((c) => c.headers.get('x-kasir-order-token'))).to.deep.equal(['1764.t0ken']);
    expect(details).to.deep.equal([]);
  });

  it('a missing, wrong or expired order-token (401 naming orderToken): kind config', async () => {
    api.failWith = 401;
    api.failMessage =
      "orderToken: send the order's token (the element's order-token attribute), made on the shop's server with kasir.orderToken(orderId)";
    const el = await mount({ 'order-id': 'ORD-1001', amount: '', currency: '' });
    await reached(el, 'error');
    await el.updateComplete;
    expect(details.map((d) => [d.kind, d.status])).to.deep.equal([['config', 401]]);
    expect(details[0].message).to.contain('orderToken');
    expect(text(part(el, 'result'))).to.contain('This payment is not set up correctly');
  });

  it('a page on an origin the shop has not allowed: kind config, naming the origin and KASIR_ALLOWED_ORIGINS', async () => {
    // What the merchant backend answers such a page (readable by it: Access-Control-Allow-Origin is its origin).
    api.failWith = 403;
    api.failMessage = `This page's origin ${location.origin} is not allowed to use this shop's payment API: add it to KASIR_ALLOWED_ORIGINS (allowedOrigins) on the shop's server`;
    const el = await mount();
    await reached(el, 'error');
    await el.updateComplete;
    expect(details).to.have.length(1);
    expect(details[0].kind).to.equal('config');
    expect(details[0].status).to.equal(403);
    expect(details[0].message).to.contain(location.origin).and.contain('KASIR_ALLOWED_ORIGINS');
    // The shopper reads the truth (the page is not set up), not that the service cannot be reached.
    expect(text(part(el, 'result')))
      .to.contain('This payment is not set up correctly')
      .and.not.contain('could not reach');
    expect(part(el, 'result')!.querySelectorAll('button')).to.have.length(0);
  });

  for (const [amount, separator, plain] of [
    ['150,000', '","', '150000'],
    ['1.500.000', '"."', '1500000'],
  ]) {
    it(`amount="${amount}" in rupiah: refused before any request, naming ${separator} as a thousands separator`, async () => {
      const el = await mount({ amount });
      await reached(el, 'error');
      expect(details).to.have.length(1);
      expect(details[0].kind).to.equal('config');
      expect(details[0].message).to.contain(`${separator} as a thousands separator`).and.contain(`e.g. "${plain}"`);
      expect(api.calls).to.deep.equal([]);
    });
  }

  it('amount="150.000" in rupiah: the server says "." is a thousands separator (a currency\'s places are its to say), kind config', async () => {
    const el = await mount({ amount: '150.000' });
    await reached(el, 'error');
    expect(details).to.have.length(1);
    expect(details[0].kind).to.equal('config');
    expect(details[0].message).to.contain('"." as a thousands separator').and.contain('e.g. "150000"');
    expect(api.calls.map((call) => call.method + ' ' + call.path)).to.deep.equal(['POST /checkouts']);
  });

  it('amount="1,500.50" in dollars: the comma named, the plain amount keeps its cents', async () => {
    const el = await mount({ amount: '1,500.50', currency: 'USD' });
    await reached(el, 'error');
    expect(details[0].message).to.contain('"," as a thousands separator').and.contain('e.g. "1500.50"');
  });
});
