// A failed attempt to pay (docs/indonesian-payments.md): the reason, "try again" and "choose another method"
// (`part="failure"`). The deposit stays pending; the e-wallet views show it over their flow. Part of the e-wallet
// view's chunk, not of the first paint.
import { html, nothing, css } from 'lit';
import { fill, type Locale } from '../i18n.js';
import type { PaymentFailure } from '../types.js';
import type { WalletKit } from './wallet-kit.js';
import en from '../locales/ewallet.en.js';
import id from '../locales/ewallet.id.js';

export const failureStyles = css`
  [part='failure'] {
    border-left: 4px solid var(--kasir-danger, #b42318);
    background: var(--s);
    border-radius: calc(var(--r) - 4px);
    padding: 0.6rem 0.9rem;
    display: grid;
    gap: 0.5rem;
  }
  [part='failure'] p {
    margin: 0;
  }
`;

/** The words, one module per locale (locales/ewallet.<locale>.ts). */
const words = { en, id } satisfies Record<Locale, typeof en>;

/** The failures a shopper set aside with "try again" (no request: the QR or link is simply shown again), per element. */
const dismissed = new WeakMap<object, string>();

/** The deposit's failure, unless the shopper set it aside. */
export const shownFailure = (k: WalletKit): PaymentFailure | undefined =>
  k.d.failure && dismissed.get(k.root) !== k.d.failure.failedAt ? k.d.failure : undefined;

/** Sets the failure aside and shows the flow again. */
export const dismissFailure = (k: WalletKit) => {
  dismissed.set(k.root, k.d.failure!.failedAt);
  k.update();
};

/** The failure's panel: what failed, "try again" (`retry`) and, while a switch is possible, "choose another method". */
export const failurePanel = (k: WalletKit, failure: PaymentFailure, retry: () => void) => {
  const { d } = k;
  const t = k.text(words);
  return html`<div part="failure" role="alert">
    <strong>${t.failedTitle}</strong>
    <p>${fill(t[failure.reason], d.method.name)}</p>
    <button class="primary" @click=${retry}>${t.tryAgain}</button>
    ${k.change ? html`<button class="secondary" @click=${k.change}>${t.chooseAnother}</button>` : nothing}
  </div>`;
};
