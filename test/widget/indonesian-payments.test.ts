// Indonesian payments in <kasir-checkout> (docs/indonesian-payments.md), in real Chromium at 390 px and 1000 px
// against the fake widget API (extended here with the sandbox's banks, wallets' flows and a Stellar memo): a VA's
// steps per bank and channel, Mandiri's biller code and bill key; OVO's phone entry, push, window, approval, decline
// and try again, timeout; GoPay's QR on a wide screen and app link on a phone, one payment; DANA's redirect and the
// element resuming on return; the Stellar memo on screen, in the QR's request and in the copy; axe in every new view.
import { expect, waitUntil } from '@open-wc/testing';
import { setViewport } from '@web/test-runner-commands';
import type { KasirCheckout } from '../../widget/kasir-checkout';
import type { Checkout, Deposit, Method, PaymentFailure } from '../../widget/types';
import { FakeApi, WALLET } from './fake-api';
import { choose, mount, part, reached, readQr, recordClipboard, text, withFakeApi } from './fixture';

/** How long a step may take to show: generous (under the runner's 20 s per test), as CI shares 2 cores among browsers. */
const WAIT_MS = 15_000;
const LOGO = 'data:image/gif;base64,R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==';
const BANKS = [
  { code: 'BCA_VA', name: 'BCA Virtual Account', app: 'BCA mobile', menu: 'm-Transfer > BCA Virtual Account' },
  {
    code: 'BNI_VA',
    name: 'BNI Virtual Account',
    app: 'BNI Mobile Banking',
    menu: 'Transfer > Virtual Account Billing',
  },
  { code: 'BRI_VA', name: 'BRI Virtual Account', app: 'BRImo', menu: 'Pembayaran > BRIVA' },
  { code: 'MANDIRI_VA', name: 'Mandiri Virtual Account', app: "Livin' by Mandiri", menu: 'Bayar > Multipayment' },
  {
    code: 'PERMATA_VA',
    name: 'Permata Virtual Account',
    app: 'PermataMobile X',
    menu: 'Bayar Tagihan > Virtual Account',
  },
  { code: 'CIMB_VA', name: 'CIMB Virtual Account', app: 'OCTO Mobile', menu: 'Transfer > Virtual Account' },
  { code: 'BSI_VA', name: 'BSI Virtual Account', app: 'BSI Mobile', menu: 'Bayar > Institusi' },
];
const WALLET_PAGE = 'https://sandbox.example/sandbox/ewallet/';
const MEMO = '4820193748201';
const STELLAR_URI = `web+stellar:pay?destination=${WALLET.stellar}&amount=1234.5678901&memo=${MEMO}&memo_type=MEMO_ID`;

type Internals = {
  fetch(url: string, init?: RequestInit): Promise<Response>;
  deposit(c: Checkout, m: Method): Deposit;
};

