// The method list as docs/design.md, "The shopper's choice, on any device" says: grouped by kind (part="method-group",
// data-kind), closed disclosures with more than 6 methods, crypto by asset then network, the shopper's last choice
// first, "No fee" said once; and the shop's
// `strings` and the locale fallback (docs/design.md, "The element's public surface" and "The shopper's choice, on any
// device"). In real Chromium against the fake widget API.
import { expect, fixture, html } from '@open-wc/testing';
import type { KasirCheckout } from '../../widget/kasir-checkout';
import type { Checkout } from '../../widget/types';
import { FakeApi } from './fake-api';
import { checked, method, mount as mountElement, parts, pressKeys, reached, text, withFakeApi } from './fixture';

const group = (el: KasirCheckout, kind: string) =>
  el.shadowRoot!.querySelector<HTMLElement>(`[part="method-group"][data-kind="${kind}"]`)!;
/** Shown: laid out (a closed group's methods are in the DOM, hidden). */
const shown = (node: Element) => (node as HTMLElement).offsetParent !== null;

/** The element at `width` px (its max width lifted), once it shows the method list. */
async function mount({
  width = 480,
  checkoutId = '',
  ...attrs
}: { amount?: string; checkoutId?: string; locale?: string; width?: number } = {}) {
  const el = await mountElement({
    ...attrs,
    'checkout-id': checkoutId,
    style: `width: ${width}px; --kasir-max-width: none`,
  });
  await reached(el, 'choosing');
  await el.updateComplete;
  return el;
}

/** A checkout the shop made on its server, with its methods changed by `edit`. */
function checkoutWith(api: FakeApi, edit: (c: Checkout) => void) {
  const c = api.newCheckout();
  edit(c);
  return c.id;
}

