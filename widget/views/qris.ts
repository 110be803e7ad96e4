// The pending screen of QRIS: the code as an inline SVG (encoded here, so the QR encoder is in this chunk only), the
// amount, a PNG download (its code loaded when pressed), and the steps.
import { QUIET, qrPath } from '../qr.js';
import { frameStyles, screen } from './pending.js';
import type { View } from './view.js';

export { DepositStatusController } from './pending.js';

const css = String.raw; // as in pending.ts

/** The frame's styles and the view's own. */
export const styles = frameStyles + css`
  [part='qr'] {
    justify-self: center;
    max-width: 100%;
    background: #fff;
    border: 1px solid var(--b);
    border-radius: calc(var(--r) - 4px);
    padding: 0.25rem;
  }
  [part='qr'] svg {
    display: block;
    max-width: 100%;
    height: auto;
  }
`;

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

/** Codes drawn, by payload: each is encoded once, not on every render (the countdown renders each second). */
const drawn = new Map<string, { d: string; size: number }>();

/** Saves the code as a PNG, with the code for it loaded now (a failed load leaves the button to be pressed again). */
const savePng = (id: string, d: string, size: number) =>
  import('./qris-download.js').then((m) => m.download(id, d, size, QUIET), () => {});

const qris: View = ({ html, fill, loc, d: deposit, amount, steps }) => {
  const t = words[loc];
  const data = deposit.qrData!;
  if (!drawn.has(data)) drawn.set(data, qrPath(data));
  const { d, size } = drawn.get(data)!;
  const box = size + 2 * QUIET;
  // A whole number of CSS pixels per module (about 250 px in all), so crisp edges give every module one size.
  const px = box * Math.max(3, Math.floor(250 / box));
  return html`<figure part="qr">
      <svg
        role="img"
        aria-label=${fill(t.qrLabel, amount)}
        viewBox="${-QUIET} ${-QUIET} ${box} ${box}"
        width=${px}
        height=${px}
        shape-rendering="crispEdges"
      >
        <rect x=${-QUIET} y=${-QUIET} width=${box} height=${box} fill="#fff" />
        <path d=${d} fill="#000" />
      </svg>
    </figure>
    <p class="row"><span>${t.amount}</span><strong part="amount">${amount}</strong></p>
    <button class="secondary" @click=${() => savePng(deposit.id, d, size)}>${t.download}</button>
    ${steps(t.qrSteps)}`;
};
export default screen(qris);
