import { expect, fixture, html } from '@open-wc/testing';
import '../../widget/kasir-checkout';
import type { KasirCheckout } from '../../widget/kasir-checkout';
import { FakeApi } from './fake-api';
import { FakeClock, settle } from './fake-clock';

const shown = (el: KasirCheckout) => el.shadowRoot!.querySelector('[part=countdown] strong')!.textContent!.trim();
const spoken = (el: KasirCheckout) =>
  el.shadowRoot!.querySelector('[part=countdown] [aria-live=polite]')!.textContent!.trim();

describe('<kasir-checkout> countdown', () => {
  let api: FakeApi;
  let clock: FakeClock;
  // The element fetches a pending view when a method is chosen; fetched here first (as after an earlier payment), the
  // fake clock's settle() covers a choice.
  before(() =>
    Promise.all([
      import('../../widget/views/va.js'),
      import('../../widget/views/qris.js'),
      import('../../widget/views/ewallet.js'),
      import('../../widget/locales/en.js'),
      import('../../widget/locales/id.js'),
    ]),
  );
  beforeEach(() => {
    sessionStorage.clear();
    localStorage.clear();
    clock = new FakeClock().install();
  });
  afterEach(() => {
    clock.uninstall();
    api.uninstall();
  });

  async function pending(options: ConstructorParameters<typeof FakeApi>[0], code = 'QRIS', locale = 'en') {
    api = new FakeApi(options).install();
    const el = await fixture<KasirCheckout>(
      html`<kasir-checkout endpoint="/api" amount="150000" locale=${locale}></kasir-checkout>`,
    );
    await settle();
    el.shadowRoot!.querySelector<HTMLButtonElement>(`[data-method="${code}"]`)!.click();
    await settle();
    await el.updateComplete;
    expect(el.state).to.equal('pending');
    return el;
  }

  it('counts down to expiresAt on the server clock, not the page clock', async () => {
    // The server's clock is an hour and a half ahead: expiresAt is 30 minutes after the server's now.
    const el = await pending({ skew: 90 * 60_000, lifetime: 30 * 60_000 });
    expect(shown(el)).to.equal('30:00');
    await clock.tick(61_000);
    await el.updateComplete;
    expect(shown(el)).to.equal('28:59');
  });

  it('corrects for a server clock that is behind', async () => {
    const el = await pending({ skew: -7 * 60_000, lifetime: 15 * 60_000 }, 'OVO');
    expect(shown(el)).to.equal('15:00');
  });

  it('shows hours for a virtual account', async () => {
    const el = await pending({ lifetime: 24 * 3600_000 }, 'BCA_VA');
    expect(shown(el)).to.equal('24:00:00');
    // A minute and a second, not an hour: each fake second lets the page settle, which an hour of in WebKit outlasts
    // the runner's time for a test.
    await clock.tick(61_000);
    await el.updateComplete;
    expect(shown(el)).to.equal('23:58:59');
  });

  it('announces politely at coarse steps, never every second', async () => {
    const el = await pending({ lifetime: 12 * 60_000 });
    const live = el.shadowRoot!.querySelector('[part=countdown] [aria-live=polite]')!;
    expect(live.getAttribute('aria-atomic')).to.equal('true');
    const said: string[] = [spoken(el)];
    for (let s = 0; s < 12 * 60; s++) {
      await clock.tick(1000);
      await el.updateComplete;
      // Each announcement is cleared once the visible clock moves on; what is announced are the texts set.
      if (spoken(el) && spoken(el) !== said.at(-1)) said.push(spoken(el));
    }
    expect(said[0]).to.equal('12 minutes left to pay');
    // Checked precisely: the steps, in order.
    expect(said.slice(1)).to.deep.equal([
      '10 minutes left to pay',
      '5 minutes left to pay',
      '4 minutes left to pay',
      '3 minutes left to pay',
      '2 minutes left to pay',
      '1 minute left to pay',
      '30 seconds left to pay',
    ]);
    expect(spoken(el)).to.equal('');
    expect(shown(el), 'the visible time still ticks every second').to.equal('0:00');
  });

  it('never says a time other than the visible one', async () => {
    // Opened with 6 s left: "6 seconds" at 0:06 is right, but not at 0:05.
    const el = await pending({ lifetime: 6_000 });
    const agree = () => {
      const words = spoken(el).match(/^(\d+) (second|minute)s? left to pay$/);
      if (!words) return expect(spoken(el)).to.equal('');
      const [, n, unit] = words;
      expect(shown(el), spoken(el)).to.equal(unit === 'second' ? `0:${n.padStart(2, '0')}` : `${n}:00`);
    };
    expect(spoken(el)).to.equal('6 seconds left to pay');
    agree();
    for (let s = 0; s < 7; s++) {
      await clock.tick(1000);
      await el.updateComplete;
      agree();
    }
  });

  it('announces in Indonesian', async () => {
    const el = await pending({ lifetime: 30 * 60_000 }, 'QRIS', 'id');
    expect(spoken(el)).to.equal('Sisa waktu 30 menit');
  });

  it('checks the status at once when the time is up', async () => {
    const el = await pending({ lifetime: 20_000 });
    await clock.tick(18_000);
    const before = api.requests('GET', '/deposit').length;
    api.settle(api.only.id, 'expired');
    await clock.tick(2000);
    const after = api.requests('GET', '/deposit');
    expect(after.length).to.be.above(before);
    expect(after.at(-1)!.at - clock.now).to.equal(0);
    await el.updateComplete;
    expect(el.state).to.equal('expired');
  });

  it('shows expired when the window to choose a method runs out', async () => {
    api = new FakeApi().install();
    const el = await fixture<KasirCheckout>(
      html`<kasir-checkout endpoint="/api" amount="150000" locale="en"></kasir-checkout>`,
    );
    await settle();
    expect(el.state).to.equal('choosing');
    expect(shown(el)).to.equal('15:00');
    await clock.tick(15 * 60_000);
    await el.updateComplete;
    expect(el.state).to.equal('expired');
    expect(el.shadowRoot!.querySelector('[part=result]')!.textContent).to.contain('Payment expired');
  });
});