describe('<kasir-checkout> method list', () => {
  let api: FakeApi;
  withFakeApi((a) => (api = a));

  it('groups by kind in the order va, bank, qris, ewallet, crypto; with more than 6 methods the groups start closed', async () => {
    const el = await mount();
    expect(parts(el, 'method-group').map((g) => g.dataset.kind)).to.deep.equal([
      'va',
      'bank',
      'qris',
      'ewallet',
      'crypto',
    ]);
    // Every method is in the DOM as part="method", in its kind's group.
    expect(parts(el, 'method')).to.have.length(10);
    for (const m of parts(el, 'method')) expect(m.closest('[part="method-group"]'), m.dataset.method).to.exist;
    // Groups of several: a closed disclosure (a button naming the kind, controlling the hidden list).
    for (const kind of ['va', 'ewallet', 'crypto']) {
      const button = group(el, kind).querySelector('h3 button')!;
      expect(button.getAttribute('aria-expanded'), kind).to.equal('false');
      const list = el.shadowRoot!.getElementById(button.getAttribute('aria-controls')!)!;
      expect(group(el, kind).contains(list)).to.be.true;
      expect(list.hidden).to.be.true;
      expect([...list.querySelectorAll('[part="method"]')].some(shown), kind).to.be.false;
    }
    // A kind with one method shows that method itself.
    expect(group(el, 'qris').querySelector('button.kind')).to.be.null;
    expect(shown(method(el, 'QRIS'))).to.be.true;
    expect(shown(method(el, 'BCA_TRANSFER'))).to.be.true;

    // Activating a group opens it (and closes the one open before); activating it again closes it.
    const va = group(el, 'va').querySelector<HTMLButtonElement>('button.kind')!;
    va.click();
    await el.updateComplete;
    expect(va.getAttribute('aria-expanded')).to.equal('true');
    expect(shown(method(el, 'BCA_VA')) && shown(method(el, 'BNI_VA'))).to.be.true;
    group(el, 'crypto').querySelector<HTMLButtonElement>('button.kind')!.click();
    await el.updateComplete;
    expect(va.getAttribute('aria-expanded')).to.equal('false');
    expect(shown(method(el, 'BCA_VA'))).to.be.false;
    expect(shown(method(el, 'USDC-POLYGON'))).to.be.true;
    group(el, 'crypto').querySelector<HTMLButtonElement>('button.kind')!.click();
    await el.updateComplete;
    expect(shown(method(el, 'USDC-POLYGON'))).to.be.false;
  });

  it('reaches every method by keyboard alone: Tab to a group, Enter or Space opens it, Tab into it', async () => {
    const el = await mount();
    const reachedByTab = new Set<string>();
    const kinds = ['va', 'ewallet', 'crypto'];
    el.shadowRoot!.querySelector<HTMLButtonElement>('button')!.focus();
    for (let i = 0; i < 40; i++) {
      const active = el.shadowRoot!.activeElement as HTMLElement | null;
      if (!active) break;
      if (active.dataset.method) reachedByTab.add(active.dataset.method);
      const kind = active.closest<HTMLElement>('[part="method-group"]')?.dataset.kind;
      if (
        active.classList.contains('kind') &&
        kind &&
        kinds.includes(kind) &&
        active.getAttribute('aria-expanded') === 'false'
      ) {
        await pressKeys(kind === 'ewallet' ? 'Space' : 'Enter');
        await el.updateComplete;
        kinds.splice(kinds.indexOf(kind), 1);
        continue;
      }
      await pressKeys('Tab');
    }
    // DANA is unavailable (disabled): every other method was reached.
    const available = parts(el, 'method')
      .filter((m) => !(m as HTMLButtonElement).disabled)
      .map((m) => m.dataset.method!);
    expect([...reachedByTab].sort()).to.deep.equal(available.sort());
  });

  it('with 6 methods or fewer, shows them all, grouped, without disclosures', async () => {
    const id = checkoutWith(
      api,
      (c) =>
        (c.methods = c.methods.filter((m) =>
          ['BCA_VA', 'BNI_VA', 'QRIS', 'OVO', 'ETH-ETHEREUM', 'USDC-POLYGON'].includes(m.code),
        )),
    );
    const el = await mount({ checkoutId: id });
    expect(parts(el, 'method-group').map((g) => g.dataset.kind)).to.deep.equal(['va', 'qris', 'ewallet', 'crypto']);
    expect(el.shadowRoot!.querySelectorAll('[aria-expanded]')).to.have.length(0);
    expect(parts(el, 'method').every(shown)).to.be.true;
  });

  it('offers the last choice at this shop first, on its own, and survives storage that throws', async () => {
    let el = await mount();
    method(el, 'BNI_VA').click();
    await reached(el, 'pending');
    expect(localStorage.getItem(`kasir-checkout:last:${location.origin}`)).to.equal('BNI_VA');
    el.remove();

    el = await mount({ amount: '99000' });
    const first = parts(el, 'method')[0];
    expect(first.dataset.method).to.equal('BNI_VA');
    expect(first.closest('[part="method-group"]'), 'not inside a closed group').to.be.null;
    expect(shown(first)).to.be.true;
    expect(text(first)).to.contain('Last used');
    // Not listed twice: its group holds the others.
    expect(el.shadowRoot!.querySelectorAll('[data-method="BNI_VA"]')).to.have.length(1);
    expect(
      [...group(el, 'va').querySelectorAll<HTMLElement>('[part="method"]')].map((m) => m.dataset.method),
    ).to.deep.equal(['BCA_VA']);
    el.remove();

    // Another shop (another endpoint origin) has its own.
    const other = await fixture<KasirCheckout>(
      html`<kasir-checkout endpoint="http://127.0.0.1:1/api" amount="150000" locale="en"></kasir-checkout>`,
    );
    await reached(other, 'choosing');
    await other.updateComplete;
    expect(parts(other, 'method')[0].dataset.method).to.equal('BCA_VA');
    other.remove();

    // Storage that throws (disabled cookies, a sandboxed frame): the list and a choice still work.
    const { getItem, setItem } = Storage.prototype;
    Storage.prototype.getItem = () => {
      throw new DOMException('denied', 'SecurityError');
    };
    Storage.prototype.setItem = Storage.prototype.getItem;
    try {
      el = await mount({ amount: '98000' });
      expect(parts(el, 'method')[0].dataset.method).to.equal('BCA_VA');
      method(el, 'QRIS').click();
      await reached(el, 'pending');
    } finally {
      Storage.prototype.getItem = getItem;
      Storage.prototype.setItem = setItem;
    }
  });

  it('says "No fee" once when no method costs more, not on every row', async () => {
    const id = checkoutWith(
      api,
      (c) =>
        (c.methods = c.methods.map((m) =>
          m.kind === 'crypto' ? { ...m, fee: '0' } : { ...m, fee: '0', total: c.amount },
        )),
    );
    const el = await mount({ checkoutId: id });
    expect(text(el.shadowRoot!.querySelector('.row'))).to.contain('No fee');
    const fiat = parts(el, 'method').filter((m) => !m.dataset.method!.includes('-'));
    expect(fiat.filter((m) => text(m).includes('No fee'))).to.have.length(0);
    expect(fiat.filter((m) => m.querySelector('.total'))).to.have.length(0);
    // A crypto row still says its total in its token.
    expect(text(method(el, 'USDC-POLYGON').querySelector('.total'))).to.equal('9.292308 USDC');
    // With fees, each row says its own.
    const fees = await mount({ amount: '151000' });
    expect(text(method(fees, 'BCA_VA')))
      .to.contain('Fee Rp 4,000')
      .and.contain('Rp 154,000');
    expect(text(method(fees, 'BCA_TRANSFER'))).to.contain('No fee');
  });

  it("leaves the pending screen's steps a numbered list (the list's styles are its own)", async () => {
    const el = await mount();
    method(el, 'QRIS').click();
    await reached(el, 'pending');
    await el.updateComplete;
    const step = el.shadowRoot!.querySelector('[part="instructions"] li')!;
    expect(getComputedStyle(step).display).to.equal('list-item');
    expect(getComputedStyle(step).listStyleType).to.equal('decimal');
  });

  for (const width of [320, 1000]) {
    for (const locale of ['en', 'id']) {
      it(`is accessible at ${width} px in ${locale}, closed and with a group open`, async () => {
        const el = await mount({ locale, width });
        expect(el.getBoundingClientRect().width).to.equal(width);
        await expect(el).to.be.accessible();
        group(el, 'crypto').querySelector<HTMLButtonElement>('button.kind')!.click();
        await el.updateComplete;
        await expect(el).to.be.accessible();
        // Nothing wider than the element.
        for (const node of el.shadowRoot!.querySelectorAll('*'))
          expect(node.scrollWidth, node.outerHTML.slice(0, 60)).to.be.at.most(width);
      });
    }
  }
});

