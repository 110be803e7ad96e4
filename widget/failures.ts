// What the shopper reads when something other than the connection failed (i18n.ts keeps the lost connection's words,
// which must show when nothing more can be loaded). Failures are rare: the element loads these words when one happens
// (its own chunk in the script-tag build), so the first paint does not carry them.
import type { Locale } from './i18n.js';

const en = {
  busy: 'Too many attempts. Please wait a moment, then try again.',
  gone: 'This payment link is unknown or has ended.',
  badAmount: 'This amount cannot be paid online. Please contact the shop.',
  refused: 'This payment method cannot be used for this payment. Please choose another one.',
  failed: 'This payment could not be processed.',
  setup: 'This payment is not set up correctly. Please contact the shop.',
};

export type Failure = keyof typeof en;

const failures: Record<Locale, Record<Failure, string>> = {
  en,
  id: {
    busy: 'Terlalu banyak percobaan. Tunggu sebentar, lalu coba lagi.',
    gone: 'Tautan pembayaran ini tidak dikenal atau sudah berakhir.',
    badAmount: 'Jumlah ini tidak dapat dibayar secara online. Silakan hubungi toko.',
    refused: 'Metode pembayaran ini tidak dapat digunakan untuk pembayaran ini. Silakan pilih yang lain.',
    failed: 'Pembayaran ini tidak dapat diproses.',
    setup: 'Pembayaran ini belum diatur dengan benar. Silakan hubungi toko.',
  },
};
export default failures;
