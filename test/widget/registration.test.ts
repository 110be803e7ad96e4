// Registering <kasir-checkout>: a second copy of the element on one page (two script tags, or an older and a newer
// version) is a no-op with a warning; and attributes the element cannot use show its error state with a localized
// message, before any request.
import { expect, fixture, waitUntil } from '@open-wc/testing';
import { KasirCheckout } from '../../widget/index';
import { FakeApi } from './fake-api';

const text = (node: Element | null | undefined) => (node?.textContent ?? '').replace(/[\s\u00a0]+/g, ' ').trim();
const reached = (el: KasirCheckout, state: string) =>
  waitUntil(() => el.state === state, `never reached ${state}`, { timeout: 3000 });

describe('<kasir-checkout> registration', () => {
  let warnings: string[];
  const warn = console.warn;
  beforeEach(() => {
    warnings = [];
    console.warn = (...args: unknown[]) => void warnings.push(args.map(String).join(' '));
  });
  afterEach(() => {
    console.warn = warn;
  });
  const ours = () => warnings.filter((w) => w.includes('<kasir-checkout> is already defined'));

  it('registers the element class that @kasir/checkout exports', () => {
    expect(customElements.get('kasir-checkout')).to.equal(KasirCheckout);
    expect(document.createElement('kasir-checkout')).to.be.instanceOf(KasirCheckout);
  });

  it('a second copy of the module (another version) does not throw: the first registration stays, with a warning', async () => {
    // The same source under another URL is another module instance: another KasirCheckout class, as a second copy is.
    const copy: typeof import('../../widget/kasir-checkout') = await import(
      `../../widget/kasir-checkout.ts?copy=${Math.random()}`
    );
    expect(copy.KasirCheckout).to.be.a('function').and.not.equal(KasirCheckout);
    expect(customElements.get('kasir-checkout')).to.equal(KasirCheckout);
    expect(ours()).to.have.length(1);
    expect(ours()[0]).to.contain('the first copy is used');
  });

  it('the script-tag build loaded twice beside it does not throw, and warns each time', async () => {
    const url = new URL('../../widget/dist/browser/kasir-checkout.js', import.meta.url).href;
    expect((await fetch(url)).ok, `${url} is missing: run npm run build first`).to.be.true;
    const failures: unknown[] = [];
    const onError = (e: ErrorEvent) => failures.push(e.error ?? e.message);
    window.addEventListener('error', onError);
    try {
      for (const n of [1, 2]) {
        const script = Object.assign(document.createElement('script'), { type: 'module', src: `${url}?tag=${n}` });
        await new Promise((resolve, reject) => {
          script.onload = resolve;
          script.onerror = reject;
          document.head.append(script);
        });
      }
    } finally {
      window.removeEventListener('error', onError);
    }
    expect(failures).to.deep.equal([]);
    expect(customElements.get('kasir-checkout')).to.equal(KasirCheckout);
    expect(ours()).to.have.length(2);
  });
});

