// What must not depend on the browser: a currency's decimal places come from the widget API, never from the
// browser's Intl data (Chromium says 0 for IDR, Firefox and WebKit 2: simulated here by stubbing Intl); the modal keeps
// Tab and Shift+Tab inside its dialog by itself (Firefox lets Tab leave a <dialog> in a shadow root); and the element
// opens only links of allowed schemes (a hostile backend's `javascript:` payment request is refused).
import { expect, oneEvent } from '@open-wc/testing';
import type { KasirErrorDetail } from '../../widget/events';
import type { KasirCheckout } from '../../widget/kasir-checkout';
import type { Deposit } from '../../widget/types';
import { FakeApi } from './fake-api';
import { sendKeys } from '@web/test-runner-commands';
import { choose, method, mount, part, pressKeys, reached, withFakeApi } from './fixture';

/** WebKitGTK's MiniBrowser under WebDriver (not Chromium, not Firefox). */
const webKitDriver = /AppleWebKit/.test(navigator.userAgent) && !/Chrome|Firefox/.test(navigator.userAgent);

/** The kasir-error details and console warnings while `run` goes. */
async function failuresOf(run: () => Promise<KasirCheckout>) {
  const details: KasirErrorDetail[] = [];
  const record = (e: Event) => details.push((e as CustomEvent<KasirErrorDetail>).detail);
  const warn = console.warn;
  console.warn = () => {};
  document.addEventListener('kasir-error', record);
  try {
    const el = await run();
    await reached(el, 'error');
    await el.updateComplete;
    return { el, details };
  } finally {
    console.warn = warn;
    document.removeEventListener('kasir-error', record);
  }
}

/** Every deposit answer of the fake widget API changed by `change` on its way to the element (a hostile backend). */
function tamper(change: (deposit: Deposit) => void) {
  const fetch = window.fetch;
  window.fetch = async (input, init) => {
    const res = await fetch(input, init);
    if (!/\/deposit$/.test(String(input)) || !res.ok) return res;
    const body = await res.json();
    change(body.data);
    return new Response(JSON.stringify(body), { status: res.status, headers: res.headers });
  };
}

