import { aTimeout, expect, fixture, html, oneEvent, waitUntil } from '@open-wc/testing';
import { sendKeys } from '@web/test-runner-commands';
import '../../widget/kasir-checkout';
import type { KasirCheckout } from '../../widget/kasir-checkout';
import { correction, generate } from 'lean-qr/nano';
import { FakeApi, QR_DATA } from './fake-api';

const part = (el: KasirCheckout, name: string) => el.shadowRoot!.querySelector<HTMLElement>(`[part~="${name}"]`);
const parts = (el: KasirCheckout, name: string) => [...el.shadowRoot!.querySelectorAll<HTMLElement>(`[part~="${name}"]`)];
const text = (node: Element | null | undefined) => (node?.textContent ?? '').replace(/[\s\u00a0]+/g, ' ').trim();
const reached = (el: KasirCheckout, state: string) => waitUntil(() => el.state === state, `never reached ${state}`, { timeout: 3000 });

async function mount(api: FakeApi, attrs: Partial<{ amount: string; checkoutId: string; locale: string }> = {}) {
  const el = await fixture<KasirCheckout>(
    html`<kasir-checkout
      endpoint="/api"
      amount=${attrs.checkoutId ? '' : (attrs.amount ?? '150000')}
      currency="IDR"
      checkout-id=${attrs.checkoutId ?? ''}
      locale=${attrs.locale ?? 'en'}
    ></kasir-checkout>`,
  );
  return el;
}

async function choose(el: KasirCheckout, code: string) {
  await reached(el, 'choosing');
  el.shadowRoot!.querySelector<HTMLButtonElement>(`[part="method"][data-method="${code}"]`)!.click();
  await reached(el, 'pending');
  await el.updateComplete;
}

