// A redirect e-wallet (DANA, LinkAja; docs/indonesian-payments.md): `part="open-app"` leads to the wallet's page in
// this tab, which sends the shopper back to this page (the element tells the service where, on the way out); here the
// element resumes the same checkout. A failed attempt is shown with "try again" and "choose another method". Part of
// the e-wallet view's chunk.
import { html } from 'lit';
import { fill, type Locale } from '../i18n.js';
import { KasirOpenExternalEvent } from '../events.js';
import { chooseAgain, type WalletView } from './wallet-kit.js';
import { dismissFailure, failurePanel, shownFailure } from './failure.js';
import en from '../locales/ewallet.en.js';
import id from '../locales/ewallet.id.js';

/** The words, one module per locale (locales/ewallet.<locale>.ts). */
const words = { en, id } satisfies Record<Locale, typeof en>;

export const redirectView: WalletView = (k) => {
  const { d, steps } = k;
  const t = k.text(words);
  const failure = shownFailure(k);
  if (failure) return failurePanel(k, failure, () => dismissFailure(k));
  const url = d.checkoutUrl!;
  // Says where to come back (this page) before leaving; a shop that cancels kasir-open-external opens it its own way.
  const go = async (e: Event) => {
    e.preventDefault();
    const link = e.currentTarget as HTMLElement;
    await chooseAgain(k, { returnUrl: location.href });
    // Coming back, the element shows this checkout's outcome (paid or not) rather than start a new one.
    try {
      sessionStorage.setItem('kasir-checkout:back', d.checkoutId);
    } catch {
      // storage disabled: the element starts afresh on return
    }
    if (link.dispatchEvent(new KasirOpenExternalEvent(url, 'app'))) location.assign(url);
  };
  return html`<a part="open-app" class="button primary" href=${url} @click=${go}>${fill(t.continueTo, d.method.name)}</a>
    ${steps(t.redirectSteps)}`;
};
