// The QRIS view's words in Indonesian (views/qris.ts), with the frame's: in the view's chunk for Indonesian.
import type en from './qris.en.js';
import frame from './frame.id.js';

export default {
  ...frame,
  amount: 'Jumlah pembayaran',
  qrSteps: [
    'Buka aplikasi yang mendukung QRIS (m-banking atau e-wallet).',
    'Pindai kode ini dan periksa jumlahnya.',
    'Konfirmasi pembayaran. Halaman ini diperbarui otomatis.',
  ],
  qrLabel: 'Kode QRIS untuk {0}',
  download: 'Unduh kode QR',
} satisfies typeof en;
