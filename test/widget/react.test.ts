// @kasir/checkout/react in a real browser: React 19 (react-dom/client) renders <KasirCheckout>, whose props become
// the element's properties and whose onKasir* callbacks get the element's typed events, against the fake widget API.
// The lines marked @ts-expect-error are the proof that the component's types are strict: `npm run typecheck` fails
// when one of them stops being an error.
import { expect, waitUntil } from '@open-wc/testing';
import { sendKeys } from '@web/test-runner-commands';
import * as React from 'react';
import { flushSync } from 'react-dom';
import { createRoot, type Root } from 'react-dom/client';
import {
  KasirCheckout,
  KasirCheckoutElement,
  KasirCloseEvent,
  KasirCompletedEvent,
  KasirErrorEvent,
  KasirExpiredEvent,
  KasirMethodSelectedEvent,
  KasirPendingEvent,
  KasirReadyEvent,
  type KasirCheckoutProps,
} from '../../widget/react';
import type { FakeApi } from './fake-api';
import { withFakeApi } from './fixture';

const reached = (el: KasirCheckoutElement, state: string) =>
  waitUntil(() => el.state === state, `never reached ${state}`, { timeout: 3000 });
const part = (el: Element, name: string) => el.shadowRoot!.querySelector<HTMLElement>(`[part~="${name}"]`)!;

