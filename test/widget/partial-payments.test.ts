// Payments that do not go as planned (docs/design.md, "Payments that do not go as planned"), paying on a phone
// (docs/design.md, "The shopper's choice, on any device") and failures the shop's developers see (docs/design.md,
// "Seeing and testing an integration"), in real Chromium against the fake widget API.
import { expect, oneEvent, waitUntil } from '@open-wc/testing';
import type { KasirCheckout } from '../../widget/kasir-checkout';
import type { KasirErrorDetail, KasirOpenExternalEvent } from '../../widget/events';
import { CRYPTO, FakeApi } from './fake-api';
import {
  checked,
  choose,
  loadJsQr,
  method,
  mount,
  part,
  reached,
  readQr,
  recordClipboard,
  text,
  withFakeApi,
} from './fixture';

/** part="paid": each row's label and amount. */
const paidText = (el: KasirCheckout) =>
  [...(part(el, 'paid')?.querySelectorAll('span, strong') ?? [])].map(text).join(' ');
const notice = (el: KasirCheckout) => text(el.shadowRoot!.querySelector('[role=status]'));

/** Waits until the element shows the deposit as the fake now has it (the next poll). */
async function check(el: KasirCheckout) {
  await checked(el); // a click while a check is in flight does nothing ("check now" is disabled)
  part(el, 'check-now')?.click();
  await el.updateComplete;
  await checked(el);
  await el.updateComplete;
}

/** Records console.warn and kasir-error events. */
function recordFailures() {
  const warnings: string[] = [];
  const details: KasirErrorDetail[] = [];
  const warn = console.warn;
  console.warn = (...args: unknown[]) =>
    void warnings.push(args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' '));
  const record = (e: Event) => details.push((e as CustomEvent<KasirErrorDetail>).detail);
  document.addEventListener('kasir-error', record);
  return {
    warnings,
    details,
    restore: () => {
      console.warn = warn;
      document.removeEventListener('kasir-error', record);
    },
  };
}

