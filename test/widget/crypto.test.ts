// Crypto in <kasir-checkout> (docs/design.md, "Crypto"), switching the method of a pending deposit, and choices the
// server refuses, in real Chromium against the fake widget API. The QR code is decoded from the rendered SVG (drawn on
// a canvas, read by jsQR), as a wallet's camera would read it.
import { expect, fixture, html, oneEvent, waitUntil } from '@open-wc/testing';
import type { KasirCheckout } from '../../widget/kasir-checkout';
import { CRYPTO, FakeApi, WALLET } from './fake-api';
import { checked, choose, method, mount, part, reached, readQr, recordClipboard, text, withFakeApi } from './fixture';

const posted = (api: FakeApi) => api.requests('POST', '/deposit').map((c) => (c.body as { method: string }).method);

describe('<kasir-checkout> crypto', () => {
  let api: FakeApi;
  withFakeApi((a) => (api = a));

  it('lists the cryptos after the fiat methods: name and network, the exact token total with its symbol', async () => {
    const el = await mount();
    await reached(el, 'choosing');
    const groups = [...el.shadowRoot!.querySelectorAll<HTMLElement>('[part="method-group"]')];
    expect(groups.at(-1)!.dataset.kind).to.equal('crypto');
    expect(text(groups.at(-1)!.querySelector('h3'))).to.equal('Crypto');
    const buttons = [...el.shadowRoot!.querySelectorAll<HTMLElement>('[part="method"]')];
    // By asset (as first listed), then network: USDC once, with its networks under it.
    expect(buttons.slice(-4).map((b) => b.dataset.method)).to.deep.equal([
      'ETH-ETHEREUM',
      'USDC-POLYGON',
      'USDC-STELLAR',
      'XLM-STELLAR',
    ]);
    const usdc = method(el, 'USDC-POLYGON').closest('.asset')!;
    expect(text(usdc.firstElementChild)).to.equal('USDC');
    expect([...usdc.querySelectorAll('[part="method"] .name')].map(text)).to.deep.equal(['Polygon', 'Stellar']);
    expect(text(method(el, 'ETH-ETHEREUM').querySelector('.name'))).to.equal('Ether (Ethereum)');
    // 18 decimals, digit for digit: a float would give 0.004646153846153847 -> 0.0046461538461538465 or round it.
    expect(text(method(el, 'ETH-ETHEREUM').querySelector('.total'))).to.equal('0.004646153846153847 ETH');
    expect(text(method(el, 'ETH-ETHEREUM').querySelector('.fee'))).to.equal('Fee 0.000000000000000001 ETH');
    expect(text(method(el, 'USDC-POLYGON')))
      .to.contain('Polygon')
      .and.contain('9.292308 USDC');
    expect(text(method(el, 'XLM-STELLAR').querySelector('.total'))).to.equal('1,234.5678901 XLM');
    expect(text(method(el, 'USDC-STELLAR').querySelector('.total'))).to.equal('9.2923077 USDC');
    await expect(el).to.be.accessible();
  });

  it('groups and separates token amounts the Indonesian way, still digit for digit', async () => {
    const el = await mount({ locale: 'id' });
    await reached(el, 'choosing');
    expect(text(el.shadowRoot!.querySelector('[data-kind="crypto"] h3'))).to.equal('Kripto');
    expect(text(method(el, 'XLM-STELLAR').querySelector('.total'))).to.equal('1.234,5678901 XLM');
    expect(text(method(el, 'ETH-ETHEREUM').querySelector('.total'))).to.equal('0,004646153846153847 ETH');
    await choose(el, 'XLM-STELLAR');
    expect(text(part(el, 'amount'))).to.equal('1.234,5678901 XLM');
    expect(text(part(el, 'network'))).to.equal(
      'Jaringan: Stellar Kirim XLM hanya melalui jaringan Stellar. Pembayaran melalui jaringan lain akan hilang.',
    );
    expect(text(part(el, 'rate')!.querySelector('span'))).to.equal('Kurs');
    expect(text(part(el, 'rate')!.querySelector('strong'))).to.equal('1 XLM = 122,3 IDR');
    expect(text(part(el, 'change-method'))).to.equal('Ganti metode pembayaran');
  });

  const kinds = [
    {
      code: 'ETH-ETHEREUM',
      kind: 'EVM native coin',
      network: 'Ethereum',
      amount: '0.004646153846153847 ETH',
      rate: '1 ETH = 32,500,000 IDR',
    },
    {
      code: 'USDC-POLYGON',
      kind: 'EVM token',
      network: 'Polygon',
      amount: '9.292308 USDC',
      rate: '1 USDC = 16,250 IDR',
    },
    {
      code: 'XLM-STELLAR',
      kind: 'Stellar native',
      network: 'Stellar',
      amount: '1,234.5678901 XLM',
      rate: '1 XLM = 122.3 IDR',
    },
    {
      code: 'USDC-STELLAR',
      kind: 'Stellar issued asset',
      network: 'Stellar',
      amount: '9.2923077 USDC',
      rate: '1 USDC = 16,250 IDR',
    },
  ];
  for (const { code, kind, network, amount, rate } of kinds) {
    it(`pays in ${code} (${kind}): network and warning, address and exact amount with copy, a QR of the payment request, the rate`, async () => {
      const crypto = CRYPTO.find((c) => c.code === code)!;
      const el = await mount();
      const selected = oneEvent(el, 'kasir-method-selected');
      const pending = oneEvent(el, 'kasir-pending');
      await reached(el, 'choosing');
      method(el, code).click();
      expect((await selected).detail.method.code).to.equal(code);
      expect((await pending).detail.deposit.paymentUri).to.equal(crypto.paymentUri);
      await el.updateComplete;
      expect(posted(api)).to.deep.equal([code]);

      expect(text(el.shadowRoot!.querySelector('h2'))).to.equal(crypto.name);
      const symbol = crypto.symbol!;
      expect(text(part(el, 'network'))).to.equal(
        `Network: ${network} Send ${symbol} on the ${network} network only. A payment sent on another network is lost.`,
      );
      expect(text(part(el, 'address'))).to.equal(crypto.address);
      expect(text(part(el, 'amount'))).to.equal(amount);
      expect(text(part(el, 'rate')!.querySelector('span'))).to.equal('Rate');
      expect(text(part(el, 'rate')!.querySelector('strong'))).to.equal(rate);
      expect(text(part(el, 'instructions'))).to.contain(`Open your wallet on the ${network} network.`);
      expect(part(el, 'countdown')).to.exist;
      expect(part(el, 'check-now')).to.exist;
      expect(part(el, 'change-method')!.tagName).to.equal('BUTTON');

      // The QR is the server's payment request, exactly (the test decodes the picture, not the markup).
      expect(await readQr(el)).to.equal(crypto.paymentUri);
      const svg = part(el, 'qr')!.querySelector('svg')!;
      expect(svg.getAttribute('role')).to.equal('img');
      expect(svg.getAttribute('aria-label')).to.contain(amount);

      const clipboard = recordClipboard();
      try {
        const [copyAddress, copyAmount] = el.shadowRoot!.querySelectorAll<HTMLButtonElement>('button.copy');
        expect(text(copyAddress)).to.equal('Copy address');
        expect(text(copyAmount)).to.equal('Copy amount');
        copyAddress.click();
        await waitUntil(() => clipboard.copied.length === 1);
        copyAmount.click();
        await waitUntil(() => clipboard.copied.length === 2);
        // The amount as the wallet takes it: the exact decimal string, no grouping, no symbol.
        expect(clipboard.copied).to.deep.equal([crypto.address, crypto.total]);
        await el.updateComplete;
        expect(text(el.shadowRoot!.querySelector('[role=status]'))).to.contain('Copied: amount');
      } finally {
        clipboard.restore();
      }
      await expect(el).to.be.accessible();

      api.settle(api.only.id, 'completed');
      await checked(el); // a click while a check is in flight does nothing
      part(el, 'check-now')!.click();
      await reached(el, 'completed');
      expect(text(part(el, 'result'))).to.contain(`Your payment of ${amount} with ${crypto.name} is complete.`);
      expect(!part(el, 'change-method'), 'no switching after completion').to.be.true;
    });
  }

  it('shows the rate of a converted fiat payment too (a virtual account), digit for digit', async () => {
    const el = await mount();
    await choose(el, 'BCA_VA');
    expect(!part(el, 'rate'), "no rate for a payment in the order's currency").to.be.true;
    const deposit = api.only.deposit!;
    Object.assign(deposit, {
      exchangeRate: { from: 'USD', to: 'IDR', rate: '16250.125' },
      updatedAt: new Date(Date.parse(deposit.updatedAt) + 1).toISOString(),
    });
    await checked(el); // a click while the first check is in flight does nothing
    part(el, 'check-now')!.click();
    await waitUntil(() => part(el, 'rate'), 'the rate row');
    expect(text(part(el, 'rate')!.querySelector('strong'))).to.equal('1 USD = 16,250.125 IDR');
  });

  it('shows the address and amount without a QR code when the backend sends no payment request', async () => {
    const el = await mount();
    await reached(el, 'choosing');
    // As a merchant backend does whose service does not say the token's chain: address, no paymentUri.
    const original = window.fetch;
    window.fetch = async (...args: Parameters<typeof fetch>) => {
      const res = await original(...args);
      if (!String(args[0]).endsWith('/deposit')) return res;
      const body = await res.json();
      if (body.data) delete body.data.paymentUri;
      return new Response(JSON.stringify(body), { status: res.status, headers: res.headers });
    };
    try {
      await choose(el, 'USDC-POLYGON');
      expect(!part(el, 'qr'), 'no code').to.be.true;
      expect(text(part(el, 'address'))).to.equal(WALLET.evm);
      expect(text(part(el, 'amount'))).to.equal('9.292308 USDC');
      const steps = [...part(el, 'instructions')!.querySelectorAll('li')].map(text);
      expect(steps[1]).to.equal('Send exactly the amount to the address.');
      await expect(el).to.be.accessible();
    } finally {
      window.fetch = original;
    }
  });

  it('a QR that is not the payment request fails the decoding check', async () => {
    // The check above can fail: another request's code does not read as this one.
    const el = await mount();
    await choose(el, 'USDC-POLYGON');
    expect(await readQr(el)).to.not.equal(CRYPTO.find((c) => c.code === 'ETH-ETHEREUM')!.paymentUri);
    expect(await readQr(el)).to.match(
      new RegExp(`^ethereum:0x[0-9a-fA-F]{40}@137/transfer\\?address=${WALLET.evm}&uint256=9292308$`),
    );
  });

  it('resumes a crypto deposit after a reload, with its view', async () => {
    const first = await mount();
    await choose(first, 'USDC-STELLAR');
    first.remove();
    const again = await mount();
    await reached(again, 'pending');
    await again.updateComplete;
    expect(text(part(again, 'address'))).to.equal(WALLET.stellar);
    expect(await readQr(again)).to.contain('&asset_code=USDC&asset_issuer=G');
    expect(api.requests('POST', '/checkouts')).to.have.length(1);
    expect(posted(api)).to.deep.equal(['USDC-STELLAR']);
  });

  it('fits a 320 px phone: the list and the crypto screen, with a long address and an 18-decimal amount', async () => {
    const box = await fixture<HTMLDivElement>(html`<div style="width: 280px"></div>`);
    const el = document.createElement('kasir-checkout');
    Object.assign(el, { endpoint: '/api', amount: '150000', locale: 'id' });
    box.append(el);
    const fits = async (phase: string) => {
      await el.updateComplete;
      const card = el.shadowRoot!.querySelector<HTMLElement>('.card')!.getBoundingClientRect();
      expect(card.width, phase).to.be.at.most(280);
      for (const node of el.shadowRoot!.querySelectorAll<HTMLElement>('.card *')) {
        if (node.closest('.sr') || node.tagName === 'path' || node.tagName === 'rect') continue;
        const r = node.getBoundingClientRect();
        expect(r.right, `${phase}: ${node.tagName}.${node.className} ${node.textContent?.slice(0, 30)}`).to.be.at.most(
          card.right + 0.5,
        );
      }
    };
    await reached(el, 'choosing');
    await fits('choosing');
    for (const code of ['ETH-ETHEREUM', 'XLM-STELLAR']) {
      await choose(el, code);
      await fits(code);
      expect(
        part(el, 'qr')!.querySelector('svg')!.getBoundingClientRect().width,
        'the code stays large enough to scan',
      ).to.be.at.least(180);
      part(el, 'change-method')!.click();
      await reached(el, 'choosing');
      await fits(`switching from ${code}`);
    }
  });
});

