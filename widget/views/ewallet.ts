// The pending screen of an e-wallet: the amount and a link to the wallet's approval page (`part="open-app"`, which a
// phone opens in the wallet's app; only a link of an allowed scheme gets here: links.ts), and the steps.
import { html } from 'lit';
import { fill, type Locale } from '../i18n.js';
import { linkStyles, opening } from './external.js';
import { failureStyles } from './failure.js';
import { pushStyles, pushView } from './ewallet-push.js';
import { qrOrAppView } from './ewallet-qr-or-app.js';
import { qrStyles } from './qr-styles.js';
import { redirectView } from './ewallet-redirect.js';
import type { WalletKit } from './wallet-kit.js';
import { frameStyles, screen } from './pending.js';
import { rateRow } from './rate.js';
import type { View } from './view.js';
import en from '../locales/ewallet.en.js';
import id from '../locales/ewallet.id.js';

export { DepositStatusController } from './pending.js';
export { unsafe } from './external.js';

/** The frame's styles and the view's own. */
export const styles = [frameStyles, qrStyles, failureStyles, pushStyles, linkStyles];

/** The words, one module per locale (locales/ewallet.<locale>.ts). */
const words = { en, id } satisfies Record<Locale, typeof en>;

/** The views of the wallets' flows (docs/indonesian-payments.md); a deposit without one is a link to the wallet's page. */
const FLOWS = { push: pushView, 'qr-or-app': qrOrAppView, redirect: redirectView };

const ewallet: View = (k) => {
  const { d, amount, steps } = k;
  const t = k.text(words);
  const flow = d.flow && FLOWS[d.flow];
  if (flow)
    return html`<p class="row"><span>${t.amount}</span><strong part="amount">${amount}</strong></p>${rateRow(k)}${flow(k as WalletKit)}`;
  return html`<p class="row"><span>${t.amount}</span><strong part="amount">${amount}</strong></p>
    ${rateRow(k)}
    <a part="open-app" class="button primary" href=${d.checkoutUrl} target="_blank" rel="noopener noreferrer" @click=${opening(d.checkoutUrl!, 'app')}
      >${fill(t.openWallet, d.method.name)}<span class="sr"> ${t.newTab}</span></a
    >
    ${steps(t.walletSteps)}`;
};
export default screen(ewallet);