describe('@kasir/checkout/react', () => {
  let api: FakeApi;
  let host: HTMLElement;
  let root: Root;

  /** Renders synchronously, so the element and its properties are in place when this returns. */
  function render(props: KasirCheckoutProps & React.RefAttributes<KasirCheckoutElement>) {
    flushSync(() => root.render(React.createElement(KasirCheckout, props)));
    return host.querySelector('kasir-checkout')!;
  }

  withFakeApi((a) => (api = a));
  beforeEach(() => {
    host = document.createElement('div');
    document.body.append(host);
    root = createRoot(host);
  });
  afterEach(() => {
    flushSync(() => root.unmount());
    host.remove();
  });

  it('renders <kasir-checkout> with its props as properties, not attributes', async () => {
    const checkout = api.newCheckout('250000');
    const el = render({ endpoint: '/api', checkoutId: checkout.id, currency: 'IDR', locale: 'id', pollInterval: 5000 });
    expect(el).to.be.instanceOf(KasirCheckoutElement);
    expect(el.endpoint).to.equal('/api');
    expect(el.checkoutId).to.equal(checkout.id);
    expect(el.locale).to.equal('id');
    expect(el.pollInterval).to.equal(5000);
    expect(el.hasAttribute('checkoutid') || el.hasAttribute('pollinterval'), 'no stray lower-cased attributes').to.be
      .false;
    await reached(el, 'choosing');
    expect(api.requests('POST', '/checkouts'), 'the server-created checkout is used, none is created').to.deep.equal(
      [],
    );
    expect(api.requests('GET', `/checkouts/${checkout.id}`)).to.have.length(1);
    expect(part(el, 'amount').textContent).to.contain('250.000');
  });

  it('creates the checkout from amount and currency', async () => {
    const el = render({ endpoint: '/api', amount: '99000', currency: 'IDR', locale: 'en' });
    await reached(el, 'choosing');
    expect(api.requests('POST', '/checkouts').map((c) => c.body)).to.deep.equal([{ amount: '99000', currency: 'IDR' }]);
  });

  it('calls every onKasir* callback with the typed event over a whole payment', async () => {
    const checkout = api.newCheckout();
    const seen: Event[] = [];
    const record = (e: Event) => seen.push(e);
    const el = render({
      endpoint: '/api',
      checkoutId: checkout.id,
      locale: 'en',
      onKasirReady: (e) => record(e),
      onKasirMethodSelected: (e) => record(e),
      onKasirPending: (e) => record(e),
      onKasirCompleted: (e) => record(e),
      onKasirExpired: (e) => record(e),
      onKasirError: (e) => record(e),
    });
    await reached(el, 'choosing');
    part(el, 'method').click();
    await reached(el, 'pending');
    // The element's first check ended ("check now" is disabled while one is in flight), so the click makes the next.
    await waitUntil(() => part(el, 'check-now').matches(':enabled'), 'the first status check never ended');
    api.settle(checkout.id, 'completed');
    part(el, 'check-now').click();
    await reached(el, 'completed');
    await waitUntil(() => seen.length === 4, 'four events');
    expect(seen.map((e) => e.constructor)).to.deep.equal([
      KasirReadyEvent,
      KasirMethodSelectedEvent,
      KasirPendingEvent,
      KasirCompletedEvent,
    ]);
    const [ready, selected, pending, completed] = seen as [
      KasirReadyEvent,
      KasirMethodSelectedEvent,
      KasirPendingEvent,
      KasirCompletedEvent,
    ];
    expect(ready.detail.checkout.id).to.equal(checkout.id);
    expect(selected.detail.method.code).to.equal('BCA_VA');
    expect(pending.detail.deposit.status).to.equal('pending');
    expect(completed.detail.deposit.status).to.equal('completed');
    expect(completed.target).to.equal(el);
  });

  it('calls onKasirExpired and onKasirError with their events', async () => {
    const checkout = api.newCheckout();
    const expired: KasirExpiredEvent[] = [];
    const el = render({ endpoint: '/api', checkoutId: checkout.id, onKasirExpired: (e) => expired.push(e) });
    await reached(el, 'choosing');
    part(el, 'method').click();
    await reached(el, 'pending');
    await waitUntil(() => part(el, 'check-now').matches(':enabled'), 'the first status check never ended');
    api.settle(checkout.id, 'expired');
    part(el, 'check-now').click();
    await reached(el, 'expired');
    expect(expired).to.have.length(1);
    expect(expired[0]).to.be.instanceOf(KasirExpiredEvent);
    expect(expired[0].detail.deposit!.status).to.equal('expired');

    const errors: KasirErrorEvent[] = [];
    flushSync(() => root.unmount());
    root = createRoot(host);
    const broken = render({ endpoint: '/api', amount: 'lots', onKasirError: (e) => errors.push(e) });
    await reached(broken, 'error');
    expect(errors).to.have.length(1);
    expect(errors[0]).to.be.instanceOf(KasirErrorEvent);
    expect(errors[0].detail).to.include({ kind: 'config', status: undefined, url: undefined });
    expect(errors[0].detail.message).to.match(/^kasir-checkout: invalid amount "lots": /);
  });

  it('follows new props on re-render: properties change, the newest callback is the one called', async () => {
    const checkout = api.newCheckout();
    const calls: string[] = [];
    const el = render({
      endpoint: '/api',
      checkoutId: checkout.id,
      locale: 'en',
      onKasirMethodSelected: () => calls.push('first'),
    });
    await reached(el, 'choosing');
    expect(el.shadowRoot!.querySelector('.card')!.getAttribute('lang')).to.equal('en');
    const again = render({
      endpoint: '/api',
      checkoutId: checkout.id,
      locale: 'id',
      onKasirMethodSelected: () => calls.push('second'),
    });
    expect(again, 'the same element, not a new one').to.equal(el);
    expect(el.locale).to.equal('id');
    await el.updateComplete;
    expect(el.shadowRoot!.querySelector('.card')!.getAttribute('lang')).to.equal('id');
    expect(el.shadowRoot!.querySelector('h2')!.textContent).to.equal('Pilih cara bayar');
    part(el, 'method').click();
    await reached(el, 'pending');
    expect(calls).to.deep.equal(['second']);
  });

  it('modal: nothing until ref.open(), a dialog; Escape closes it and calls onKasirClose; the payment goes on; strings apply', async () => {
    const ref = React.createRef<KasirCheckoutElement>();
    const closes: KasirCloseEvent[] = [];
    const el = render({
      endpoint: '/api',
      amount: '150000',
      locale: 'en',
      modal: true,
      strings: { choose: 'Pay for your coffee' },
      ref,
      onKasirClose: (e) => closes.push(e),
    });
    expect(el.modal).to.be.true;
    await el.updateComplete;
    expect(api.calls).to.have.length(0);
    const dialog = () => part(el, 'dialog') as HTMLDialogElement;
    expect(dialog().open).to.be.false;
    await ref.current!.open();
    await reached(el, 'choosing');
    await el.updateComplete;
    expect(dialog().matches(':modal')).to.be.true;
    expect(el.shadowRoot!.querySelector('h2')!.textContent).to.equal('Pay for your coffee');
    part(el, 'method').click();
    await reached(el, 'pending');
    await sendKeys({ press: 'Escape' });
    await waitUntil(() => closes.length === 1, 'onKasirClose');
    expect(closes[0]).to.be.instanceOf(KasirCloseEvent);
    expect(closes[0].detail.state).to.equal('pending');
    expect(dialog().open).to.be.false;
    await ref.current!.open();
    expect(el.state).to.equal('pending');
    expect(api.requests('POST', '/deposit')).to.have.length(1);
  });

  it('passes id, className, style and aria attributes to the element, and ref gives the element', async () => {
    const ref = React.createRef<KasirCheckoutElement>();
    const el = render({
      endpoint: '/api',
      amount: '150000',
      id: 'pay',
      className: 'checkout wide',
      style: { maxWidth: '20rem' },
      'aria-label': 'Payment',
      ref,
    });
    expect(ref.current).to.equal(el);
    expect(el.id).to.equal('pay');
    expect(el.getAttribute('class')).to.equal('checkout wide');
    expect(el.style.maxWidth).to.equal('20rem');
    expect(el.getAttribute('aria-label')).to.equal('Payment');
    await reached(el, 'choosing');
  });
});