describe('<kasir-checkout> switching method', () => {
  let api: FakeApi;
  withFakeApi((a) => (api = a));

  it('goes back to the list from a pending deposit, the current choice marked, and switches to another method', async () => {
    const el = await mount();
    await choose(el, 'BCA_VA');
    const id = api.only.id;
    expect(text(part(el, 'va-number'))).to.equal('8808 1234 5678 9012');

    part(el, 'change-method')!.focus();
    part(el, 'change-method')!.click();
    await reached(el, 'choosing');
    await el.updateComplete;
    expect(el.getAttribute('state')).to.equal('choosing');
    // Focus follows the shopper to the list's heading.
    expect(text(el.shadowRoot!.activeElement)).to.equal('Choose how to pay');
    const current = method(el, 'BCA_VA');
    expect(current.getAttribute('aria-current')).to.equal('true');
    expect(text(current.querySelector('.fee'))).to.equal('Your current choice');
    expect(el.shadowRoot!.querySelectorAll('[aria-current]')).to.have.length(1);
    // The deposit's time to pay goes on: the list shows it, not a new window to choose.
    expect(text(part(el, 'countdown'))).to.match(/^Pay within\s*(29:5\d|30:00)/);
    await expect(el).to.be.accessible();

    const selected = oneEvent(el, 'kasir-method-selected');
    const pending = oneEvent(el, 'kasir-pending');
    method(el, 'USDC-POLYGON').click();
    expect((await selected).detail.method.code).to.equal('USDC-POLYGON');
    const deposit = (await pending).detail.deposit;
    expect(deposit.id).to.equal(id);
    expect(deposit.method.code).to.equal('USDC-POLYGON');
    await el.updateComplete;
    expect(posted(api)).to.deep.equal(['BCA_VA', 'USDC-POLYGON']);
    expect(!part(el, 'va-number'), 'the old details are gone').to.be.true;
    expect(text(part(el, 'address'))).to.equal(WALLET.evm);
    expect(text(part(el, 'amount'))).to.equal('9.292308 USDC');
    expect(await readQr(el)).to.equal(CRYPTO.find((c) => c.code === 'USDC-POLYGON')!.paymentUri);
    // The new method's window runs from the switch: the countdown follows it.
    expect(text(part(el, 'countdown'))).to.match(/^Pay within\s*(59:5\d|1:00:00)/);
    expect(text(el.shadowRoot!.activeElement)).to.equal('USD Coin (Polygon)');

    // And back again to a fiat method: the view of that kind comes back.
    part(el, 'change-method')!.click();
    await reached(el, 'choosing');
    await choose(el, 'QRIS');
    expect(!part(el, 'address')).to.be.true;
    expect(part(el, 'qr')!.querySelector('svg')).to.exist;
    expect(posted(api)).to.deep.equal(['BCA_VA', 'USDC-POLYGON', 'QRIS']);
    expect(api.requests('POST', '/checkouts')).to.have.length(1);
  });

  it('a status read begun before the switch and answered after it does not bring the old details back', async () => {
    const el = document.createElement('kasir-checkout');
    Object.assign(el, { endpoint: '/api', amount: '150000', locale: 'en', pollInterval: 1000 });
    await fixture(el);
    await choose(el, 'BCA_VA');
    api.hold = api.lagging = true;
    const reads = api.requests('GET', '/deposit').length;
    part(el, 'check-now')!.click(); // a read of the virtual account deposit, answered late
    await waitUntil(() => api.requests('GET', '/deposit').length > reads, 'the read was sent', { timeout: 3000 });
    part(el, 'change-method')!.click();
    await reached(el, 'choosing');
    method(el, 'USDC-STELLAR').click();
    await reached(el, 'pending');
    await el.updateComplete;
    expect(text(part(el, 'address'))).to.equal(WALLET.stellar);
    api.hold = api.lagging = false;
    api.release();
    await waitUntil(() => !part(el, 'check-now')!.hasAttribute('disabled'), 'the late read was answered');
    await el.updateComplete;
    // (Booleans, not the nodes: a failure message printing a node of the shadow root never ends.)
    expect(!part(el, 'va-number'), 'the old details stay gone').to.be.true;
    expect(text(part(el, 'address'))).to.equal(WALLET.stellar);
    expect(el.state).to.equal('pending');
  });

  // Service copies stamp updatedAt by their own clocks: only the deposit's version orders its changes (WIDGET-API.md).
  for (const [clockSays, shift] of [
    ['the same', 0],
    ['a later', 60_000],
  ] as const) {
    it(`a read of an older version answered after a newer one does not replace it, though it says ${clockSays} updatedAt`, async () => {
      const el = await mount();
      await choose(el, 'BCA_VA');
      const old = api.only.deposit!;
      api.hold = api.lagging = true;
      const reads = api.requests('GET', '/deposit').length;
      part(el, 'check-now')!.click(); // a read of version 1 (the virtual account), answered late
      await waitUntil(() => api.requests('GET', '/deposit').length > reads, 'the read was sent', { timeout: 3000 });
      part(el, 'change-method')!.click();
      await reached(el, 'choosing');
      method(el, 'USDC-STELLAR').click();
      await reached(el, 'pending');
      await el.updateComplete;
      expect(api.only.deposit!.version).to.equal(old.version + 1);
      // The late answer was stamped by a copy whose clock runs ahead: its updatedAt is not older than the switch's.
      old.updatedAt = new Date(Date.parse(api.only.deposit!.updatedAt) + shift).toISOString();
      api.hold = api.lagging = false;
      api.release();
      await waitUntil(() => !part(el, 'check-now')!.hasAttribute('disabled'), 'the late read was answered');
      await el.updateComplete;
      expect(!part(el, 'va-number'), 'the older version stays gone').to.be.true;
      expect(text(part(el, 'address'))).to.equal(WALLET.stellar);
    });
  }

  it('choosing the current method again goes back to its details without a request', async () => {
    const el = await mount();
    await choose(el, 'BCA_TRANSFER');
    part(el, 'change-method')!.click();
    await reached(el, 'choosing');
    method(el, 'BCA_TRANSFER').click();
    await reached(el, 'pending');
    await el.updateComplete;
    expect(text(part(el, 'amount'))).to.equal('Rp 150,123');
    expect(posted(api)).to.deep.equal(['BCA_TRANSFER']);
  });

  it('is paid while the shopper looks at the list: the completed screen, and no change-method after it', async () => {
    const el = document.createElement('kasir-checkout');
    Object.assign(el, { endpoint: '/api', amount: '150000', locale: 'en', pollInterval: 100 });
    await fixture(el);
    await choose(el, 'QRIS');
    part(el, 'change-method')!.click();
    await reached(el, 'choosing');
    const completed = oneEvent(el, 'kasir-completed');
    api.settle(api.only.id, 'completed');
    await completed;
    await reached(el, 'completed');
    await el.updateComplete;
    expect(!part(el, 'change-method')).to.be.true;
    expect(el.shadowRoot!.querySelectorAll('[part="method"]')).to.have.length(0);
  });

  it("offers no change-method once the checkout's window to choose closed (the server would refuse the switch)", async () => {
    const checkout = api.newCheckout();
    checkout.expiresAt = new Date(api.now + 1500).toISOString();
    const el = await fixture<KasirCheckout>(
      html`<kasir-checkout endpoint="/api" checkout-id=${checkout.id} locale="en"></kasir-checkout>`,
    );
    await choose(el, 'BCA_VA');
    expect(!!part(el, 'change-method'), 'while the window is open').to.be.true;
    // The countdown renders each second: the button goes once the window has closed.
    await waitUntil(() => !part(el, 'change-method'), 'change-method stays', { timeout: 3000 });
    expect(el.state).to.equal('pending');
    expect(text(part(el, 'va-number'))).to.equal('8808 1234 5678 9012');
  });

  it('has no change-method once the deposit expired', async () => {
    const el = document.createElement('kasir-checkout');
    Object.assign(el, { endpoint: '/api', amount: '150000', locale: 'en', pollInterval: 100 });
    await fixture(el);
    await choose(el, 'XLM-STELLAR');
    api.settle(api.only.id, 'expired');
    await reached(el, 'expired');
    await el.updateComplete;
    expect(!part(el, 'change-method')).to.be.true;
    expect(text(part(el, 'result'))).to.contain('Payment expired');
  });

  it('a switch the server refuses (the checkout closed) shows its message and goes back to the list, the deposit still payable', async () => {
    const errors: Array<{ kind?: string; message: string; status?: number; url?: string }> = [];
    const el = await mount();
    el.addEventListener('kasir-error', (e) => errors.push(e.detail));
    await choose(el, 'BNI_VA');
    api.only.expiresAt = new Date(Date.now() - 1000).toISOString();
    part(el, 'change-method')!.click();
    await reached(el, 'choosing');
    method(el, 'ETH-ETHEREUM').click();
    await reached(el, 'error');
    await el.updateComplete;
    const result = part(el, 'result')!;
    expect(result.getAttribute('role')).to.equal('alert');
    expect(text(result)).to.equal(
      'Something went wrong This payment method cannot be used for this payment. Please choose another one. ' +
        'The checkout is closed: the payment method can no longer be changed Back to payment methods',
    );
    expect(errors).to.deep.equal([
      {
        kind: 'refused',
        message: 'The checkout is closed: the payment method can no longer be changed',
        status: 400,
        url: `/api/checkouts/${api.only.id}/deposit`,
      },
    ]);
    expect(text(el.shadowRoot!.activeElement), 'focus on the error').to.equal('Something went wrong');
    await expect(el).to.be.accessible();

    result.querySelector('button')!.click();
    await reached(el, 'choosing');
    await el.updateComplete;
    expect(method(el, 'BNI_VA').getAttribute('aria-current')).to.equal('true');
    expect(method(el, 'ETH-ETHEREUM').disabled, 'the list is usable').to.be.false;
    method(el, 'BNI_VA').click();
    await reached(el, 'pending');
    await el.updateComplete;
    expect(text(part(el, 'va-number'))).to.equal('8808 1234 5678 9012');
    expect(posted(api)).to.deep.equal(['BNI_VA', 'ETH-ETHEREUM']);
  });
});