/** The fake widget API with the sandbox's VA banks, the wallets' flows (push window `windowMs`) and a Stellar memo. */
function extend(api: FakeApi, windowMs = 60_000) {
  const internals = api as unknown as Internals;
  const newCheckout = api.newCheckout.bind(api);
  api.newCheckout = (...args) => {
    const c = newCheckout(...args);
    const va = BANKS.map((b): Method => ({
      kind: 'va',
      code: b.code,
      name: b.name,
      image: LOGO,
      currency: 'IDR',
      fee: '4000',
      total: '154000',
      available: true,
    }));
    const wallet = (code: string, name: string, flow: Method['flow']): Method => ({
      kind: 'ewallet',
      code,
      name,
      image: LOGO,
      currency: 'IDR',
      fee: '0',
      total: '150000',
      available: true,
      flow,
    });
    c.methods = [
      ...va,
      wallet('OVO', 'OVO', 'push'),
      wallet('GOPAY', 'GoPay', 'qr-or-app'),
      wallet('DANA', 'DANA', 'redirect'),
      ...c.methods.filter((m) => m.kind === 'crypto'),
    ];
    return c;
  };
  const deposit = internals.deposit.bind(api);
  internals.deposit = (c, m) => {
    const d = deposit(c, m);
    const page = `${WALLET_PAGE}${c.id}`;
    if (m.code === 'MANDIRI_VA')
      return { ...d, accountNumber: '8860812345678901', billerCode: '88608', billKey: '12345678901' };
    if (m.kind === 'ewallet')
      return { ...d, flow: m.flow, checkoutUrl: page, ...(m.flow === 'qr-or-app' ? { qrData: `${page}?via=qr` } : {}) };
    if (m.code === 'XLM-STELLAR') return { ...d, memo: MEMO, memoType: 'id', paymentUri: STELLAR_URI };
    return d;
  };
  const fetch = internals.fetch.bind(api);
  internals.fetch = async (url, init = {}) => {
    const c = api.only;
    const body = init.body ? JSON.parse(String(init.body)) : {};
    const d = c?.deposit;
    const now = new Date(api.now).toISOString();
    // The push wallet chosen again: a new request to the phone (the number given, else the one before).
    if (init.method === 'POST' && d && body.method === 'OVO' && d.method.code === 'OVO') {
      if (body.phone !== undefined && !/^(\+62|0)8\d{8,11}$/.test(body.phone.replace(/[\s-]/g, ''))) {
        return new Response(
          JSON.stringify({ statusCode: 400, error: 'Bad Request', message: 'phone: an Indonesian mobile number' }),
          { status: 400 },
        );
      }
      const { failure: _, ...rest } = d;
      const phone = body.phone ? `${body.phone.replace(/[\s-]/g, '').slice(0, 4)}****${body.phone.slice(-4)}` : d.phone;
      c.deposit = {
        ...rest,
        phone,
        walletExpiresAt: new Date(api.now + windowMs).toISOString(),
        updatedAt: now,
        version: d.version + 1,
      };
    }
    // A read past the window: the service records the timeout.
    if (
      (init.method ?? 'GET') === 'GET' &&
      d?.walletExpiresAt &&
      Date.parse(d.walletExpiresAt) <= api.now &&
      d.status === 'pending'
    )
      fail(api, 'timeout');
    return fetch(url, init);
  };
}

/** A failed attempt on the checkout's deposit, as the sandbox records one. */
function fail(api: FakeApi, reason: PaymentFailure['reason']) {
  const c = api.only;
  const { walletExpiresAt: _, ...d } = c.deposit!;
  const now = new Date(api.now + 1).toISOString();
  c.deposit = { ...d, failure: { reason, failedAt: now }, updatedAt: now, version: d.version + 1 };
}

const checkNow = async (el: KasirCheckout) => {
  part(el, 'check-now')!.click();
  await waitUntil(() => !(part(el, 'check-now') as HTMLButtonElement | null)?.disabled, undefined, {
    timeout: WAIT_MS,
  });
  await el.updateComplete;
};

/** Sends the OVO number and waits for the request's window to show. */
/**
 * The page `width` px wide: the browser's viewport where the runner can set it; WebKit's WebDriver cannot (its window
 * is at least 447 px), so there the page's body is that wide, which is what the element lays itself out in.
 */
async function sized(width: number, height: number) {
  try {
    await setViewport({ width, height });
    document.body.style.width = '';
  } catch {
    document.body.style.width = `${width}px`;
  }
}

async function sendPhone(el: KasirCheckout, phone: string) {
  const input = part(el, 'phone') as HTMLInputElement;
  input.value = phone;
  input.form!.requestSubmit();
  await waitUntil(() => part(el, 'wallet-countdown'), 'no window after the number was sent', { timeout: WAIT_MS });
}

