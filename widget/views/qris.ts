// The pending screen of QRIS: the code as an inline SVG (encoded here, so the QR encoder is in this chunk only), the
// amount, a PNG download (its code loaded when pressed), and the steps.
import { html } from 'lit';
import { fill, type Locale } from '../i18n.js';
import { QUIET, qrPath } from './qr.js';
import { frameStyles, screen } from './pending.js';
import { qrCode, qrFigure, qrStyles } from './qr-figure.js';
import type { View } from './view.js';
import en from '../locales/qris.en.js';
import id from '../locales/qris.id.js';

export { DepositStatusController } from './pending.js';

/** The frame's styles and the view's own. */
export const styles = [frameStyles, qrStyles];

/** The words, one module per locale (locales/qris.<locale>.ts). */
const words = { en, id } satisfies Record<Locale, typeof en>;

// A code of a QRIS payload's usual length, encoded as the chunk loads and dropped: the encoder's code is then compiled
// and its tables for that size made before the deposit's own code is drawn. The chunk loads while the shopper reads the
// list (kasir-checkout.ts) or while the deposit is made, so this is not the tap's time.
qrPath('0'.repeat(220));

/** Saves the code as a PNG, with the code for it loaded now (a failed load leaves the button to be pressed again). */
const savePng = (id: string, d: string, size: number) =>
  import('./qris-download.js').then(
    (m) => m.download(id, d, size, QUIET),
    () => {},
  );

const qris: View = (k) => {
  const { d: deposit, amount, steps } = k;
  const t = k.text(words);
  const { d, size } = qrCode(deposit.qrData!);
  return html`${qrFigure(deposit.qrData!, fill(t.qrLabel, amount))}
    <p class="row"><span>${t.amount}</span><strong part="amount">${amount}</strong></p>
    <button class="secondary" @click=${() => savePng(deposit.id, d, size)}>${t.download}</button>
    ${steps(t.qrSteps)}`;
};
export default screen(qris);
