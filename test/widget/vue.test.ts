// <kasir-checkout> in Vue 3 (the runtime's browser build), as a Vue template uses it: props set as the element's
// properties (`modal`, `strings`), `onKasirClose` (`@kasir-close` in a template) given the typed event, the modal
// opened through a template ref, against the fake widget API.
import { expect, waitUntil } from '@open-wc/testing';
import { sendKeys } from '@web/test-runner-commands';
import { KasirCloseEvent, type KasirCheckout } from '../../widget/kasir-checkout';
import type { FakeApi } from './fake-api';
import { withFakeApi } from './fixture';

/** Vue's ES module build for browsers (the bare 'vue' entry is for bundlers). */
const VUE = '/node_modules/vue/dist/vue.runtime.esm-browser.js';

const reached = (el: KasirCheckout, state: string) =>
  waitUntil(() => el.state === state, `never reached ${state}`, { timeout: 3000 });
const part = (el: KasirCheckout, name: string) => el.shadowRoot!.querySelector<HTMLElement>(`[part~="${name}"]`)!;

describe('<kasir-checkout> in Vue 3', () => {
  let api: FakeApi;
  let host: HTMLElement;
  withFakeApi((a) => (api = a));
  beforeEach(() => {
    host = document.createElement('div');
    document.body.append(host);
  });
  afterEach(() => host.remove());

  it('modal: props as properties, open() through a ref, Escape calls the kasir-close listener, the payment goes on', async () => {
    const { createApp, h, ref } = (await import(/* @vite-ignore */ VUE)) as typeof import('vue');
    const el = ref<KasirCheckout>();
    const closes: KasirCloseEvent[] = [];
    const app = createApp({
      render: () =>
        h('kasir-checkout', {
          ref: el,
          endpoint: '/api',
          amount: '150000',
          locale: 'en',
          modal: true,
          strings: { choose: 'Pilih, please' },
          onKasirClose: (e: KasirCloseEvent) => closes.push(e),
        }),
    });
    app.mount(host);
    const checkout = el.value!;
    expect(checkout.modal).to.be.true;
    expect(checkout.hasAttribute('strings'), 'strings is a property').to.be.false;
    await checkout.updateComplete;
    expect(api.calls).to.have.length(0);
    await checkout.open();
    await reached(checkout, 'choosing');
    await checkout.updateComplete;
    expect(checkout.shadowRoot!.querySelector('h2')!.textContent).to.equal('Pilih, please');
    part(checkout, 'method').click();
    await reached(checkout, 'pending');
    await sendKeys({ press: 'Escape' });
    await waitUntil(() => closes.length === 1, 'the kasir-close listener');
    expect(closes[0]).to.be.instanceOf(KasirCloseEvent);
    expect(closes[0].detail.state).to.equal('pending');
    await checkout.open();
    expect((part(checkout, 'dialog') as HTMLDialogElement).open).to.be.true;
    expect(checkout.state).to.equal('pending');
    expect(api.requests('POST', '/deposit')).to.have.length(1);
    app.unmount();
  });
});
