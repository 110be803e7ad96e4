// The QRIS view's words in English (views/qris.ts), with the frame's: in the view's chunk for English.
import frame from './frame.en.js';

export default {
  ...frame,
  amount: 'Amount to pay',
  qrSteps: [
    'Open any app that pays with QRIS (banking or e-wallet).',
    'Scan this code and check the amount.',
    'Confirm the payment. This page updates by itself.',
  ],
  qrLabel: 'QRIS code for {0}',
  download: 'Download QR code',
};