describe('<kasir-checkout> payments not as planned (docs/design.md, "Payments that do not go as planned")', () => {
  let api: FakeApi;
  withFakeApi((a) => (api = a));

  it('a USDC deposit paid 60 %: shows what arrived and the rest, and asks for the rest only (amount, copy, QR); paying the rest completes it', async () => {
    const usdc = CRYPTO.find((c) => c.code === 'USDC-POLYGON')!;
    const el = await mount();
    await choose(el, 'USDC-POLYGON');
    expect(part(el, 'paid'), 'nothing arrived yet').to.equal(null);
    api.pay(api.only.id, '5.575385');
    await check(el);
    await waitUntil(() => part(el, 'paid'), 'no part="paid"', { timeout: 3000 });
    expect(el.state).to.equal('pending');
    expect(paidText(el)).to.equal('Received 5.575385 USDC Still due 3.716923 USDC');
    expect(text(el.shadowRoot!.querySelector('dd [part=amount]'))).to.equal('3.716923 USDC');
    await waitUntil(
      () => notice(el) === 'Received 5.575385 USDC. Still due: 3.716923 USDC.',
      `announced: ${notice(el)}`,
    );
    const clip = recordClipboard();
    try {
      el.shadowRoot!.querySelectorAll<HTMLButtonElement>('.copy')[1].click();
      await waitUntil(() => clip.copied.length);
      expect(clip.copied).to.deep.equal(['3.716923']);
    } finally {
      clip.restore();
    }
    const uri = await readQr(el);
    expect(uri).to.equal(usdc.paymentUri.replace('uint256=9292308', 'uint256=3716923'));
    await expect(el).to.be.accessible();

    const completed = oneEvent(el, 'kasir-completed');
    api.pay(api.only.id);
    await check(el);
    expect((await completed).detail.deposit.remainingAmount).to.equal('0.000000');
    await reached(el, 'completed');
    expect(text(part(el, 'result'))).to.not.contain('more than');
  });

  it('says it in Indonesian', async () => {
    const el = await mount({ locale: 'id' });
    await choose(el, 'XLM-STELLAR');
    api.pay(api.only.id, '1000');
    await check(el);
    await waitUntil(() => part(el, 'paid'));
    expect(paidText(el)).to.equal('Diterima 1.000 XLM Sisa tagihan 234,5678901 XLM');
    expect(text(el.shadowRoot!.querySelector('dd [part=amount]'))).to.equal('234,5678901 XLM');
    await expect(el).to.be.accessible();
  });

  it("strings replace the words of a payment not as planned by key, as the element's own", async () => {
    const el = await mount();
    el.strings = { paid: 'Arrived', due: 'Left to pay', partial: 'Got {0}, {1} to go.' };
    await choose(el, 'XLM-STELLAR');
    api.pay(api.only.id, '1000');
    await check(el);
    await waitUntil(() => part(el, 'paid'));
    expect(paidText(el)).to.equal('Arrived 1,000 XLM Left to pay 234.5678901 XLM');
    await waitUntil(() => notice(el) === 'Got 1,000 XLM, 234.5678901 XLM to go.', `announced: ${notice(el)}`);
  });

  it('a bank transfer overpaid: part="result" says by how much, in en and id, announced', async () => {
    for (const [locale, says, heard] of [
      ['en', 'You paid Rp 10,000 more than was due.', 'Payment received. You paid Rp 10,000 more than was due.'],
      [
        'id',
        'Anda membayar Rp 10.000 lebih dari tagihan.',
        'Pembayaran diterima. Anda membayar Rp 10.000 lebih dari tagihan.',
      ],
    ]) {
      sessionStorage.clear();
      const el = await mount({ locale });
      await choose(el, 'BCA_TRANSFER');
      api.pay(api.only.id, '160123');
      await check(el);
      await reached(el, 'completed');
      await waitUntil(() => text(part(el, 'result')).includes(says), `${locale}: ${text(part(el, 'result'))}`);
      await waitUntil(() => notice(el) === heard, `${locale} announced: ${notice(el)}`);
      await expect(el).to.be.accessible();
      el.remove();
    }
  });

  it('a crypto payment after expiry: part="result" says the shop will refund it (never "nothing was charged")', async () => {
    const el = await mount();
    await choose(el, 'USDC-POLYGON');
    api.settle(api.only.id, 'expired');
    await check(el);
    await reached(el, 'expired');
    expect(text(part(el, 'result'))).to.contain('Nothing was charged');
    api.pay(api.only.id, '9.292308');
    await el.updateComplete;
    // The element stopped following an expired deposit: a reload (or the event stream) brings the late payment.
    el.remove();
    const again = await mount({ 'checkout-id': api.only.id });
    await reached(again, 'expired');
    await waitUntil(() => text(part(again, 'result')).includes('refund'), text(part(again, 'result')));
    expect(text(part(again, 'result'))).to.equal(
      'Payment expired 9.292308 USDC was received, not all of it before the time to pay ran out: the shop will refund it.',
    );
    expect(api.only.deposit!.paidLate).to.equal(true);
    await expect(again).to.be.accessible();
  });

  it('expired with part of the money received: says the shop will refund what arrived', async () => {
    const el = await mount({ locale: 'id' });
    await choose(el, 'BCA_TRANSFER');
    api.pay(api.only.id, '50000');
    await check(el);
    api.settle(api.only.id, 'expired');
    await check(el);
    await reached(el, 'expired');
    await waitUntil(() => text(part(el, 'result')).includes('toko akan mengembalikannya'), text(part(el, 'result')));
    expect(text(part(el, 'result')))
      .to.contain('Rp 50.000 telah diterima')
      .and.not.contain('Tidak ada dana');
  });

  it('pays the rest another way: change-method lists the methods priced for the rest, and the virtual account completes the checkout once', async () => {
    const el = await mount();
    await choose(el, 'USDC-POLYGON');
    api.pay(api.only.id, '5.575385'); // 60 %: 90,600 of the order's 150,000
    await check(el);
    await waitUntil(() => part(el, 'paid'));
    part(el, 'change-method')!.click();
    await reached(el, 'choosing');
    await waitUntil(
      () => text(method(el, 'BCA_VA').querySelector('.total')) === 'Rp 63,400',
      text(method(el, 'BCA_VA')),
    );
    const completions: unknown[] = [];
    el.addEventListener('kasir-completed', (e) => completions.push(e.detail));
    await choose(el, 'BCA_VA');
    expect(text(el.shadowRoot!.querySelector('dd [part=amount]'))).to.equal('Rp 63,400');
    expect(paidText(el)).to.equal('Received Rp 90,600 Still due Rp 63,400');
    api.pay(api.only.id);
    await check(el);
    await reached(el, 'completed');
    await check(el);
    expect(completions).to.have.length(1);
  });
});