for (const width of [390, 1000]) {
  describe(`<kasir-checkout> Indonesian payments at ${width} px`, () => {
    let api: FakeApi;
    withFakeApi((a) => extend((api = a)));
    before(() => sized(width, 844));

    for (const bank of BANKS) {
      it(`${bank.code}: the steps per channel (ATM, mobile, internet) as the bank words them, with the account number`, async () => {
        const el = await mount({ 'poll-interval': '60000' });
        await choose(el, bank.code);
        const instructions = part(el, 'instructions')!;
        const channels = [...instructions.querySelectorAll<HTMLElement>('[data-channel]')];
        expect(channels.map((c) => c.dataset.channel)).to.deep.equal(['atm', 'mobile', 'internet']);
        for (const channel of channels) expect(channel.querySelectorAll('li').length).to.be.greaterThan(2);
        const mobile = text(instructions.querySelector('[data-channel="mobile"]'));
        expect(mobile).to.contain(bank.app).and.contain(bank.menu);
        if (bank.code === 'MANDIRI_VA') {
          expect(text(part(el, 'biller-code'))).to.equal('88608');
          expect(text(part(el, 'bill-key'))).to.equal('12345678901');
          expect(text(instructions.querySelector('[data-channel="atm"]')))
            .to.contain('company code 88608')
            .and.contain('bill key 12345678901');
        } else {
          expect(mobile).to.contain('8808123456789012');
        }
        await expect(el).to.be.accessible();
      });
    }

    it('the VA steps in Indonesian', async () => {
      const el = await mount({ locale: 'id', 'poll-interval': '60000' });
      await choose(el, 'MANDIRI_VA');
      expect(text(part(el, 'instructions')!.querySelector('[data-channel="atm"]'))).to.contain(
        'Masukkan kode perusahaan 88608, lalu kode bayar 12345678901.',
      );
      await expect(el).to.be.accessible();
    });

    it('OVO: phone entry, the push and its window, approved in the app: completed', async () => {
      const el = await mount({ 'poll-interval': '60000' });
      await choose(el, 'OVO');
      expect((part(el, 'phone') as HTMLInputElement).type).to.equal('tel');
      await expect(el).to.be.accessible();
      await sendPhone(el, '0812 3456 7890');
      const sent = api.requests('POST', '/deposit').at(-1)!;
      expect(sent.body).to.deep.equal({ method: 'OVO', phone: '0812 3456 7890' });
      expect(text(part(el, 'wallet-countdown'))).to.match(/^(1:00|0:59)$/);
      expect(text(el.shadowRoot!.querySelector('[role="status"]'))).to.contain('Open OVO on 0812****7890');
      await expect(el).to.be.accessible();
      api.settle(api.only.id, 'completed');
      await checkNow(el);
      await reached(el, 'completed');
    });

    it('OVO: a number the service refuses is said at the field', async () => {
      const el = await mount({ 'poll-interval': '60000' });
      await choose(el, 'OVO');
      (part(el, 'phone') as HTMLInputElement).value = '12345';
      (part(el, 'phone') as HTMLInputElement).form!.requestSubmit();
      await waitUntil(() => el.shadowRoot!.querySelector('form [role="alert"]'), undefined, { timeout: WAIT_MS });
      expect(text(el.shadowRoot!.querySelector('form [role="alert"]'))).to.contain(
        'phone: an Indonesian mobile number',
      );
    });

    it('OVO: declined -> part="failure" with the reason -> try again -> approved', async () => {
      const el = await mount({ 'poll-interval': '60000' });
      await choose(el, 'OVO');
      await sendPhone(el, '081234567890');
      fail(api, 'declined');
      await checkNow(el);
      await waitUntil(() => part(el, 'failure'), undefined, { timeout: WAIT_MS });
      expect(text(part(el, 'failure')))
        .to.contain('Payment failed')
        .and.contain('The payment was declined in OVO.');
      expect(el.state).to.equal('pending');
      await expect(el).to.be.accessible();
      const [tryAgain, another] = part(el, 'failure')!.querySelectorAll('button');
      expect(text(another)).to.equal('Choose another method');
      tryAgain.click();
      await waitUntil(() => part(el, 'wallet-countdown') && !part(el, 'failure'), 'no new request after "try again"', {
        timeout: WAIT_MS,
      });
      expect(api.requests('POST', '/deposit').at(-1)!.body).to.deep.equal({ method: 'OVO' });
      api.settle(api.only.id, 'completed');
      await checkNow(el);
      await reached(el, 'completed');
    });

    it('OVO: "choose another method" goes back to the list', async () => {
      const el = await mount({ 'poll-interval': '60000' });
      await choose(el, 'OVO');
      await sendPhone(el, '081234567890');
      fail(api, 'insufficient_balance');
      await checkNow(el);
      await waitUntil(() => part(el, 'failure'), undefined, { timeout: WAIT_MS });
      expect(text(part(el, 'failure'))).to.contain('Your OVO balance is not enough');
      part(el, 'failure')!.querySelectorAll('button')[1].click();
      await reached(el, 'choosing');
    });

    it('GoPay: one payment, a QR on a wide screen and the app link on a phone (touch, narrow)', async () => {
      const coarse = width < 500;
      const matchMedia = window.matchMedia;
      if (coarse)
        window.matchMedia = (query: string) => ({
          ...matchMedia.call(window, query),
          matches: query.includes('coarse') || matchMedia.call(window, query).matches,
        });
      try {
        const el = await mount({ 'poll-interval': '60000' });
        await choose(el, 'GOPAY');
        const page = `${WALLET_PAGE}${api.only.id}`;
        if (coarse) {
          expect(part(el, 'qr')).to.equal(null);
          expect(part(el, 'open-app')!.getAttribute('href')).to.equal(page);
        } else {
          await waitUntil(() => part(el, 'qr'), 'no QR on a wide screen', { timeout: WAIT_MS });
          expect(await readQr(el)).to.equal(`${page}?via=qr`);
          expect(part(el, 'open-app')).to.equal(null);
        }
        await expect(el).to.be.accessible();
      } finally {
        window.matchMedia = matchMedia;
      }
    });

    it('DANA: the redirect says where to come back, and the element resumes the checkout on return', async () => {
      const el = await mount({ 'poll-interval': '60000' });
      await choose(el, 'DANA');
      // The shop opens it its own way here (no navigation away from the test page).
      el.addEventListener('kasir-open-external', (e) => e.preventDefault());
      part(el, 'open-app')!.click();
      await waitUntil(() => api.requests('POST', '/deposit').length === 2, undefined, { timeout: WAIT_MS });
      expect(api.requests('POST', '/deposit').at(-1)!.body).to.deep.equal({ method: 'DANA', returnUrl: location.href });
      await expect(el).to.be.accessible();
      // Approved at the wallet, which sends the shopper back to this page: a new element on it resumes the checkout.
      const id = api.only.id;
      api.settle(id, 'completed');
      el.remove();
      const back = await mount({ 'poll-interval': '60000' });
      await reached(back, 'completed');
      expect(api.only.id).to.equal(id);
    });

    it('a Stellar deposit: the memo on screen, in the QR request and in the copy, and that the payment needs it', async () => {
      const clipboard = recordClipboard();
      try {
        const el = await mount({ 'poll-interval': '60000' });
        await choose(el, 'XLM-STELLAR');
        expect(text(part(el, 'memo'))).to.equal(MEMO);
        expect(text(part(el, 'memo')!.closest('div')))
          .to.contain('MEMO_ID')
          .and.contain('without it the payment cannot be matched');
        expect(await readQr(el)).to.equal(STELLAR_URI);
        const copy = part(el, 'memo')!.parentElement!.querySelector('button')!;
        copy.click();
        await waitUntil(() => clipboard.copied.length === 1, undefined, { timeout: WAIT_MS });
        expect(clipboard.copied).to.deep.equal([MEMO]);
        await expect(el).to.be.accessible();
      } finally {
        clipboard.restore();
      }
    });
  });
}