describe('<kasir-checkout> refused choices', () => {
  let api: FakeApi;
  withFakeApi((a) => (api = a));

  const cases = [
    { code: 'USDC-STELLAR', why: 'a crypto the service does not list', message: 'Crypto not found' },
    { code: 'OVO', why: 'a method not offered for the currency', message: 'Payment method not found' },
    {
      code: 'XLM-STELLAR',
      why: 'an amount outside the minimum or maximum',
      message: 'XLM-STELLAR: the amount is below the minimum of 5 XLM',
    },
    { code: 'USDC-POLYGON', why: 'an expired quote', message: 'Quote expired' },
  ];
  for (const { code, why, message } of cases) {
    it(`${why}: the server's 400 shows its message, and the list stays usable`, async () => {
      api.refuse[code] = message;
      const el = await mount();
      await reached(el, 'choosing');
      method(el, code).click();
      await reached(el, 'error');
      await el.updateComplete;
      expect(text(part(el, 'result')))
        .to.contain('This payment method cannot be used for this payment.')
        .and.contain(message);
      const back = part(el, 'result')!.querySelector('button')!;
      expect(text(back)).to.equal('Back to payment methods');
      back.click();
      await reached(el, 'choosing');
      await el.updateComplete;
      expect(el.shadowRoot!.querySelectorAll('[aria-current]'), 'nothing chosen yet').to.have.length(0);
      expect(text(part(el, 'countdown'))).to.match(/^Choose within/);
      await choose(el, 'BCA_VA');
      expect(text(part(el, 'va-number'))).to.equal('8808 1234 5678 9012');
      expect(posted(api)).to.deep.equal([code, 'BCA_VA']);
    });
  }

  it('says it in Indonesian', async () => {
    api.refuse['QRIS'] = 'Payment method not found';
    const el = await mount({ locale: 'id' });
    await reached(el, 'choosing');
    method(el, 'QRIS').click();
    await reached(el, 'error');
    await el.updateComplete;
    expect(text(part(el, 'result')))
      .to.contain('Metode pembayaran ini tidak dapat digunakan')
      .and.contain('Kembali ke metode pembayaran');
  });

  it('a refused switch from a crypto deposit keeps the crypto deposit', async () => {
    api.refuse['OVO'] = 'Payment method not found';
    const el = await mount();
    await choose(el, 'ETH-ETHEREUM');
    part(el, 'change-method')!.click();
    await reached(el, 'choosing');
    method(el, 'OVO').click();
    await reached(el, 'error');
    part(el, 'result')!.querySelector('button')!.click();
    await reached(el, 'choosing');
    method(el, 'ETH-ETHEREUM').click();
    await reached(el, 'pending');
    await el.updateComplete;
    expect(text(part(el, 'amount'))).to.equal('0.004646153846153847 ETH');
    expect(await readQr(el)).to.equal(CRYPTO.find((c) => c.code === 'ETH-ETHEREUM')!.paymentUri);
  });
});
