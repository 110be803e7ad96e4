// The words of failures other than a lost connection (failures.ts) in Indonesian.
import type en from './failures.en.js';

export default {
  busy: 'Terlalu banyak percobaan. Tunggu sebentar, lalu coba lagi.',
  gone: 'Tautan pembayaran ini tidak dikenal atau sudah berakhir.',
  badAmount: 'Jumlah ini tidak dapat dibayar secara online. Silakan hubungi toko.',
  refused: 'Metode pembayaran ini tidak dapat digunakan untuk pembayaran ini. Silakan pilih yang lain.',
  failed: 'Pembayaran ini tidak dapat diproses.',
  setup: 'Pembayaran ini belum diatur dengan benar. Silakan hubungi toko.',
  server: 'Pembayaran sedang tidak tersedia. Silakan coba lagi sebentar lagi.',
} satisfies typeof en;
