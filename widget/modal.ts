// With `modal` (docs/theming.md): the checkout in a native modal <dialog>, its close button, and the focus kept inside.
// Its own chunk of the script-tag build, loaded when an element has `modal` (which shows nothing until `open()`), so a
// checkout on the page itself downloads none of it.
import { css, html, type TemplateResult } from 'lit';
import { KasirCloseEvent } from './events.js';
import type { CheckoutState } from './types.js';
import type { ViewKit } from './views/view.js';
import en from './locales/modal.en.js';
import id from './locales/modal.id.js';
import type { Locale } from './i18n.js';

/** The words, one module per locale (locales/modal.<locale>.ts). */
const words = { en, id } satisfies Record<Locale, typeof en>;

export const styles = css`
  dialog {
    padding: 0;
    border: 0;
    background: none;
    color: inherit;
    width: min(30rem, 100% - 1rem);
    container-type: inline-size;
  }
  dialog::backdrop {
    background: #0008;
  }
  .close {
    position: absolute;
    right: 0.5rem;
    top: 0.5rem;
    border: 0;
    font-size: 1.5rem;
    padding: 0 0.8rem;
  }
`;

/**
 * Tab from the dialog's last control moves to its first, Shift+Tab from the first to the last. The element keeps focus
 * itself: Firefox lets Tab leave a modal <dialog> in a shadow root.
 */
const keepFocus = (root: ShadowRoot, e: KeyboardEvent) => {
  if (e.key !== 'Tab') return;
  // What Tab reaches: enabled controls that are shown (a closed group's methods are not).
  const controls = [
    ...root.querySelectorAll<HTMLElement>('a[href],button:not([disabled]),input:not([disabled]),[tabindex="0"]'),
  ].filter((control) => control.getClientRects().length);
  const [from, to] = e.shiftKey ? [controls[0], controls.at(-1)] : [controls.at(-1), controls[0]];
  if (to && root.activeElement === from) {
    e.preventDefault();
    to.focus();
  }
};

/** The card in a native dialog (Escape closes it; Tab stays inside); closed, the payment goes on underneath. */
/** What the dialog asks of the element around it (kasir-checkout.ts). */
interface DialogHost extends HTMLElement {
  renderRoot: HTMLElement | DocumentFragment;
  state: CheckoutState;
  close(): void;
}

export const dialog = (host: DialogHost, text: ViewKit['text'], card: TemplateResult) => {
  const t = text(words);
  return html`<dialog part="dialog" aria-label=${t.dialog} @keydown=${(e: KeyboardEvent) => keepFocus(host.renderRoot as ShadowRoot, e)} @close=${() => host.dispatchEvent(new KasirCloseEvent(host.state))}>
    <button part="close" class="close" aria-label=${t.close} @click=${() => host.close()}>×</button>${card}
  </dialog>`;
};
