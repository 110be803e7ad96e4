import { expect, fixture, html } from '@open-wc/testing';
import '../../widget/kasir-checkout';
import type { KasirCheckout } from '../../widget/kasir-checkout';

describe('<kasir-checkout>', () => {
  it('upgrades and reflects its state', async () => {
    const el = await fixture<KasirCheckout>(html`<kasir-checkout endpoint="/api"></kasir-checkout>`);
    expect(el.shadowRoot).to.exist;
    expect(el.getAttribute('state')).to.equal('loading');
  });
});
