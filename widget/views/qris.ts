// The pending screen of QRIS: the code as an inline SVG (encoded here, so the QR encoder is in this chunk only), the
// amount, a PNG download (its code loaded when pressed), and the steps.
import { html } from 'lit';
import { fill } from '../i18n.js';
import { QUIET } from './qr.js';
import { frameStyles, screen } from './pending.js';
import { qrCode, qrFigure, qrStyles } from './qr-figure.js';
import type { View } from './view.js';

export { DepositStatusController } from './pending.js';

/** The frame's styles and the view's own. */
export const styles = [frameStyles, qrStyles];

const words = {
  en: {
    amount: 'Amount to pay',
    qrSteps: [
      'Open any app that pays with QRIS (banking or e-wallet).',
      'Scan this code and check the amount.',
      'Confirm the payment. This page updates by itself.',
    ],
    qrLabel: 'QRIS code for {0}',
    download: 'Download QR code',
  },
  id: {
    amount: 'Jumlah pembayaran',
    qrSteps: [
      'Buka aplikasi yang mendukung QRIS (m-banking atau e-wallet).',
      'Pindai kode ini dan periksa jumlahnya.',
      'Konfirmasi pembayaran. Halaman ini diperbarui otomatis.',
    ],
    qrLabel: 'Kode QRIS untuk {0}',
    download: 'Unduh kode QR',
  },
};

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
