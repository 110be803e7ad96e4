import { aTimeout, expect, fixture, html, oneEvent, waitUntil } from '@open-wc/testing';
import type { KasirCheckout } from '../../widget/kasir-checkout';
import { correction, generate } from 'lean-qr/nano';
import { FakeApi, QR_DATA } from './fake-api';
import { checked, choose, mount, part, parts, pressKeys, reached, text, withFakeApi } from './fixture';

/** Where the element remembers its checkout: the order, this page, and its place among the page's elements. */
const key = (amount: string, index = 0) =>
  `kasir-checkout:/api|${amount}|IDR|${location.pathname}${location.search}|${index}`;

describe('<kasir-checkout>', () => {
  let api: FakeApi;
  withFakeApi((a) => (api = a));

  it('starts in loading, reflected, then offers the methods grouped by kind', async () => {
    api.hold = false;
    const el = await mount();
    expect(['loading', 'choosing']).to.include(el.getAttribute('state'));
    await reached(el, 'choosing');
    expect(el.getAttribute('state')).to.equal('choosing');
    expect(api.requests('POST', '/checkouts')).to.have.length(1);
    expect(api.calls[0].body).to.deep.equal({ amount: '150000', currency: 'IDR' });
    // Grouped by kind (docs/design.md, "The shopper's choice, on any device"); more than 6 methods: each group of
    // several is a closed disclosure.
    const groups = parts(el, 'method-group');
    expect(groups.map((g) => g.dataset.kind)).to.deep.equal(['va', 'bank', 'qris', 'ewallet', 'crypto']);
    expect(groups.map((g) => text(g.querySelector('h3')))).to.deep.equal([
      'Virtual account',
      '',
      '',
      'E-wallet',
      'Crypto',
    ]);
    const methods = parts(el, 'method');
    expect(methods.map((m) => m.dataset.method)).to.deep.equal([
      'BCA_VA',
      'BNI_VA',
      'BCA_TRANSFER',
      'QRIS',
      'OVO',
      'DANA',
      'ETH-ETHEREUM',
      'USDC-POLYGON',
      'USDC-STELLAR',
      'XLM-STELLAR',
    ]);
    expect(text(methods[0]))
      .to.contain('Bank Central Asia Virtual Account')
      .and.contain('Fee Rp 4,000')
      .and.contain('Rp 154,000');
    expect(methods[0].querySelector('img')).to.exist;
    expect(text(methods[2])).to.contain('No fee').and.contain('Rp 150,000');
    expect((methods[5] as HTMLButtonElement).disabled, 'unavailable method').to.be.true;
    expect(text(methods[5])).to.contain('Not available');
    expect(text(part(el, 'amount'))).to.equal('Rp 150,000');
    expect(text(part(el, 'countdown'))).to.match(/^Choose within\s*(15:00|14:59)/);
  });

  it('pays by virtual account: number grouped, copy buttons, exact amount, instructions', async () => {
    const el = await mount();
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
    // The bank's own steps per channel (docs/indonesian-payments.md).
    expect(
      [...parts(el, 'instructions')[0].querySelectorAll<HTMLElement>('[data-channel]')].map((c) => c.dataset.channel),
    ).to.deep.equal(['atm', 'mobile', 'internet']);
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

  it('pays by bank transfer: the account number and name, the exact amount with its unique code, explained and copied', async () => {
    const el = await mount();
    await choose(el, 'BCA_TRANSFER');
    expect(text(part(el, 'va-number'))).to.equal('0123 4567 89');
    expect(text(el.shadowRoot!.querySelector('dl'))).to.contain('PT KASIR DEMO');
    expect(text(part(el, 'amount'))).to.equal('Rp 150,123');
    const steps = [...part(el, 'instructions')!.querySelectorAll('li')].map(text);
    expect(steps[1]).to.contain('from any bank').and.not.contain('virtual account');
    expect(steps[2]).to.equal(
      'Transfer exactly this amount: the last digits (123) identify your payment. This page updates by itself.',
    );
    const copied: string[] = [];
    const original = navigator.clipboard.writeText;
    navigator.clipboard.writeText = async (value: string) => void copied.push(value);
    try {
      el.shadowRoot!.querySelectorAll<HTMLButtonElement>('button.copy')[1].click();
      await waitUntil(() => copied.length === 1);
      expect(copied).to.deep.equal(['150123']);
    } finally {
      navigator.clipboard.writeText = original;
    }
    await expect(el).to.be.accessible();
  });

  it('explains the unique code of a bank transfer in Indonesian', async () => {
    const el = await mount({ locale: 'id' });
    await choose(el, 'BCA_TRANSFER');
    expect(text(part(el, 'amount'))).to.equal('Rp 150.123');
    expect(text(part(el, 'instructions'))).to.contain('digit terakhirnya (123) menandai pembayaran Anda');
  });

  it('pays by QRIS: an inline SVG code with a quiet zone, crisp edges, and a PNG download', async () => {
    const el = await mount();
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
    const el = await mount();
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
    const el = await mount();
    const error = oneEvent(el, 'kasir-error');
    await reached(el, 'choosing');
    el.shadowRoot!.querySelector<HTMLButtonElement>('[data-method="OVO"]')!.click();
    expect((await error).detail.message).to.equal('This payment link cannot be opened safely.');
    expect(el.state).to.equal('error');
    expect(el.shadowRoot!.querySelector('a[href^="javascript"]')).to.not.exist;
  });

  it('shows the completed screen and fires kasir-completed', async () => {
    const el = await mount();
    el.pollInterval = 100;
    await choose(el, 'BCA_VA');
    const completed = oneEvent(el, 'kasir-completed');
    api.settle(api.only.id, 'completed');
    expect((await completed).detail.deposit.status).to.equal('completed');
    await el.updateComplete;
    expect(el.getAttribute('state')).to.equal('completed');
    expect(text(part(el, 'result')))
      .to.contain('Payment received')
      .and.contain('Rp 154,000')
      .and.contain('Bank Central Asia Virtual Account');
    expect(part(el, 'check-now')).to.not.exist;
    await el.updateComplete;
    expect(text(el.shadowRoot!.querySelector('[role=status]')), 'announced politely').to.equal('Payment received');
    await expect(el).to.be.accessible();
    const polls = api.requests('GET', '/deposit').length;
    await aTimeout(350);
    expect(api.requests('GET', '/deposit').length, 'polling stops once completed').to.equal(polls);
  });

  it('shows the expired screen, fires kasir-expired, and can start a new payment', async () => {
    const el = await mount();
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

  describe('error messages, by the kind of failure', () => {
    const cases = [
      { status: 0, raw: '', says: 'We could not reach the payment service.', action: 'Try again' },
      // A 5xx: the shop's server or the payment service answered, so "could not reach" would not be true.
      { status: 500, raw: 'Internal Server Error', says: 'Payments are not available right now.', action: 'Try again' },
      { status: 502, raw: 'Bad Gateway', says: 'Payments are not available right now.', action: 'Try again' },
      { status: 503, raw: 'Service Unavailable', says: 'Payments are not available right now.', action: 'Try again' },
      { status: 429, raw: 'Too Many Requests', says: 'Too many attempts.', action: 'Try again' },
      {
        status: 400,
        raw: 'inputAmount: no payment method accepts this amount',
        says: 'This amount cannot be paid online.',
        action: null,
      },
      // No route to create a checkout: the endpoint is wrong (the page's setup), not an ended payment link.
      { status: 404, raw: 'Cannot POST /checkouts', says: 'This payment is not set up correctly.', action: null },
    ];
    let details: Array<{ message: string; status?: number }>;
    const record = (e: Event) => details.push((e as CustomEvent).detail);
    beforeEach(() => {
      details = [];
      document.addEventListener('kasir-error', record);
    });
    afterEach(() => document.removeEventListener('kasir-error', record));
    const buttons = (el: KasirCheckout) => [...part(el, 'result')!.querySelectorAll('button')].map(text);

    for (const { status, raw, says, action } of cases) {
      it(`creating the checkout fails with ${status || 'a network error'}: "${says}"${action ? `, "${action}"` : ', no button'}`, async () => {
        api.failWith = status;
        api.failMessage = raw;
        const el = await mount();
        await reached(el, 'error');
        await el.updateComplete;
        expect(text(part(el, 'result'))).to.contain(says);
        if (raw) expect(text(part(el, 'result')), 'no raw server text').to.not.contain(raw);
        expect(buttons(el)).to.deep.equal(action ? [action] : []);
        expect(details, 'the event carries the kind, the raw message, the status and the URL').to.deep.equal([
          {
            kind: !status ? 'network' : status > 499 ? 'server' : status === 404 ? 'config' : 'refused',
            message: raw || text(part(el, 'result')!.querySelector('p')),
            status: status || undefined,
            url: '/api/checkouts',
          },
        ]);
        if (action) {
          api.failWith = null;
          part(el, 'result')!.querySelector('button')!.click();
          await reached(el, 'choosing');
        }
      });
    }

    it("says what is missing to the shop's developers when amount and checkout-id are both missing, with no button", async () => {
      const el = await fixture<KasirCheckout>(html`<kasir-checkout endpoint="/api" locale="en"></kasir-checkout>`);
      await reached(el, 'error');
      await el.updateComplete;
      expect(text(part(el, 'result'))).to.equal(
        'Something went wrong This payment is not set up correctly. Please contact the shop.',
      );
      expect(details).to.deep.equal([
        {
          kind: 'config',
          message:
            'kasir-checkout: the amount attribute is missing: set amount (and currency), order-id or checkout-id',
          status: undefined,
          url: undefined,
        },
      ]);
      expect(api.calls).to.deep.equal([]);
    });

    it('speaks Indonesian: an unknown checkout-id, with no button (nothing to retry or restart)', async () => {
      const el = await mount({ 'checkout-id': 'chk_unknown', amount: '', locale: 'id' });
      await reached(el, 'error');
      await el.updateComplete;
      expect(text(part(el, 'result'))).to.equal(
        'Terjadi kesalahan Tautan pembayaran ini tidak dikenal atau sudah berakhir.',
      );
      expect(buttons(el)).to.deep.equal([]);
      expect(details).to.deep.equal([
        { kind: 'refused', message: 'Checkout not found', status: 404, url: '/api/checkouts/chk_unknown' },
      ]);
    });

    it('speaks Indonesian for every kind of failure', async () => {
      api.failWith = 429;
      const el = await mount({ locale: 'id' });
      await reached(el, 'error');
      await el.updateComplete;
      expect(text(part(el, 'result'))).to.contain('Terlalu banyak percobaan');
      expect(buttons(el)).to.deep.equal(['Coba lagi']);
      for (const [status, says] of [
        [503, 'Pembayaran sedang tidak tersedia'],
        [400, 'Jumlah ini tidak dapat dibayar'],
        [404, 'belum diatur dengan benar'],
      ] as const) {
        api.failWith = status;
        el.amount = `${status}000`;
        await waitUntil(() => text(part(el, 'result')).includes(says), `${status}: ${says}`, { timeout: 3000 });
      }
    });

    for (const [status, raw, says] of [
      [404, 'Checkout not found', 'This payment link is unknown or has ended.'],
      [409, 'Checkout is being updated', 'This payment could not be processed.'],
    ] as const) {
      it(`a choice that fails with ${status} offers "Start a new payment", which works`, async () => {
        const el = await mount();
        await reached(el, 'choosing');
        const old = api.only.id;
        api.failWith = status;
        api.failMessage = raw;
        part(el, 'method')!.click();
        await reached(el, 'error');
        await el.updateComplete;
        expect(text(part(el, 'result'))).to.equal(`Something went wrong ${says} Start a new payment`);
        expect(details).to.deep.equal([
          { kind: 'refused', message: raw, status, url: `/api/checkouts/${old}/deposit` },
        ]);
        api.failWith = null;
        part(el, 'result')!.querySelector('button')!.click();
        await reached(el, 'choosing');
        expect(api.only.id).to.not.equal(old);
      });
    }
  });

  it('chooses once on a double click, and shows the choice as busy meanwhile', async () => {
    const el = await mount();
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
    const el = await mount();
    await reached(el, 'choosing');
    api.failWith = 502;
    part(el, 'method')!.click();
    await reached(el, 'error');
    expect(text(part(el, 'result'))).to.contain('Payments are not available right now');
    api.failWith = null;
    el.shadowRoot!.querySelector<HTMLButtonElement>('[part=result] button')!.click();
    await reached(el, 'pending');
    expect(api.requests('POST', '/deposit').map((c) => (c.body as { method: string }).method)).to.deep.equal([
      'BCA_VA',
      'BCA_VA',
    ]);
  });

  it('fires its events in order, bubbling and composed, over a whole payment', async () => {
    const seen: string[] = [];
    const host = await fixture<HTMLDivElement>(html`<div></div>`);
    for (const type of [
      'kasir-ready',
      'kasir-method-selected',
      'kasir-pending',
      'kasir-completed',
      'kasir-expired',
      'kasir-error',
    ] as const) {
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
    const first = await mount();
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
    sessionStorage.setItem(key('150000'), 'chk_gone');
    const el = await mount();
    await reached(el, 'choosing');
    expect(api.requests('GET', '/checkouts/chk_gone')).to.have.length(1);
    expect(api.requests('POST', '/checkouts')).to.have.length(1);
    expect(sessionStorage.getItem(key('150000'))).to.equal(api.only.id);
    const other = await mount({ amount: '99000' });
    await reached(other, 'choosing');
    expect(api.requests('POST', '/checkouts'), 'another amount is another checkout').to.have.length(2);
  });

  for (const outcome of ['completed', 'expired'] as const) {
    it(`a new order at the same price after a ${outcome} payment gets a new checkout, not the old outcome`, async () => {
      const first = await mount();
      first.pollInterval = 1000;
      await choose(first, 'BCA_VA');
      const old = api.only.id;
      api.settle(old, outcome);
      await reached(first, outcome);
      first.remove();
      // A single-page shop puts a new element up for the next order, at the same price.
      const seen: string[] = [];
      const next = document.createElement('kasir-checkout');
      for (const type of ['kasir-completed', 'kasir-expired', 'kasir-pending'] as const)
        next.addEventListener(type, () => seen.push(type));
      Object.assign(next, { endpoint: '/api', amount: '150000', currency: 'IDR', locale: 'en' });
      document.body.append(next);
      try {
        await reached(next, 'choosing');
        expect(api.requests('POST', '/checkouts')).to.have.length(2);
        expect(api.only.id).to.not.equal(old);
        expect(sessionStorage.getItem(key('150000'))).to.equal(api.only.id);
        await aTimeout(50);
        expect(seen, 'the old outcome is not replayed').to.deep.equal([]);
        expect(next.state).to.equal('choosing');
      } finally {
        next.remove();
      }
    });
  }

  it('gives two elements for the same amount on one page a checkout each, and each resumes its own', async () => {
    const page = () =>
      fixture<HTMLDivElement>(html`<div>
      <kasir-checkout endpoint="/api" amount="150000" locale="en"></kasir-checkout>
      <kasir-checkout endpoint="/api" amount="150000" locale="en"></kasir-checkout>
    </div>`);
    const both = (box: HTMLElement) => [...box.querySelectorAll('kasir-checkout')];
    let box = await page();
    const [a, b] = both(box);
    await reached(a, 'choosing');
    await reached(b, 'choosing');
    expect(api.requests('POST', '/checkouts')).to.have.length(2);
    const ids = [sessionStorage.getItem(key('150000', 0)), sessionStorage.getItem(key('150000', 1))];
    expect(ids[0]).to.not.equal(ids[1]);
    await choose(b, 'QRIS');
    box.remove();
    // A reload: each element finds its own checkout again.
    box = await page();
    const [a2, b2] = both(box);
    await reached(a2, 'choosing');
    await reached(b2, 'pending');
    expect(api.requests('POST', '/checkouts')).to.have.length(2);
    expect(api.requests('POST', '/deposit')).to.have.length(1);
    expect(api.requests('GET', `/checkouts/${ids[0]}`)).to.have.length(1);
    expect(api.requests('GET', `/checkouts/${ids[1]}`)).to.have.length(1);
  });

  it('gives another order page (another query) its own checkout at the same price', async () => {
    const here = location.href;
    const first = await mount();
    await reached(first, 'choosing');
    const one = api.only.id;
    first.remove();
    history.replaceState(null, '', `${location.pathname}${location.search ? `${location.search}&` : '?'}order=2`);
    try {
      const second = await mount();
      await reached(second, 'choosing');
      expect(api.requests('POST', '/checkouts'), 'a second order page').to.have.length(2);
      expect(api.only.id).to.not.equal(one);
      second.remove();
    } finally {
      history.replaceState(null, '', here);
    }
    const again = await mount();
    await reached(again, 'choosing');
    expect(api.requests('POST', '/checkouts'), 'back on the first order page, its checkout is resumed').to.have.length(
      2,
    );
    expect(api.requests('GET', `/checkouts/${one}`)).to.have.length(1);
  });

  it('follows a change of amount: the new order gets its own checkout', async () => {
    const el = await mount();
    el.amount = '99000';
    // The update that starts the new order's checkout (the first may already be on screen, as in WebKit).
    await el.updateComplete;
    await reached(el, 'choosing');
    await el.updateComplete;
    expect(text(part(el, 'amount'))).to.equal('Rp 99,000');
    expect(api.requests('POST', '/checkouts').map((c) => (c.body as { amount: string }).amount)).to.deep.equal([
      '150000',
      '99000',
    ]);
    await aTimeout(50);
    expect(text(part(el, 'amount'))).to.equal('Rp 99,000');
  });

  it('uses the checkout-id attribute over anything remembered, and never creates one', async () => {
    const made = api.newCheckout('275000');
    sessionStorage.setItem('kasir-checkout:/api||IDR', 'chk_other');
    const el = await mount({ 'checkout-id': made.id, amount: '' });
    await reached(el, 'choosing');
    expect(api.calls.map((c) => `${c.method} ${c.path}`)).to.deep.equal([`GET /checkouts/${made.id}`]);
    expect(text(part(el, 'amount'))).to.equal('Rp 275,000');
  });

  it("asks the choice's preflight ahead on another origin (an endpoint given as a URL); reads past every cache, a POST with no cache mode", async () => {
    const made = api.newCheckout('150000');
    const el = await mount({ endpoint: 'https://api.shop.example/api', 'checkout-id': made.id, amount: '' });
    await reached(el, 'choosing');
    await waitUntil(() => api.requests('OPTIONS', '/deposit').length, 'the choice was not asked ahead');
    await choose(el, 'QRIS');
    expect(api.calls.map((c) => `${c.method} ${c.path} ${c.cache}`).slice(0, 3)).to.deep.equal([
      `GET /checkouts/${made.id} no-store`,
      `OPTIONS /checkouts/${made.id}/deposit undefined`,
      `POST /checkouts/${made.id}/deposit undefined`,
    ]);
  });

  it('speaks Indonesian with Indonesian amounts', async () => {
    const el = await mount({ locale: 'id' });
    await reached(el, 'choosing');
    expect(text(el.shadowRoot!.querySelector('h2'))).to.equal('Pilih cara bayar');
    expect(text(part(el, 'amount'))).to.equal('Rp 150.000');
    expect(text(part(el, 'method')))
      .to.contain('Biaya Rp 4.000')
      .and.contain('Rp 154.000');
    expect(el.shadowRoot!.querySelector('.card')!.getAttribute('lang')).to.equal('id');
    await expect(el).to.be.accessible();
    part(el, 'method')!.click();
    await reached(el, 'pending');
    await el.updateComplete;
    expect(text(part(el, 'instructions'))).to.contain('Buka BCA mobile dan masuk.');
    await checked(el);
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

  it('opens an already expired checkout on the expired screen, with no method list first and no focus moved', async () => {
    const made = api.newCheckout();
    made.expiresAt = new Date(Date.now() - 60_000).toISOString();
    const el = document.createElement('kasir-checkout');
    let first = '';
    el.addEventListener('kasir-ready', () => (first = `${el.state} ${parts(el, 'method').length} methods`));
    Object.assign(el, { endpoint: '/api', checkoutId: made.id, locale: 'en' });
    document.body.append(el);
    try {
      await reached(el, 'expired');
      await el.updateComplete;
      await aTimeout(50);
      expect(first, 'the first screen after loading').to.equal('expired 0 methods');
      expect(text(part(el, 'result'))).to.equal('Payment expired The time to pay ran out. Nothing was charged.');
      expect(el.shadowRoot!.activeElement, 'focus stays where the page put it').to.equal(null);
      expect(document.activeElement).to.equal(document.body);
    } finally {
      el.remove();
    }
  });

  it('is accessible while choosing, and moves focus to the new screen after a choice', async () => {
    const el = await mount();
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
    const el = await mount();
    await reached(el, 'choosing');
    await el.updateComplete;
    before.focus();
    // The virtual accounts' group is closed: Tab reaches its button, Enter opens it, Tab goes on into it.
    await pressKeys('Tab');
    expect(text(el.shadowRoot!.activeElement)).to.equal('Virtual account');
    await pressKeys('Enter');
    await el.updateComplete;
    expect(el.shadowRoot!.activeElement?.getAttribute('aria-expanded')).to.equal('true');
    await pressKeys('Tab');
    expect(el.shadowRoot!.activeElement?.getAttribute('data-method')).to.equal('BCA_VA');
    await pressKeys('Tab');
    expect(el.shadowRoot!.activeElement?.getAttribute('data-method')).to.equal('BNI_VA');
    await pressKeys('Enter');
    await reached(el, 'pending');
    await el.updateComplete;
    expect(api.requests('POST', '/deposit')[0].body).to.deep.equal({ method: 'BNI_VA' });
    await checked(el); // "check now" takes the focus once no check is in flight
    const stops: string[] = [];
    for (let i = 0; i < 6; i++) {
      await pressKeys('Tab');
      stops.push(text(el.shadowRoot!.activeElement));
    }
    // The bank's channels' steps (docs/indonesian-payments.md) open and close by keyboard too.
    expect(stops).to.deep.equal([
      'Copy account number',
      'Copy amount',
      'ATM',
      'BNI Mobile Banking (mobile banking)',
      'BNI Internet Banking (internet banking)',
      'Check payment status',
    ]);
  });

  it('is themed by --kasir-* custom properties', async () => {
    const el = await mount();
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
        expect(r.right, `${phase}: ${node.tagName}.${node.className} ${node.textContent?.slice(0, 30)}`).to.be.at.most(
          card.getBoundingClientRect().right + 0.5,
        );
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
