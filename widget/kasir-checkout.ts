import { LitElement, html } from 'lit';
import { customElement, property } from 'lit/decorators.js';

/** Placeholder: the real element lands with the widget issue. */
@customElement('kasir-checkout')
export class KasirCheckout extends LitElement {
  @property() endpoint = '';
  @property({ reflect: true }) state = 'loading';
  override render() {
    return html`<p>kasir</p>`;
  }
}
