// A qr-or-app e-wallet (GoPay, ShopeePay; docs/indonesian-payments.md): on a wide screen the QR the wallet app scans
// (`part="qr"`), on a phone a link that opens the app (`part="open-app"`): the same payment. A failed attempt is shown
// with "try again" (the code or link again) and "choose another method". Part of the e-wallet view's chunk.
import { html } from 'lit';
import { fill, type Locale } from '../i18n.js';
import { opening, phone } from './external.js';
import { dismissFailure, failurePanel, shownFailure } from './failure.js';
import type { WalletView } from './wallet-kit.js';
import en from '../locales/ewallet.en.js';
import id from '../locales/ewallet.id.js';

/** The QR encoder and figure, once loaded (wallet-qr.ts: its own chunk). */
let figure: (typeof import('./wallet-qr.js'))['qrFigure'] | undefined;

/** The words, one module per locale (locales/ewallet.<locale>.ts). */
const words = { en, id } satisfies Record<Locale, typeof en>;

export const qrOrAppView: WalletView = (k) => {
  const { d, amount, steps } = k;
  const t = k.text(words);
  const failure = shownFailure(k);
  if (failure) return failurePanel(k, failure, () => dismissFailure(k));
  // A phone opens the app; a wide screen shows the code for the phone to scan.
  if (phone() || !d.qrData) {
    return html`<a part="open-app" class="button primary" href=${d.checkoutUrl} @click=${opening(d.checkoutUrl!, 'app')}>${fill(t.openApp, d.method.name)}</a>
      ${steps(t.appSteps)}`;
  }
  if (!figure) {
    // Loaded once; a failed load shows the app link's steps meanwhile, and the next render asks again.
    import('./wallet-qr.js').then(
      (m) => ((figure = m.qrFigure), k.update()),
      () => {},
    );
    return html`<p class="loading"><span class="spin" aria-hidden="true"></span></p> ${steps(t.scanSteps)}`;
  }
  return html`${figure(d.qrData, fill(t.walletQr, d.method.name, amount))} ${steps(t.scanSteps)}`;
};