describe('<kasir-checkout> OVO window', () => {
  let api: FakeApi;
  withFakeApi((a) => extend((api = a), 2_000));

  it('past the window: a failed attempt (timeout) is shown', async () => {
    const el = await mount({ 'poll-interval': '60000' });
    await choose(el, 'OVO');
    await sendPhone(el, '081234567890');
    await waitUntil(() => part(el, 'failure'), 'no timeout shown', { timeout: 6000 });
    expect(text(part(el, 'failure'))).to.contain('The payment was not approved in OVO in time.');
    expect(api.only.deposit!.failure!.reason).to.equal('timeout');
  });
});

describe('<kasir-checkout> new views are accessible in Indonesian at 320 px and 1000 px', () => {
  let api: FakeApi;
  withFakeApi((a) => extend((api = a)));
  for (const width of [320, 1000]) {
    it(`${width} px: phone entry, window, failure, redirect, memo, VA steps`, async () => {
      await sized(width, 700);
      for (const code of ['OVO', 'DANA', 'XLM-STELLAR', 'PERMATA_VA']) {
        sessionStorage.clear();
        const el = await mount({ locale: 'id', 'poll-interval': '60000' });
        await choose(el, code);
        await expect(el).to.be.accessible();
        if (code === 'OVO') {
          await sendPhone(el, '081234567890');
          await expect(el).to.be.accessible();
          fail(api, 'declined');
          await checkNow(el);
          await waitUntil(() => part(el, 'failure'), undefined, { timeout: WAIT_MS });
          expect(text(part(el, 'failure'))).to.contain('Pembayaran ditolak di OVO.');
          await expect(el).to.be.accessible();
        }
        el.remove();
      }
    });
  }
  after(() => sized(800, 600));
});