/**
 * Compile-time proofs, never run: `npm run typecheck` fails when a line marked @ts-expect-error stops being an error
 * (the types went loose) or an unmarked line becomes one.
 */
export function typeProofs() {
  const ok: KasirCheckoutProps = {
    endpoint: '/api',
    checkoutId: 'chk_1',
    amount: '150000',
    currency: 'IDR',
    locale: 'id',
    pollInterval: 3000,
    modal: true,
    strings: { choose: 'Pay' },
  };
  const elements = [
    // @ts-expect-error endpoint is required
    React.createElement(KasirCheckout, { checkoutId: 'chk_1' }),
    // @ts-expect-error pollInterval is a number of milliseconds
    React.createElement(KasirCheckout, { endpoint: '/api', pollInterval: '3000' }),
    // @ts-expect-error amount is a decimal string, never a float
    React.createElement(KasirCheckout, { endpoint: '/api', amount: 150000 }),
    // @ts-expect-error locale is en or id
    React.createElement(KasirCheckout, { endpoint: '/api', locale: 'fr' }),
    // @ts-expect-error endpoint is a string
    React.createElement(KasirCheckout, { endpoint: new URL('https://shop.example/api') }),
    React.createElement(KasirCheckout, {
      endpoint: '/api',
      // @ts-expect-error the callback gets a KasirCompletedEvent, not an error event
      onKasirCompleted: (e: KasirErrorEvent) => e.detail.message,
    }),
    // @ts-expect-error the close callback gets a KasirCloseEvent
    React.createElement(KasirCheckout, { endpoint: '/api', onKasirClose: (e: KasirPendingEvent) => e.detail.deposit }),
    // @ts-expect-error modal is a boolean
    React.createElement(KasirCheckout, { endpoint: '/api', modal: 'yes' }),
    // @ts-expect-error not a prop of the element
    React.createElement(KasirCheckout, { endpoint: '/api', ammount: '150000' }),
    React.createElement(KasirCheckout, {
      ...ok,
      onKasirCompleted: (e) => e.detail.deposit.amount,
      onKasirExpired: (e) => e.detail.deposit?.id,
    }),
  ];
  // @ts-expect-error a Deposit has no such field
  const misread: KasirCheckoutProps = { endpoint: '/api', onKasirPending: (e) => e.detail.deposit.receipt };
  // The raw tag in React's JSX, typed by importing @kasir/checkout/react (React 19 sets properties and onkasir-* listeners).
  type Tag = React.JSX.IntrinsicElements['kasir-checkout'];
  const tag: Tag = {
    endpoint: '/api',
    'checkout-id': 'chk_1',
    'poll-interval': 5000,
    'onkasir-completed': (e) => e.detail.deposit.amount,
  };
  // @ts-expect-error endpoint is required on the raw tag too
  const untagged: Tag = { 'checkout-id': 'chk_1' };
  // @ts-expect-error poll-interval is a number
  const slow: Tag = { endpoint: '/api', 'poll-interval': 'slow' };
  // Every option an attribute under its kebab-case name, every event a listener by its own name (both derived, props.ts).
  const full: Tag = {
    endpoint: '/api',
    'order-id': 'ord_1',
    modal: true,
    locale: 'en',
    'onkasir-open-external': (e) => e.detail.url,
    'onkasir-close': (e) => e.detail.state,
  };
  // @ts-expect-error the close listener gets a KasirCloseEvent
  const misheard: Tag = { endpoint: '/api', 'onkasir-close': (e: KasirPendingEvent) => e.detail.deposit };
  // @ts-expect-error an option's attribute is kebab-case
  const camel: Tag = { endpoint: '/api', orderId: 'ord_1' };
  return [elements, ok, misread, tag, untagged, slow, full, misheard, camel];
}