describe(`<kasir-checkout> crypto amounts and paying on a phone (docs/design.md, "The shopper's choice, on any device")`, () => {
  let api: FakeApi;
  const ua = Object.getOwnPropertyDescriptor(Navigator.prototype, 'userAgent')!;
  const asPhone = () =>
    Object.defineProperty(navigator, 'userAgent', {
      configurable: true,
      get: () => 'Mozilla/5.0 (Linux; Android 14; Pixel 8) Mobile Safari/537.36',
    });
  withFakeApi((a) => (api = a), { totals: { 'ETH-ETHEREUM': '0.00272730' } });
  afterEach(() => {
    delete (navigator as { userAgent?: string }).userAgent;
    expect(Object.getOwnPropertyDescriptor(Navigator.prototype, 'userAgent')).to.deep.equal(ua);
  });

  it('shows a crypto amount without trailing zeros, in the list and the payment, and copies what it shows', async () => {
    const el = await mount();
    await reached(el, 'choosing');
    expect(text(method(el, 'ETH-ETHEREUM').querySelector('.total'))).to.equal('0.0027273 ETH');
    await choose(el, 'ETH-ETHEREUM');
    expect(text(el.shadowRoot!.querySelector('dd [part=amount]'))).to.equal('0.0027273 ETH');
    const clip = recordClipboard();
    try {
      el.shadowRoot!.querySelectorAll<HTMLButtonElement>('.copy')[1].click();
      await waitUntil(() => clip.copied.length);
      expect(clip.copied).to.deep.equal(['0.0027273']);
    } finally {
      clip.restore();
    }
  });

  it('on a phone, a crypto deposit offers part="open-wallet" to its payment request; kasir-open-external fires first and preventDefault keeps the link from opening', async () => {
    asPhone();
    const el = await mount();
    await choose(el, 'USDC-POLYGON');
    const link = part(el, 'open-wallet') as HTMLAnchorElement;
    expect(link.getAttribute('href')).to.equal(CRYPTO[1].paymentUri);
    expect(text(link)).to.equal('Open in wallet');
    await expect(el).to.be.accessible();

    const opened: Array<{ url: string; kind: string; cancelable: boolean }> = [];
    const prevented: boolean[] = [];
    const onOpen = (e: KasirOpenExternalEvent) => {
      opened.push({ ...e.detail, cancelable: e.cancelable });
      e.preventDefault(); // a WebView shop opens it its own way
    };
    const onClick = (e: Event) => (prevented.push(e.defaultPrevented), e.preventDefault()); // never navigate in the test
    el.addEventListener('kasir-open-external', onOpen);
    document.addEventListener('click', onClick);
    try {
      link.click();
      el.removeEventListener('kasir-open-external', onOpen);
      link.click(); // nobody cancels: the link opens
    } finally {
      document.removeEventListener('click', onClick);
    }
    expect(opened).to.deep.equal([{ url: CRYPTO[1].paymentUri, kind: 'wallet', cancelable: true }]);
    expect(prevented).to.deep.equal([true, false]);
  });

  it('not on a desktop: no open-wallet link', async () => {
    const el = await mount();
    await choose(el, 'USDC-POLYGON');
    expect(part(el, 'open-wallet')).to.equal(null);
  });

  it('an e-wallet deposit offers part="open-app" to its checkoutUrl, with kasir-open-external', async () => {
    const el = await mount();
    await choose(el, 'OVO');
    const link = part(el, 'open-app') as HTMLAnchorElement;
    expect(link.getAttribute('href')).to.equal('https://wallet.example/approve/123');
    const opened = oneEvent(el, 'kasir-open-external');
    const onClick = (e: Event) => e.preventDefault();
    document.addEventListener('click', onClick);
    try {
      link.click();
    } finally {
      document.removeEventListener('click', onClick);
    }
    expect((await opened).detail).to.deep.equal({ url: 'https://wallet.example/approve/123', kind: 'app' });
  });

  it('QRIS on a phone: the PNG goes to the share sheet (to save it in the photos)', async () => {
    asPhone();
    const el = await mount();
    await choose(el, 'QRIS');
    const shared: File[] = [];
    const nav = navigator as unknown as { share?: unknown; canShare?: unknown };
    Object.assign(nav, {
      canShare: (data: ShareData) => !!data.files?.length,
      share: async (data: ShareData) => void shared.push(...data.files!),
    });
    try {
      [...el.shadowRoot!.querySelectorAll('button')].find((b) => text(b) === 'Download QR code')!.click();
      await waitUntil(() => shared.length, 'nothing shared');
    } finally {
      delete nav.share;
      delete nav.canShare;
    }
    expect(shared.map((f) => [f.name, f.type])).to.deep.equal([[`qris-${api.only.id}.png`, 'image/png']]);
  });

  it('QRIS: the code is offered as a PNG image to save, which reads as the payment', async () => {
    const el = await mount();
    await choose(el, 'QRIS');
    const saved: Array<{ href: string; download: string }> = [];
    const blobs = new Map<string, Blob>();
    const { click } = HTMLAnchorElement.prototype;
    const { createObjectURL } = URL;
    HTMLAnchorElement.prototype.click = function (this: HTMLAnchorElement) {
      saved.push({ href: this.href, download: this.download });
    };
    URL.createObjectURL = (blob: Blob) => {
      const url = createObjectURL(blob);
      blobs.set(url, blob);
      return url;
    };
    try {
      [...el.shadowRoot!.querySelectorAll('button')].find((b) => text(b) === 'Download QR code')!.click();
      await waitUntil(() => saved.length, 'nothing saved');
    } finally {
      HTMLAnchorElement.prototype.click = click;
      URL.createObjectURL = createObjectURL;
    }
    expect(saved[0].download).to.equal(`qris-${api.only.id}.png`);
    const blob = blobs.get(saved[0].href)!;
    expect(blob.type).to.equal('image/png');
    const bitmap = await createImageBitmap(blob);
    const ctx = new OffscreenCanvas(bitmap.width, bitmap.height).getContext('2d')!;
    ctx.drawImage(bitmap, 0, 0);
    const jsQR = await loadJsQr();
    expect(jsQR(ctx.getImageData(0, 0, bitmap.width, bitmap.height).data, bitmap.width, bitmap.height)?.data).to.equal(
      api.only.deposit!.qrData,
    );
  });
});