describe('<kasir-checkout> in any browser', () => {
  let api: FakeApi;
  withFakeApi((a) => (api = a));

  describe("a currency's decimal places come from the widget API, not the browser's Intl", () => {
    const RealNumberFormat = Intl.NumberFormat;
    afterEach(() => (Intl.NumberFormat = RealNumberFormat));

    /** Intl as a browser whose data gives every currency `digits` decimal places (Firefox and WebKit: IDR 2). */
    const intlSays = (digits: number) => {
      Intl.NumberFormat = class extends RealNumberFormat {
        override resolvedOptions() {
          return { ...super.resolvedOptions(), minimumFractionDigits: digits, maximumFractionDigits: digits };
        }
      } as typeof Intl.NumberFormat;
    };

    for (const digits of [null, 0, 2, 4]) {
      it(`amount="150000.5" in IDR is a config error naming the amount, Intl saying ${digits ?? "Chromium's"} decimal places`, async () => {
        if (digits !== null) intlSays(digits);
        const { el, details } = await failuresOf(() => mount({ amount: '150000.5', currency: 'IDR' }));
        expect(details.map((d) => d.kind)).to.deep.equal(['config']);
        expect(details[0].message).to.equal(
          `kasir-checkout: invalid amount "150000.5": a plain decimal number above 0 with no thousands separator (the shop's server says: IDR amounts have no decimal places), e.g. "150000"`,
        );
        expect(part(el, 'result')!.textContent).to.contain('This payment is not set up correctly');
      });
    }

    it('amount="150000.00" in USD opens the checkout though Intl says 0 places', async () => {
      intlSays(0);
      const el = await mount({ amount: '150000.00', currency: 'USD' });
      await reached(el, 'choosing');
    });
  });

  describe('the modal keeps focus in its dialog (real key presses)', () => {
    /** The controls Tab reaches, in order: enabled and shown. */
    const controls = (el: KasirCheckout) =>
      [...el.shadowRoot!.querySelectorAll<HTMLElement>('dialog button:not([disabled]), dialog a[href]')].filter(
        (c) => c.getClientRects().length,
      );
    const focused = (el: KasirCheckout) => el.shadowRoot!.activeElement;

    it('Tab from the last control moves to the first, Shift+Tab from the first to the last', async () => {
      const el = await mount({ modal: '' });
      await el.open();
      await reached(el, 'choosing', 4000);
      await el.updateComplete;
      const list = controls(el);
      expect(list.length).to.be.greaterThan(2);
      const [first, last] = [list[0], list.at(-1)!];
      expect(first.getAttribute('part')).to.equal('close');

      last.focus();
      await sendKeys({ press: 'Tab' });
      expect(focused(el), 'Tab from the last control').to.equal(first);

      // WebKitGTK's WebDriver takes no held modifier inside the modal (the chord command never returns there): the
      // element's own keydown handling, which is what cycles the focus, gets a Shift+Tab keydown instead.
      if (webKitDriver) {
        first.dispatchEvent(
          new KeyboardEvent('keydown', { key: 'Tab', shiftKey: true, bubbles: true, composed: true, cancelable: true }),
        );
        await el.updateComplete;
      } else await pressKeys('Shift+Tab');
      expect(focused(el), 'Shift+Tab from the first control').to.equal(last);

      // In between, Tab goes on in the page's order.
      first.focus();
      await sendKeys({ press: 'Tab' });
      expect(focused(el)).to.equal(list[1]);
    });

    it('on a pending deposit too (its own controls)', async () => {
      const el = await mount({ modal: '' });
      await el.open();
      await choose(el, 'BCA_VA');
      const list = controls(el);
      list.at(-1)!.focus();
      await sendKeys({ press: 'Tab' });
      expect(focused(el)).to.equal(list[0]);
    });
  });

  describe('only links of allowed schemes', () => {
    // A hostile answer that lists the scheme itself (appSchemes) opens nothing the element's own list does not.
    for (const [code, url] of [
      ['USDC-POLYGON', 'javascript:alert(document.domain)'],
      ['OVO', 'javascript:alert(document.domain)'],
      ['OVO', 'vbscript:msgbox(1)'],
      ['OVO', 'blob:https://shop.example/1'],
      ['OVO', 'file:///etc/passwd'],
      ['OVO', 'gojek://gopay/pay?ref=1'],
    ] as const)
      it(`4. ${url.split(':')[0]}: on ${code} is refused even when appSchemes lists it`, async () => {
        const scheme = url.split(':')[0];
        tamper((d) => {
          if (d.paymentUri) d.paymentUri = url;
          if (d.checkoutUrl) d.checkoutUrl = url;
          d.appSchemes = [scheme, `${scheme}:`];
        });
        const { el, details } = await failuresOf(async () => {
          const el = await mount();
          await reached(el, 'choosing');
          method(el, code).click();
          return el;
        });
        expect(details.map((d) => d.kind)).to.deep.equal(['server']);
        expect(el.shadowRoot!.querySelector(`[href^="${scheme}"], [part="open-wallet"], [part="open-app"]`)).to.not
          .exist;
      });

    it('a crypto payment request of another scheme (javascript:) is refused: no link, kasir-error kind server', async () => {
      tamper((d) => d.paymentUri && (d.paymentUri = 'javascript:alert(document.domain)'));
      const { el, details } = await failuresOf(async () => {
        const el = await mount();
        await reached(el, 'choosing');
        method(el, 'USDC-POLYGON').click();
        return el;
      });
      expect(details.map((d) => d.kind)).to.deep.equal(['server']);
      expect(details[0].message).to.equal('This payment link cannot be opened safely.');
      expect(el.shadowRoot!.querySelector('[href^="javascript"], [part="qr"], [part="open-wallet"]')).to.not.exist;
    });

    it('an e-wallet link of a data: URL is refused', async () => {
      api.uninstall();
      api = new FakeApi({ checkoutUrl: 'data:text/html,<script>alert(1)</script>' }).install();
      const { el, details } = await failuresOf(async () => {
        const el = await mount();
        await reached(el, 'choosing');
        method(el, 'OVO').click();
        return el;
      });
      expect(details.map((d) => d.kind)).to.deep.equal(['server']);
      expect(el.shadowRoot!.querySelector('[part="open-app"]')).to.not.exist;
    });

    it("the wallet's own app scheme (the element's list) opens; the wallet payment requests' schemes open", async () => {
      api.uninstall();
      api = new FakeApi({ checkoutUrl: 'ovo://pay?ref=123' }).install();
      const el = await mount();
      await choose(el, 'OVO');
      expect(part(el, 'open-app')!.getAttribute('href')).to.equal('ovo://pay?ref=123');
      for (const code of ['ETH-ETHEREUM', 'USDC-STELLAR']) {
        const pending = oneEvent(el, 'kasir-pending');
        part(el, 'change-method')!.click();
        await el.updateComplete;
        method(el, code).click();
        await pending;
        await el.updateComplete;
        expect(el.state, code).to.equal('pending');
        expect(part(el, 'qr'), code).to.exist;
      }
    });
  });
});