describe('<kasir-checkout>', () => {
  let api: FakeApi;
  beforeEach(() => {
    sessionStorage.clear();
    api = new FakeApi().install();
  });
  afterEach(() => api.uninstall());

  it('starts in loading, reflected, then offers the methods grouped by kind', async () => {
    api.hold = false;
    const el = await mount(api);
    expect(['loading', 'choosing']).to.include(el.getAttribute('state'));
    await reached(el, 'choosing');
    expect(el.getAttribute('state')).to.equal('choosing');
    expect(api.requests('POST', '/checkouts')).to.have.length(1);
    expect(api.calls[0].body).to.deep.equal({ amount: '150000', currency: 'IDR' });
    const groups = [...el.shadowRoot!.querySelectorAll('[role=group] h3')].map(text);
    expect(groups).to.deep.equal(['Virtual account', 'Bank transfer', 'QRIS', 'E-wallet']);
    const methods = parts(el, 'method');
    expect(methods.map((m) => m.dataset.method)).to.deep.equal(['BCA_VA', 'BNI_VA', 'BCA_TRANSFER', 'QRIS', 'OVO', 'DANA']);
    expect(text(methods[0])).to.contain('Bank Central Asia Virtual Account').and.contain('Fee Rp 4,000').and.contain('Rp 154,000');
    expect(methods[0].querySelector('img')).to.exist;
    expect(text(methods[2])).to.contain('No fee').and.contain('Rp 150,000');
    expect((methods[5] as HTMLButtonElement).disabled, 'unavailable method').to.be.true;
    expect(text(methods[5])).to.contain('Not available');
    expect(text(part(el, 'amount'))).to.equal('Rp 150,000');
    expect(text(part(el, 'countdown'))).to.match(/^Choose within\s*(15:00|14:59)/);
  });

  it('pays by virtual account: number grouped, copy buttons, exact amount, instructions', async () => {
    const el = await mount(api);
    const selected = oneEvent(el, 'kasir-method-selected');
    const pending = oneEvent(el, 'kasir-pending');
    await reached(el, 'choosing');
    part(el, 'method')!.click();
    expect((await selected).detail.method.code).to.equal('BCA_VA');
    expect((await pending).detail.deposit.accountNumber).to.equal('8808123456789012');
    await el.updateComplete;
    expect(api.requests('POST', '/deposit')[0].body).to.deep.equal({ method: 'BCA_VA' });
    expect(text(part(el, 'va-number'))).to.equal('8808 1234 5678 9012');
    expect(text(part(el, 'amount'))).to.equal('Rp 154,000');
    expect(parts(el, 'instructions')[0].querySelectorAll('li')).to.have.length(3);
    expect(part(el, 'check-now')).to.exist;
    expect(text(part(el, 'countdown'))).to.match(/Pay within\s*(29:59|30:00)/);

    const copied: string[] = [];
    const original = navigator.clipboard.writeText;
    navigator.clipboard.writeText = async (value: string) => void copied.push(value);
    try {
      const [copyNumber, copyAmount] = el.shadowRoot!.querySelectorAll<HTMLButtonElement>('button.copy');
      expect(text(copyNumber)).to.equal('Copy account number');
      copyNumber.click();
      await waitUntil(() => copied.length === 1);
      copyAmount.click();
      await waitUntil(() => copied.length === 2);
      expect(copied).to.deep.equal(['8808123456789012', '154000']);
      await el.updateComplete;
      expect(text(el.shadowRoot!.querySelector('[role=status]'))).to.contain('Copied: amount');
      expect(text(copyAmount)).to.contain('Copied');
    } finally {
      navigator.clipboard.writeText = original;
    }
    await expect(el).to.be.accessible();
  });

  it('pays by bank transfer: the account number and name, the exact amount', async () => {
    const el = await mount(api);
    await choose(el, 'BCA_TRANSFER');
    expect(text(part(el, 'va-number'))).to.equal('0123 4567 89');
    expect(text(el.shadowRoot!.querySelector('dl'))).to.contain('PT KASIR DEMO');
    expect(text(part(el, 'amount'))).to.equal('Rp 150,000');
    expect(text(part(el, 'instructions'))).to.contain('from any bank').and.not.contain('virtual account');
    await expect(el).to.be.accessible();
  });

  it('pays by QRIS: an inline SVG code with a quiet zone, crisp edges, and a PNG download', async () => {
    const el = await mount(api);
    await choose(el, 'QRIS');
    const svg = part(el, 'qr')!.querySelector('svg')!;
    expect(svg.getAttribute('shape-rendering')).to.equal('crispEdges');
    const [x, y, w] = svg.getAttribute('viewBox')!.split(' ').map(Number);
    expect(x).to.equal(-4);
    expect(y).to.equal(-4);
    const size = w - 8;
    expect(size % 4, 'a QR size is 17 + 4 x version').to.equal(1);
    const d = svg.querySelector('path')!.getAttribute('d')!;
    expect(d).to.match(/^M0 0h7v1H0z/); // the top-left finder pattern's first row
    const drawn = svg.getBoundingClientRect().width;
    expect(drawn % w, 'a whole number of pixels per module').to.equal(0);
    expect(drawn).to.be.within(200, 260);
    expect(svg.getAttribute('aria-label')!.replace(/\u00a0/g, ' ')).to.equal('QRIS code for Rp 151,050');
    expect(text(part(el, 'amount'))).to.equal('Rp 151,050');

    let download: HTMLAnchorElement | undefined;
    let blob: Blob | undefined;
    const click = HTMLAnchorElement.prototype.click;
    const createObjectURL = URL.createObjectURL;
    HTMLAnchorElement.prototype.click = function (this: HTMLAnchorElement) {
      download = this;
    };
    URL.createObjectURL = (b: Blob) => ((blob = b), createObjectURL(b));
    try {
      [...el.shadowRoot!.querySelectorAll('button')].find((b) => text(b) === 'Download QR code')!.click();
      await waitUntil(() => download, 'no download');
    } finally {
      HTMLAnchorElement.prototype.click = click;
      URL.createObjectURL = createObjectURL;
    }
    expect(download!.download).to.equal(`qris-${api.only.id}.png`);
    expect(download!.href).to.match(/^blob:/);
    expect(blob!.type).to.equal('image/png');
    const bitmap = await createImageBitmap(blob!);
    expect(bitmap.width).to.equal((size + 8) * 10);
    // Every module of the PNG (sampled at its centre) matches the encoder's, and the quiet zone is light.
    const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
    const ctx = canvas.getContext('2d')!;
    ctx.drawImage(bitmap, 0, 0);
    const pixels = ctx.getImageData(0, 0, bitmap.width, bitmap.height).data;
    const dark = (mx: number, my: number) => pixels[((my * 10 + 5) * bitmap.width + (mx * 10 + 5)) * 4] < 128;
    const code = generate(QR_DATA, { minCorrectionLevel: correction.M });
    expect(code.size).to.equal(size);
    const wrong: string[] = [];
    for (let my = 0; my < size + 8; my++) {
      for (let mx = 0; mx < size + 8; mx++) {
        if (dark(mx, my) !== code.get(mx - 4, my - 4)) wrong.push(`${mx - 4},${my - 4}`);
      }
    }
    expect(wrong, 'modules that differ').to.deep.equal([]);
    await expect(el).to.be.accessible();
  });

  it('pays by e-wallet: a link to the wallet, opened in a new tab', async () => {
    const el = await mount(api);
    await choose(el, 'OVO');
    const link = el.shadowRoot!.querySelector<HTMLAnchorElement>('a.button')!;
    expect(link.href).to.equal('https://wallet.example/approve/123');
    expect(link.target).to.equal('_blank');
    expect(link.rel).to.contain('noopener');
    expect(text(link)).to.equal('Continue to OVO (opens in a new tab)');
    await expect(el).to.be.accessible();
  });

  it('refuses an e-wallet link that is not http or https', async () => {
    api.uninstall();
    api = new FakeApi({ checkoutUrl: 'javascript:alert(1)' }).install();
    const el = await mount(api);
    const error = oneEvent(el, 'kasir-error');
    await reached(el, 'choosing');
    el.shadowRoot!.querySelector<HTMLButtonElement>('[data-method="OVO"]')!.click();
    expect((await error).detail.message).to.equal('This payment link cannot be opened safely.');
    expect(el.state).to.equal('error');
    expect(el.shadowRoot!.querySelector('a[href^="javascript"]')).to.not.exist;
  });

  it('shows the completed screen and fires kasir-completed', async () => {
    const el = await mount(api, {});
    el.pollInterval = 100;
    await choose(el, 'BCA_VA');
    const completed = oneEvent(el, 'kasir-completed');
    api.settle(api.only.id, 'completed');
    expect((await completed).detail.deposit.status).to.equal('completed');
    await el.updateComplete;
    expect(el.getAttribute('state')).to.equal('completed');
    expect(text(part(el, 'result'))).to.contain('Payment received').and.contain('Rp 154,000').and.contain('Bank Central Asia Virtual Account');
    expect(part(el, 'check-now')).to.not.exist;
    await el.updateComplete;
    expect(text(el.shadowRoot!.querySelector('[role=status]')), 'announced politely').to.equal('Payment received');
    await expect(el).to.be.accessible();
    const polls = api.requests('GET', '/deposit').length;
    await aTimeout(350);
    expect(api.requests('GET', '/deposit').length, 'polling stops once completed').to.equal(polls);
  });

  it('shows the expired screen, fires kasir-expired, and can start a new payment', async () => {
    const el = await mount(api);
    el.pollInterval = 100;
    await choose(el, 'QRIS');
    const expired = oneEvent(el, 'kasir-expired');
    api.settle(api.only.id, 'expired');
    expect((await expired).detail.deposit!.status).to.equal('expired');
    await el.updateComplete;
    expect(text(part(el, 'result'))).to.contain('Payment expired');
    await expect(el).to.be.accessible();
    const first = api.only.id;
    [...el.shadowRoot!.querySelectorAll('button')].find((b) => text(b) === 'Start a new payment')!.click();
    await reached(el, 'choosing');
    expect(api.only.id).to.not.equal(first);
    expect(api.requests('POST', '/checkouts')).to.have.length(2);
  });

  it('shows an error with a retry that works, and fires kasir-error', async () => {
    api.failWith = 0;
    const errors: string[] = [];
    const el = document.createElement('kasir-checkout');
    el.addEventListener('kasir-error', (e) => errors.push(e.detail.message));
    Object.assign(el, { endpoint: '/api', amount: '150000' });
    await fixture(el);
    await reached(el, 'error');
    expect(errors).to.have.length(1);
    expect(errors[0]).to.contain('could not reach');
    expect(text(part(el, 'result'))).to.contain('could not reach');
    expect(part(el, 'result')!.getAttribute('role')).to.equal('alert');
    await expect(el).to.be.accessible();
    api.failWith = null;
    const ready = oneEvent(el, 'kasir-ready');
    el.shadowRoot!.querySelector<HTMLButtonElement>('[part=result] button')!.click();
    expect((await ready).detail.checkout.id).to.equal(api.only.id);
    expect(el.state).to.equal('choosing');
  });

  it('chooses once on a double click, and shows the choice as busy meanwhile', async () => {
    const el = await mount(api);
    await reached(el, 'choosing');
    const button = part(el, 'method') as HTMLButtonElement;
    button.click();
    button.click();
    await el.updateComplete;
    expect(el.state).to.equal('choosing');
    expect(button.getAttribute('aria-busy')).to.equal('true');
    expect(button.disabled).to.be.true;
    await reached(el, 'pending');
    expect(api.requests('POST', '/deposit')).to.have.length(1);
  });

  it('shows the server message on a failed choice, and retries the same choice', async () => {
    const el = await mount(api);
    await reached(el, 'choosing');
    api.failWith = 502;
    part(el, 'method')!.click();
    await reached(el, 'error');
    expect(text(part(el, 'result'))).to.contain('could not reach');
    api.failWith = null;
    el.shadowRoot!.querySelector<HTMLButtonElement>('[part=result] button')!.click();
    await reached(el, 'pending');
    expect(api.requests('POST', '/deposit').map((c) => (c.body as { method: string }).method)).to.deep.equal(['BCA_VA', 'BCA_VA']);
  });

  it('fires its events in order, bubbling and composed, over a whole payment', async () => {
    const seen: string[] = [];
    const host = await fixture<HTMLDivElement>(html`<div></div>`);
    for (const type of ['kasir-ready', 'kasir-method-selected', 'kasir-pending', 'kasir-completed', 'kasir-expired', 'kasir-error'] as const) {
      host.addEventListener(type, (e) => {
        expect(e.bubbles && e.composed, type).to.be.true;
        seen.push(type);
      });
    }
    const el = document.createElement('kasir-checkout');
    Object.assign(el, { endpoint: '/api', amount: '150000', pollInterval: 100 });
    host.append(el);
    await choose(el, 'QRIS');
    api.settle(api.only.id, 'completed');
    await reached(el, 'completed');
    expect(seen).to.deep.equal(['kasir-ready', 'kasir-method-selected', 'kasir-pending', 'kasir-completed']);
  });

  it('resumes the same checkout and deposit after a reload, never creating a second one', async () => {
    const first = await mount(api);
    await choose(first, 'BCA_VA');
    const id = api.only.id;
    first.remove();
    // A reload: a new element for the same order, same tab (sessionStorage survives).
    const events: string[] = [];
    const again = document.createElement('kasir-checkout');
    again.addEventListener('kasir-ready', () => events.push('ready'));
    again.addEventListener('kasir-pending', () => events.push('pending'));
    Object.assign(again, { endpoint: '/api', amount: '150000', currency: 'IDR' });
    document.body.append(again);
    try {
      await reached(again, 'pending');
      expect(api.requests('POST', '/checkouts')).to.have.length(1);
      expect(api.requests('POST', '/deposit')).to.have.length(1);
      expect(api.requests('GET', `/checkouts/${id}`)).to.have.length(1);
      expect(events).to.deep.equal(['ready', 'pending']);
      await again.updateComplete;
      expect(text(part(again, 'va-number'))).to.equal('8808 1234 5678 9012');
    } finally {
      again.remove();
    }
  });

  it('starts afresh when the remembered checkout is gone, and remembers per order', async () => {
    sessionStorage.setItem('kasir-checkout:/api|150000|IDR', 'chk_gone');
    const el = await mount(api);
    await reached(el, 'choosing');
    expect(api.requests('GET', '/checkouts/chk_gone')).to.have.length(1);
    expect(api.requests('POST', '/checkouts')).to.have.length(1);
    expect(sessionStorage.getItem('kasir-checkout:/api|150000|IDR')).to.equal(api.only.id);
    const other = await mount(api, { amount: '99000' });
    await reached(other, 'choosing');
    expect(api.requests('POST', '/checkouts'), 'another amount is another checkout').to.have.length(2);
  });

  it('follows a change of amount: the new order gets its own checkout', async () => {
    const el = await mount(api);
    el.amount = '99000';
    await reached(el, 'choosing');
    await el.updateComplete;
    expect(text(part(el, 'amount'))).to.equal('Rp 99,000');
    expect(api.requests('POST', '/checkouts').map((c) => (c.body as { amount: string }).amount)).to.deep.equal(['150000', '99000']);
    await aTimeout(50);
    expect(text(part(el, 'amount'))).to.equal('Rp 99,000');
  });

  it('uses the checkout-id attribute over anything remembered, and never creates one', async () => {
    const made = api.newCheckout('275000');
    sessionStorage.setItem('kasir-checkout:/api||IDR', 'chk_other');
    const el = await mount(api, { checkoutId: made.id });
    await reached(el, 'choosing');
    expect(api.calls.map((c) => `${c.method} ${c.path}`)).to.deep.equal([`GET /checkouts/${made.id}`]);
    expect(text(part(el, 'amount'))).to.equal('Rp 275,000');
  });

  it('speaks Indonesian with Indonesian amounts', async () => {
    const el = await mount(api, { locale: 'id' });
    await reached(el, 'choosing');
    expect(text(el.shadowRoot!.querySelector('h2'))).to.equal('Pilih cara bayar');
    expect(text(part(el, 'amount'))).to.equal('Rp 150.000');
    expect(text(part(el, 'method'))).to.contain('Biaya Rp 4.000').and.contain('Rp 154.000');
    expect(el.shadowRoot!.querySelector('.card')!.getAttribute('lang')).to.equal('id');
    await expect(el).to.be.accessible();
    part(el, 'method')!.click();
    await reached(el, 'pending');
    await el.updateComplete;
    expect(text(part(el, 'instructions'))).to.contain('Buka aplikasi bank');
    expect(text(part(el, 'check-now'))).to.equal('Cek status pembayaran');
    expect(text(part(el, 'countdown'))).to.contain('Bayar dalam');
    el.locale = 'en';
    await el.updateComplete;
    expect(text(part(el, 'check-now'))).to.equal('Check payment status');
  });

  it('follows the page language when no locale is set', async () => {
    document.documentElement.lang = 'id';
    try {
      const el = await fixture<KasirCheckout>(html`<kasir-checkout endpoint="/api" amount="150000"></kasir-checkout>`);
      await reached(el, 'choosing');
      expect(text(el.shadowRoot!.querySelector('h2'))).to.equal('Pilih cara bayar');
    } finally {
      document.documentElement.lang = 'en';
    }
  });

  it('is accessible while choosing, and moves focus to the new screen after a choice', async () => {
    const el = await mount(api);
    await reached(el, 'choosing');
    await el.updateComplete;
    await expect(el).to.be.accessible();
    const button = part(el, 'method')!;
    button.focus();
    button.click();
    await reached(el, 'pending');
    await el.updateComplete;
    expect(el.shadowRoot!.activeElement?.tagName).to.equal('H2');
    expect(text(el.shadowRoot!.activeElement)).to.equal('Bank Central Asia Virtual Account');
  });

  it('works by keyboard alone: Tab to a method, Enter to choose, Tab to the copy and check buttons', async () => {
    const before = await fixture<HTMLButtonElement>(html`<button>before</button>`);
    const el = await mount(api);
    await reached(el, 'choosing');
    await el.updateComplete;
    before.focus();
    await sendKeys({ press: 'Tab' });
    expect(el.shadowRoot!.activeElement?.getAttribute('data-method')).to.equal('BCA_VA');
    await sendKeys({ press: 'Tab' });
    expect(el.shadowRoot!.activeElement?.getAttribute('data-method')).to.equal('BNI_VA');
    await sendKeys({ press: 'Enter' });
    await reached(el, 'pending');
    await el.updateComplete;
    expect(api.requests('POST', '/deposit')[0].body).to.deep.equal({ method: 'BNI_VA' });
    const stops: string[] = [];
    for (let i = 0; i < 3; i++) {
      await sendKeys({ press: 'Tab' });
      stops.push(text(el.shadowRoot!.activeElement));
    }
    expect(stops).to.deep.equal(['Copy account number', 'Copy amount', 'Check payment status']);
  });

  it('is themed by --kasir-* custom properties', async () => {
    const el = await mount(api);
    el.style.setProperty('--kasir-accent', 'rgb(200, 0, 100)');
    await reached(el, 'choosing');
    part(el, 'method')!.click();
    await reached(el, 'pending');
    await el.updateComplete;
    expect(getComputedStyle(part(el, 'check-now')!).color).to.equal('rgb(200, 0, 100)');
  });

  it('fits a 320 px phone without horizontal scrolling, in every phase', async () => {
    // A 320 px phone, less a storefront's 20 px margins.
    const box = await fixture<HTMLDivElement>(html`<div style="width: 280px"></div>`);
    const el = document.createElement('kasir-checkout');
    Object.assign(el, { endpoint: '/api', amount: '150000', locale: 'id', pollInterval: 100 });
    box.append(el);
    const fits = async (phase: string) => {
      await el.updateComplete;
      const card = el.shadowRoot!.querySelector<HTMLElement>('.card')!;
      expect(card.getBoundingClientRect().width, phase).to.be.at.most(280);
      for (const node of el.shadowRoot!.querySelectorAll<HTMLElement>('.card *')) {
        if (node.closest('.sr') || node.tagName === 'path' || node.tagName === 'rect') continue;
        const r = node.getBoundingClientRect();
        expect(r.right, `${phase}: ${node.tagName}.${node.className} ${node.textContent?.slice(0, 30)}`).to.be.at.most(card.getBoundingClientRect().right + 0.5);
      }
    };
    await reached(el, 'choosing');
    await fits('choosing');
    el.shadowRoot!.querySelector<HTMLButtonElement>('[data-method="BCA_VA"]')!.click();
    await reached(el, 'pending');
    await fits('va');
    api.settle(api.only.id, 'completed');
    await reached(el, 'completed');
    await fits('completed');
    el.restart();
    await reached(el, 'choosing');
    el.shadowRoot!.querySelector<HTMLButtonElement>('[data-method="QRIS"]')!.click();
    await reached(el, 'pending');
    await fits('qris');
    const qr = part(el, 'qr')!.querySelector('svg')!.getBoundingClientRect().width;
    expect(qr, 'the code stays large enough to scan').to.be.at.least(180);
  });
});