describe('<kasir-checkout> failures the shop sees (docs/design.md, "Seeing and testing an integration")', () => {
  let api: FakeApi;
  let seen: ReturnType<typeof recordFailures>;
  withFakeApi((a) => (api = a));
  beforeEach(() => (seen = recordFailures()));
  afterEach(() => seen.restore());
  const shopperReads = (el: KasirCheckout) => text(part(el, 'result'));
  const SETUP = 'Something went wrong This payment is not set up correctly. Please contact the shop.';

  it('a missing endpoint: kind config, the console names the attribute, the shopper reads that the payment is not set up', async () => {
    const el = await mount({ endpoint: '' });
    await reached(el, 'error');
    await el.updateComplete;
    expect(shopperReads(el)).to.equal(SETUP);
    expect(seen.details).to.have.length(1);
    expect(seen.details[0].kind).to.equal('config');
    expect(seen.details[0].message).to.contain('the endpoint attribute is missing');
    expect(seen.warnings).to.have.length(1);
    expect(seen.warnings[0]).to.contain('endpoint attribute');
    expect(api.calls).to.deep.equal([]);
  });

  for (const [amount, currency] of [
    ['150.000', 'IDR'],
    ['150,000', 'IDR'],
    ['150000.5', 'IDR'],
    ['12.345', 'USD'],
  ]) {
    // Not a plain decimal: refused before any request. More places than the currency has: the shop's server says so
    // (the currency's places are its to say, not the browser's Intl data), and it is the page's setup all the same.
    const plain = !amount.includes(',');
    it(`amount "${amount}" in ${currency} (a thousands separator, or more decimals than the currency has) is refused${plain ? ' by the server' : ' before any request'}`, async () => {
      const el = await mount({ amount, currency });
      await reached(el, 'error');
      await el.updateComplete;
      expect(shopperReads(el)).to.equal(SETUP);
      expect(seen.details.map((d) => d.kind)).to.deep.equal(['config']);
      expect(seen.details[0].message).to.contain(`invalid amount "${amount}"`);
      // The server's words: "150.000" in rupiah names its thousands separator (server/merchant/widget-api/separators.ts).
      if (plain)
        expect(seen.details[0].message).to.contain(
          amount === '150.000'
            ? '"." as a thousands separator'
            : currency === 'IDR'
              ? 'IDR amounts have no decimal places'
              : 'USD amounts have at most 2 decimal places',
        );
      expect(seen.warnings[0]).to.contain(`invalid amount "${amount}"`);
      expect(api.calls.map((c) => `${c.method} ${c.path}`)).to.deep.equal(plain ? ['POST /checkouts'] : []);
    });
  }

  it('a currency the shop does not accept: kind config, the message names the ones it does, no untrue words for the shopper', async () => {
    const el = await mount({ currency: 'EUR' });
    await reached(el, 'error');
    await el.updateComplete;
    expect(shopperReads(el)).to.equal(SETUP);
    expect(seen.details).to.deep.equal([
      { kind: 'config', message: 'currency: this shop accepts IDR, USD', status: 400, url: `/api/checkouts` },
    ]);
    expect(seen.warnings).to.have.length(1);
    expect(seen.warnings[0])
      .to.contain('currency: this shop accepts IDR, USD')
      .and.contain('400')
      .and.contain('/api/checkouts');
  });

  it('a wrong endpoint (a page that is not the widget API) names the URL', async () => {
    api.failWith = 404;
    api.failRaw = '<!doctype html><title>Not found</title>';
    const el = await mount({ endpoint: '/shop/api' });
    await reached(el, 'error');
    await el.updateComplete;
    expect(shopperReads(el)).to.equal(SETUP);
    expect(seen.details[0].kind).to.equal('config');
    expect(seen.details[0].url).to.equal(`/shop/api/checkouts`);
    expect(seen.details[0].message).to.contain(`/shop/api/checkouts answered HTTP 404`).and.contain('endpoint');
    expect(seen.warnings[0]).to.contain('/shop/api/checkouts').and.contain('404');
  });

  for (const { status, kind, says } of [
    { status: 0, kind: 'network', says: 'We could not reach the payment service.' },
    { status: 502, kind: 'server', says: 'Payments are not available right now.' },
    { status: 429, kind: 'refused', says: 'Too many attempts.' },
  ]) {
    it(`${status || 'no answer'}: kind ${kind}, one console.warn naming the URL and status`, async () => {
      api.failWith = status;
      api.failMessage = 'the shop has been notified';
      const el = await mount();
      await reached(el, 'error');
      await el.updateComplete;
      expect(shopperReads(el)).to.contain(says).and.not.contain('notified');
      expect(seen.details).to.have.length(1);
      expect(seen.details[0]).to.include({ kind, status: status || undefined, url: `/api/checkouts` });
      expect(seen.warnings).to.have.length(1);
      expect(seen.warnings[0])
        .to.contain(`/api/checkouts`)
        .and.contain(status ? String(status) : '"kind":"network"');
    });
  }

  it('a pending deposit whose status cannot be read: one kasir-error when the trouble begins, not one per retry', async () => {
    const el = await mount({ 'poll-interval': '1000' });
    await choose(el, 'BCA_VA');
    api.failWith = 503;
    await check(el);
    await check(el);
    expect(seen.details.map((d) => [d.kind, d.status])).to.deep.equal([['server', 503]]);
    expect(seen.warnings).to.have.length(1);
    api.failWith = null;
    await check(el);
    api.failWith = 0;
    await check(el);
    expect(seen.details.map((d) => d.kind)).to.deep.equal(['server', 'network']);
  });

  it('order-id: creates the checkout with {orderId} (the shop prices it), and remembers it per order', async () => {
    const el = await mount({ 'order-id': 'ORD-42', amount: '', currency: '' });
    await reached(el, 'choosing');
    expect(api.requests('POST', '/checkouts').map((c) => c.body)).to.deep.equal([{ orderId: 'ORD-42' }]);
    expect(seen.details).to.deep.equal([]);
    el.setAttribute('order-id', 'ORD-43');
    await waitUntil(() => api.requests('POST', '/checkouts').length === 2);
    expect(api.requests('POST', '/checkouts')[1].body).to.deep.equal({ orderId: 'ORD-43' });
  });
});