describe('<kasir-checkout> strings and locale', () => {
  let api: FakeApi;
  const lang = document.documentElement.lang;
  withFakeApi((a) => (api = a));
  afterEach(() => (document.documentElement.lang = lang));

  it("replaces any text by key: the element's, a pending screen's, a failure's", async () => {
    const el = await mount();
    el.strings = {
      choose: 'Pick a way to pay',
      va: 'Bank account',
      checkNow: 'Did it arrive?',
      vaSteps: ['One', 'Two'],
      refused: 'Not this one.',
    };
    await el.updateComplete;
    expect(text(el.shadowRoot!.querySelector('h2'))).to.equal('Pick a way to pay');
    expect(text(group(el, 'va').querySelector('h3'))).to.equal('Bank account');
    method(el, 'BCA_VA').click();
    await reached(el, 'pending');
    await el.updateComplete;
    await checked(el);
    expect(text(parts(el, 'check-now')[0])).to.equal('Did it arrive?');
    expect([...parts(el, 'instructions')[0].querySelectorAll('li')].map(text)).to.deep.equal(['One', 'Two']);
    // A refused choice: the shop's words for it.
    api.refuse.QRIS = 'QRIS is off today';
    parts(el, 'change-method')[0].click();
    await reached(el, 'choosing');
    await el.updateComplete;
    method(el, 'QRIS').click();
    await reached(el, 'error');
    await el.updateComplete;
    expect(text(parts(el, 'result')[0])).to.contain('Not this one.');
  });

  it("follows the page's lang without a locale, then the browser's language, then English", async () => {
    const make = async () => {
      const el = await fixture<KasirCheckout>(html`<kasir-checkout endpoint="/api" amount="150000"></kasir-checkout>`);
      await reached(el, 'choosing');
      await el.updateComplete;
      return text(el.shadowRoot!.querySelector('h2'));
    };
    const language = Object.getOwnPropertyDescriptor(Navigator.prototype, 'language')!;
    const browser = (value: string) =>
      Object.defineProperty(navigator, 'language', { configurable: true, get: () => value });
    try {
      document.documentElement.lang = 'id';
      browser('en-US');
      expect(await make()).to.equal('Pilih cara bayar');
      document.documentElement.lang = '';
      browser('id-ID');
      expect(await make()).to.equal('Pilih cara bayar');
      // A page in a language the element does not speak: the browser's, if it does.
      document.documentElement.lang = 'fr';
      expect(await make()).to.equal('Pilih cara bayar');
      browser('de-DE');
      expect(await make()).to.equal('Choose how to pay');
      document.documentElement.lang = 'en-GB';
      browser('id-ID');
      expect(await make()).to.equal('Choose how to pay');
    } finally {
      delete (navigator as unknown as Record<string, unknown>).language;
      Object.defineProperty(Navigator.prototype, 'language', language);
    }
  });
});
