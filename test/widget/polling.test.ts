import { expect, fixture, html } from '@open-wc/testing';
import '../../widget/kasir-checkout';
import type { KasirCheckout, KasirErrorDetail } from '../../widget/kasir-checkout';
import { FakeApi, FakeEventSource } from './fake-api';
import { FakeClock, settle } from './fake-clock';

const polls = (api: FakeApi) => api.requests('GET', '/deposit');
const gaps = (times: number[]) => times.slice(1).map((t, i) => t - times[i]);

describe('<kasir-checkout> following the payment', () => {
  let api: FakeApi;
  let clock: FakeClock;
  let hidden = false;

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
  before(() => {
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => hidden });
  });
  after(() => {
    delete (document as unknown as Record<string, unknown>).hidden;
  });
  beforeEach(() => {
    sessionStorage.clear();
    localStorage.clear();
    hidden = false;
    clock = new FakeClock().install();
  });
  afterEach(() => {
    clock.uninstall();
    api.uninstall();
  });

  async function pendingWith(
    code: string,
    options: ConstructorParameters<typeof FakeApi>[0] = {},
    pollInterval?: number | string,
  ) {
    api = new FakeApi(options).install();
    const el = await fixture<KasirCheckout>(
      html`<kasir-checkout endpoint="/api" amount="150000" locale="en" poll-interval=${pollInterval ?? 3000}></kasir-checkout>`,
    );
    await settle();
    expect(el.state).to.equal('choosing');
    el.shadowRoot!.querySelector<HTMLButtonElement>(`[data-method="${code}"]`)!.click();
    await settle();
    expect(el.state).to.equal('pending');
    return el;
  }

  it('polls at once, every 3 s for the first minute, then backs off to 10 s', async () => {
    await pendingWith('BCA_VA');
    const start = clock.now;
    expect(polls(api).map((c) => c.at)).to.deep.equal([start]);
    await clock.tick(60_000);
    const first = polls(api).map((c) => c.at - start);
    expect(first).to.deep.equal(Array.from({ length: 21 }, (_, i) => i * 3000));
    await clock.tick(120_000);
    const later = gaps(polls(api).map((c) => c.at)).slice(20);
    expect(later[0]).to.be.above(3000);
    for (let i = 1; i < later.length; i++) expect(later[i]).to.be.at.least(later[i - 1]);
    expect(Math.max(...later)).to.equal(10_000);
    expect(later.slice(-5)).to.deep.equal([10_000, 10_000, 10_000, 10_000, 10_000]);
  });

  it('honours poll-interval for the first minute', async () => {
    await pendingWith('QRIS', {}, 1000);
    await clock.tick(10_000);
    expect(gaps(polls(api).map((c) => c.at))).to.deep.equal(Array(10).fill(1000));
  });

  for (const [value, gap] of [
    ['-1', 3000],
    ['0', 3000],
    ['soon', 3000],
    ['10', 1000],
    ['999', 1000],
    ['1500', 1500],
  ] as const) {
    it(`takes poll-interval="${value}" as ${gap} ms: never below a second, the default when not a positive number`, async () => {
      await pendingWith('QRIS', {}, value);
      await clock.tick(9000);
      expect(gaps(polls(api).map((c) => c.at))).to.deep.equal(Array(9000 / gap).fill(gap));
    });
  }

  it('keeps one request in flight: "check now" joins it, and the clock restarts after it', async () => {
    const el = await pendingWith('BCA_VA');
    await clock.tick(3000);
    expect(polls(api)).to.have.length(2);
    api.hold = true;
    await clock.tick(3000);
    expect(polls(api)).to.have.length(3);
    const checkNow = el.shadowRoot!.querySelector<HTMLButtonElement>('[part=check-now]')!;
    await el.updateComplete;
    expect(checkNow.disabled, 'disabled while checking').to.be.true;
    expect(checkNow.textContent!.trim()).to.equal('Checking…');
    (el as unknown as { __follower: { checkNow(): void } }).__follower.checkNow();
    await clock.tick(20_000);
    expect(polls(api), 'no second request while one is in flight').to.have.length(3);
    api.hold = false;
    api.release();
    await settle();
    await el.updateComplete;
    expect(checkNow.disabled).to.be.false;
    const releasedAt = clock.now;
    checkNow.click();
    await settle();
    expect(polls(api)).to.have.length(4);
    expect(polls(api)[3].at).to.equal(releasedAt);
    await el.updateComplete;
    expect(el.shadowRoot!.querySelector('[role=status]')!.textContent).to.equal('Not received yet.');
  });

  it('sends If-None-Match with the last ETag and takes a 304 as "unchanged"', async () => {
    const el = await pendingWith('BCA_VA');
    await clock.tick(6000);
    const [first, second, third] = polls(api);
    expect(first.headers.get('if-none-match')).to.equal(null);
    expect(second.headers.get('if-none-match')).to.match(/^"pending-/);
    expect(third.headers.get('if-none-match')).to.equal(second.headers.get('if-none-match'));
    expect(el.state).to.equal('pending');
    expect(el.shadowRoot!.querySelector('[part=va-number]')!.textContent).to.equal('8808 1234 5678 9012');
  });

  it('pauses while the tab is hidden and polls at once when it shows again', async () => {
    await pendingWith('BCA_VA');
    await clock.tick(3000);
    const before = polls(api).length;
    hidden = true;
    document.dispatchEvent(new Event('visibilitychange'));
    await clock.tick(120_000);
    expect(polls(api)).to.have.length(before);
    hidden = false;
    const shownAt = clock.now;
    document.dispatchEvent(new Event('visibilitychange'));
    await settle();
    expect(polls(api)).to.have.length(before + 1);
    expect(polls(api).at(-1)!.at).to.equal(shownAt);
    await clock.tick(10_000);
    expect(polls(api).length).to.be.above(before + 1);
  });

  it('stops at completed', async () => {
    const el = await pendingWith('QRIS');
    await clock.tick(3000);
    api.settle(api.only.id, 'completed');
    await clock.tick(3000);
    expect(el.state).to.equal('completed');
    const count = polls(api).length;
    await clock.tick(120_000);
    expect(polls(api)).to.have.length(count);
  });

  it('stops at expired', async () => {
    const el = await pendingWith('OVO');
    api.settle(api.only.id, 'expired');
    await clock.tick(3000);
    expect(el.state).to.equal('expired');
    const count = polls(api).length;
    await clock.tick(60_000);
    expect(polls(api)).to.have.length(count);
  });

  it('follows an expired bank transfer on: a payment may still arrive late (docs/design.md, "Payments that do not go as planned")', async () => {
    const el = await pendingWith('BCA_TRANSFER');
    api.settle(api.only.id, 'expired');
    await clock.tick(3000);
    expect(el.state).to.equal('expired');
    const count = polls(api).length;
    await clock.tick(60_000);
    expect(polls(api).length).to.be.above(count);
  });

  it('keeps polling through a network failure and says so', async () => {
    const el = await pendingWith('BCA_VA');
    api.failWith = 0;
    await clock.tick(6000);
    await el.updateComplete;
    expect(el.state, 'a failed poll is not a failed payment').to.equal('pending');
    expect(el.shadowRoot!.querySelector('.waiting')!.textContent).to.contain('Connection lost');
    api.failWith = null;
    api.settle(api.only.id, 'completed');
    await clock.tick(3000);
    expect(el.state).to.equal('completed');
  });

  it('uses server-sent events when the checkout offers them, without polling', async () => {
    const el = await pendingWith('QRIS', { events: true });
    expect(FakeEventSource.instances).to.have.length(1);
    const source = FakeEventSource.instances[0];
    expect(source.url).to.equal(`/api/checkouts/${api.only.id}/events`);
    source.open();
    await clock.tick(60_000);
    expect(polls(api), 'no polling while streaming').to.have.length(0);
    const completed = new Promise((go) => el.addEventListener('kasir-completed', go));
    api.settle(api.only.id, 'completed');
    await completed;
    expect(el.state).to.equal('completed');
    expect(source.closed).to.be.true;
  });

  it('"check now" reads once even while streaming', async () => {
    const el = await pendingWith('BCA_VA', { events: true });
    FakeEventSource.instances[0].open();
    el.shadowRoot!.querySelector<HTMLButtonElement>('[part=check-now]')!.click();
    await settle();
    expect(polls(api)).to.have.length(1);
    await clock.tick(30_000);
    expect(polls(api)).to.have.length(1);
  });

  it('says the connection is lost only when a dropped stream does not come back within its retry', async () => {
    const el = await pendingWith('QRIS', { events: true });
    const source = FakeEventSource.instances[0];
    const waiting = () => el.shadowRoot!.querySelector('.waiting')!.textContent!.trim();
    const errors: KasirErrorDetail[] = [];
    el.addEventListener('kasir-error', (e) => errors.push(e.detail));
    source.open();
    await settle();
    expect(waiting()).to.equal('Waiting for your payment…');
    source.drop(); // the server ended a long stream on purpose
    await clock.tick(2500);
    await settle();
    expect(waiting(), 'a routine reconnection is not shown').to.equal('Waiting for your payment…');
    source.open(); // reconnected within the retry
    await settle();
    expect(waiting()).to.equal('Waiting for your payment…');
    source.drop();
    await clock.tick(6000); // still not back
    await settle();
    expect(waiting()).to.equal('Connection lost. Retrying…');
    expect(errors, 'reported once, as a lost connection').to.deep.equal([
      { kind: 'network', message: 'reconnecting', status: undefined, url: undefined },
    ]);
    source.open();
    await settle();
    expect(waiting()).to.equal('Waiting for your payment…');
    expect(polls(api), 'a reconnecting stream is not replaced by polling').to.have.length(0);
  });

  it('falls back to polling when the event stream fails for good', async () => {
    await pendingWith('BCA_VA', { events: true });
    const source = FakeEventSource.instances[0];
    const failedAt = clock.now;
    source.fail();
    await settle();
    expect(polls(api).map((c) => c.at)).to.deep.equal([failedAt]);
    await clock.tick(9000);
    expect(polls(api)).to.have.length(4);
  });

  it('stops following when removed from the page', async () => {
    const el = await pendingWith('BCA_VA');
    el.remove();
    const count = polls(api).length;
    await clock.tick(60_000);
    expect(polls(api)).to.have.length(count);
  });
});