describe('<kasir-checkout> what arrived, as it arrived, after a switch (docs/money.md)', () => {
  let api: FakeApi;
  withFakeApi((a) => (api = a));

  /**
   * 100,000 IDR to a bank transfer, then a switch to USDC: the deposit as the service's ledger shows it (its figures in
   * USDC, the 100,000 IDR as it arrived in `received`), over the fake's own.
   */
  async function paidByTransferThenUsdc(el: KasirCheckout) {
    await choose(el, 'BCA_TRANSFER');
    api.pay(api.only.id, '100000');
    await check(el);
    await waitUntil(() => part(el, 'paid'));
    part(el, 'change-method')!.click();
    await reached(el, 'choosing');
    await choose(el, 'USDC-POLYGON');
    const d = api.only.deposit!;
    Object.assign(d, {
      paidAmount: '6.060606',
      remainingAmount: '3.030303',
      received: [{ amount: '100000', currency: 'IDR' }],
      version: d.version + 1,
      updatedAt: new Date(Date.parse(d.updatedAt) + 1).toISOString(),
    });
    await check(el);
    await waitUntil(() => part(el, 'paid'), 'no part="paid"');
  }

  it('shows the rupiah that arrived as rupiah, and what is still due in USDC', async () => {
    const el = await mount();
    await paidByTransferThenUsdc(el);
    expect(paidText(el)).to.equal('Received Rp 100,000 Still due 3.030303 USDC');
    await waitUntil(() => notice(el) === 'Received Rp 100,000. Still due: 3.030303 USDC.', `announced: ${notice(el)}`);
  });

  it('says it in Indonesian', async () => {
    const el = await mount({ locale: 'id' });
    await paidByTransferThenUsdc(el);
    expect(paidText(el)).to.equal('Diterima Rp 100.000 Sisa tagihan 3,030303 USDC');
    await waitUntil(
      () => notice(el) === 'Diterima Rp 100.000. Sisa tagihan: 3,030303 USDC.',
      `announced: ${notice(el)}`,
    );
  });

  it('sums each currency on its own, in the order it arrived ("Rp 100,000 + 1.5 USDC")', async () => {
    const el = await mount();
    await paidByTransferThenUsdc(el);
    const d = api.only.deposit!;
    Object.assign(d, {
      paidAmount: '7.560606',
      remainingAmount: '1.530303',
      received: [
        { amount: '100000', currency: 'IDR' },
        { amount: '1.5', currency: 'USDC-POLYGON', symbol: 'USDC' },
      ],
      version: d.version + 1,
      updatedAt: new Date(Date.parse(d.updatedAt) + 1).toISOString(),
    });
    await check(el);
    await waitUntil(() => paidText(el) === 'Received Rp 100,000 + 1.5 USDC Still due 1.530303 USDC', paidText(el));
  });
});
