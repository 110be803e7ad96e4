// The pending screen of a crypto deposit (docs/design.md, "Crypto"): the network with a warning to send on it only, the
// wallet payment request as a QR code (the server builds its text; a backend that cannot build it sends none, and there
// is no code) and, on a phone, a link opening it in a wallet app (`part="open-wallet"`), the address and the exact
// token amount (what is still due, without trailing zeros: what is copied is what is shown), each to copy, the rate it
// is priced at, and the steps.
import { css, html, nothing } from 'lit';
import { exact, fill, type Locale } from '../i18n.js';
import { copyButton, copyStyles } from './copy.js';
import { memoRow, memoStyles } from './memo.js';
import { linkStyles, opening, phone } from './external.js';
import { frameStyles, screen } from './pending.js';
import { qrFigure, qrStyles } from './qr-figure.js';
import { rateRow } from './rate.js';
import type { View } from './view.js';
import en from '../locales/crypto.en.js';
import id from '../locales/crypto.id.js';

export { DepositStatusController } from './pending.js';
export { unsafe } from './external.js';

/** The frame's styles and the view's own. */
export const styles = [
  frameStyles,
  copyStyles,
  qrStyles,
  memoStyles,
  linkStyles,
  css`
  [part='network'] {
    border-left: 4px solid var(--kasir-danger, #b42318);
    background: var(--s);
    border-radius: calc(var(--r) - 4px);
    padding: 0.6rem 0.9rem;
    font-size: 0.92rem;
  }
  [part='network'] strong {
    display: block;
    font-size: 1rem;
  }
  [part='address'] {
    font-family: ui-monospace, Menlo, Consolas, monospace;
    font-size: 0.9rem;
    word-break: break-all;
  }
`,
];

/** The words, one module per locale (locales/crypto.<locale>.ts). */
const words = { en, id } satisfies Record<Locale, typeof en>;

const crypto: View = (k) => {
  const { d, amount, steps } = k;
  const uri = d.paymentUri;
  const t = k.text(words);
  const network = d.networkName || d.network || '';
  const [open, scan, wait] = t.steps;
  return html`<p part="network" role="note">
      <strong>${fill(t.network, network)}</strong> ${fill(t.warning, d.symbol!, network)}
    </p>
    ${uri ? qrFigure(uri, fill(t.qrLabel, amount)) : nothing}
    ${uri && phone() ? html`<a part="open-wallet" class="button primary" href=${uri} @click=${opening(uri, 'wallet')}>${t.inWallet}</a>` : nothing}
    <dl>
      <div>
        <dt>${t.address}</dt>
        <dd><span part="address">${d.address}</span>${copyButton(k, d.address!, t.theAddress, '[part=address]')}</dd>
      </div>
      ${memoRow(k)}
      <div>
        <dt>${t.exactAmount}</dt>
        <dd><strong part="amount">${amount}</strong>${copyButton(k, exact(k.due), t.theAmount, 'dd [part=amount]')}</dd>
      </div>
    </dl>
    ${rateRow(k)} ${steps([fill(open, d.method.name, network), uri ? scan : t.sendStep, wait])}`;
};
export default screen(crypto);
