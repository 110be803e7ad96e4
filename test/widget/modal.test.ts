// Modal mode (docs/design.md, "The shopper's choice, on any device"): with `modal` the element shows nothing until
// open(), then a focus-trapped native dialog (part="dialog"); Escape and the close button close it with `kasir-close`;
// the payment goes on while it is closed, and opening it again shows the same deposit. In real Chromium against the
// fake widget API.
import { expect, fixture, html, oneEvent } from '@open-wc/testing';
import { sendKeys } from '@web/test-runner-commands';
import { KasirCloseEvent, type KasirCheckout } from '../../widget/kasir-checkout';
import { FakeApi } from './fake-api';
import { mount as mountElement, part, pressKeys, reached, text, withFakeApi } from './fixture';

const dialog = (el: KasirCheckout) => part(el, 'dialog') as HTMLDialogElement;

describe('<kasir-checkout modal>', () => {
  let api: FakeApi;
  withFakeApi((a) => (api = a));

  const mount = () => mountElement({ modal: '', 'poll-interval': '1000' });

  it('shows nothing and loads nothing until open(), then a modal dialog with the method list', async () => {
    const el = await mount();
    await new Promise((r) => setTimeout(r, 100));
    expect(api.calls, 'no checkout is made before the shopper asks to pay').to.have.length(0);
    expect(dialog(el).open).to.be.false;
    expect(el.getBoundingClientRect().height).to.be.at.most(1);
    await el.open();
    await reached(el, 'choosing', 4000);
    await el.updateComplete;
    expect(dialog(el).matches(':modal')).to.be.true;
    expect(dialog(el).getAttribute('aria-label')).to.equal('Payment');
    expect(part(el, 'method')).to.exist;
    expect(dialog(el).contains(el.shadowRoot!.activeElement), 'focus is in the dialog').to.be.true;
    await expect(el).to.be.accessible();
  });

  it('traps focus: Tab and Shift+Tab stay inside the dialog', async () => {
    const outside = await fixture<HTMLButtonElement>(html`<button>outside</button>`);
    const el = await mount();
    await el.open();
    await reached(el, 'choosing', 4000);
    await el.updateComplete;
    for (const press of [...Array(15).fill('Tab'), ...Array(15).fill('Shift+Tab')]) {
      await pressKeys(press);
      expect(document.activeElement, press).to.not.equal(outside);
      if (document.activeElement === el) expect(dialog(el).contains(el.shadowRoot!.activeElement), press).to.be.true;
    }
  });

  it('closes on Escape and on its close button, firing kasir-close; open() shows it again', async () => {
    const el = await mount();
    await el.open();
    await reached(el, 'choosing', 4000);
    let closed = oneEvent(el, 'kasir-close');
    await sendKeys({ press: 'Escape' });
    const event = await closed;
    expect(event).to.be.instanceOf(KasirCloseEvent);
    expect(event.detail).to.deep.equal({ state: 'choosing' });
    expect(event.bubbles && event.composed).to.be.true;
    expect(dialog(el).open).to.be.false;

    await el.open();
    expect(dialog(el).open).to.be.true;
    closed = oneEvent(el, 'kasir-close');
    const close = part(el, 'close') as HTMLButtonElement;
    expect(close.getAttribute('aria-label')).to.equal('Close');
    close.click();
    await closed;
    expect(dialog(el).open).to.be.false;
    expect(api.requests('POST', '/checkouts'), 'one checkout for all the openings').to.have.length(1);
  });

  it('goes on while closed: reopened, the same pending deposit; paid meanwhile, completed', async () => {
    const el = await mount();
    await el.open();
    await reached(el, 'choosing', 4000);
    part(el, 'method')!.click();
    await reached(el, 'pending', 4000);
    await el.updateComplete;
    const number = text(part(el, 'va-number'));
    el.close();
    await el.open();
    await el.updateComplete;
    expect(el.state).to.equal('pending');
    expect(text(part(el, 'va-number'))).to.equal(number);
    expect(api.requests('POST', '/deposit'), 'no second deposit').to.have.length(1);

    el.close();
    const completed = oneEvent(el, 'kasir-completed');
    api.settle(api.only.id, 'completed');
    await completed; // followed while closed
    expect(dialog(el).open).to.be.false;
    await el.open();
    await el.updateComplete;
    expect(text(part(el, 'result'))).to.contain('Payment received');
  });

  it('without modal, open() and close() do nothing and the checkout shows in place', async () => {
    const el = await fixture<KasirCheckout>(
      html`<kasir-checkout endpoint="/api" amount="150000" locale="en"></kasir-checkout>`,
    );
    await reached(el, 'choosing', 4000);
    await el.open();
    el.close();
    await el.updateComplete;
    expect(part(el, 'dialog')).to.be.null;
    expect(el.getBoundingClientRect().height).to.be.above(100);
  });
});