describe('<kasir-checkout> with attributes it cannot use', () => {
  let api: FakeApi;
  let errors: Array<{ kind?: string; message: string; status?: number; url?: string }>;
  const record = (e: Event) => errors.push((e as CustomEvent).detail);
  beforeEach(() => {
    sessionStorage.clear();
    localStorage.clear();
    api = new FakeApi().install();
    errors = [];
    document.addEventListener('kasir-error', record);
  });
  afterEach(() => {
    document.removeEventListener('kasir-error', record);
    api.uninstall();
  });

  async function mount(attrs: {
    endpoint?: string;
    amount?: string;
    currency?: string;
    checkoutId?: string;
    locale?: string;
  }) {
    const el = document.createElement('kasir-checkout');
    for (const [name, value] of Object.entries({ locale: 'en', ...attrs })) {
      if (value !== undefined) el.setAttribute(name === 'checkoutId' ? 'checkout-id' : name, value);
    }
    await fixture(el);
    return el;
  }
  const result = (el: KasirCheckout) => el.shadowRoot!.querySelector('[part="result"]');

  const cases = [
    { attrs: { endpoint: '/api', amount: 'abc' }, says: 'invalid amount "abc"' },
    { attrs: { endpoint: '/api', amount: '-150000' }, says: 'invalid amount "-150000"' },
    { attrs: { endpoint: '/api', amount: '0' }, says: 'invalid amount "0"' },
    { attrs: { endpoint: '/api', amount: '150,000' }, says: 'invalid amount "150,000"' },
    { attrs: { endpoint: '/api', amount: '1e6' }, says: 'invalid amount "1e6"' },
    { attrs: { endpoint: '/api', amount: '150000', currency: 'rupiah' }, says: 'invalid currency "rupiah"' },
    { attrs: { endpoint: '/api', amount: '150000', currency: '' }, says: 'invalid currency ""' },
    { attrs: { endpoint: 'shop api', amount: '150000' }, says: 'invalid endpoint "shop api"' },
    { attrs: { endpoint: 'javascript:alert(1)', amount: '150000' }, says: 'invalid endpoint "javascript:alert(1)"' },
    {
      attrs: { endpoint: 'ftp://shop.example/api', checkoutId: 'chk_1' },
      says: 'invalid endpoint "ftp://shop.example/api"',
    },
  ];
  for (const { attrs, says } of cases) {
    it(`${JSON.stringify(attrs)}: the error state, a message for the shopper, "${says}" for the developers, no request`, async () => {
      const el = await mount(attrs);
      await reached(el, 'error');
      await el.updateComplete;
      expect(el.getAttribute('state')).to.equal('error');
      expect(result(el)!.getAttribute('role')).to.equal('alert');
      expect(text(result(el))).to.equal(
        'Something went wrong This payment is not set up correctly. Please contact the shop.',
      );
      expect(result(el)!.querySelectorAll('button'), 'nothing to retry').to.have.length(0);
      expect(errors).to.have.length(1);
      expect(errors[0]).to.include({ kind: 'config', status: undefined, url: undefined });
      expect(errors[0].message).to.match(
        new RegExp(`^kasir-checkout: ${says.replace(/[()[\]{}.*+?^$|\\]/g, '\\$&')}: `),
      );
      expect(api.calls).to.deep.equal([]);
    });
  }

  it('says it in Indonesian', async () => {
    const el = await mount({ endpoint: '/api', amount: 'seratus', locale: 'id' });
    await reached(el, 'error');
    await el.updateComplete;
    expect(text(result(el))).to.equal(
      'Terjadi kesalahan Pembayaran ini belum diatur dengan benar. Silakan hubungi toko.',
    );
  });

  it('recovers when the attribute is corrected', async () => {
    const el = await mount({ endpoint: '/api', amount: 'abc' });
    await reached(el, 'error');
    el.amount = '150000';
    await reached(el, 'choosing');
    expect(api.requests('POST', '/checkouts').map((c) => c.body)).to.deep.equal([
      { amount: '150000', currency: 'IDR' },
    ]);
  });

  for (const attrs of [
    { endpoint: 'https://shop.example/api', amount: '150000' },
    { endpoint: './api', amount: '150000.50', currency: 'usd' },
    { endpoint: '../shop/api', amount: '0.5', currency: 'USD' },
  ]) {
    it(`accepts ${JSON.stringify(attrs)}`, async () => {
      const el = await mount(attrs);
      await reached(el, 'choosing');
      expect(errors).to.deep.equal([]);
      expect(api.requests('POST', '/checkouts').map((c) => c.body)).to.deep.equal([
        { amount: attrs.amount, currency: attrs.currency ?? 'IDR' },
      ]);
    });
  }

  it('does not ask for amount and currency with a checkout-id', async () => {
    const el = await mount({ endpoint: '/api', checkoutId: api.newCheckout().id, amount: '', currency: '' });
    await reached(el, 'choosing');
    expect(errors).to.deep.equal([]);
  });
});
