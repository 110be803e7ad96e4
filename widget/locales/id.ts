// The element's words in Indonesian (see en.ts).
import type en from './en.js';

export default {
  va: 'Virtual account',
  loading: 'Menyiapkan pembayaran…',
  choose: 'Pilih cara bayar',
  orderTotal: 'Total pesanan',
  qris: 'QRIS',
  ewallet: 'E-wallet',
  bank: 'Transfer bank',
  crypto: 'Kripto',
  fee: 'Biaya {0}',
  noFee: 'Tanpa biaya',
  unavailable: 'Tidak tersedia untuk jumlah ini',
  payWithin: 'Bayar dalam',
  chooseWithin: 'Pilih dalam',
  stillPending: 'Belum diterima.',
  offline: 'Koneksi terputus. Mencoba lagi…',
  paidTitle: 'Pembayaran diterima',
  paidText: 'Terima kasih! Pembayaran {0} dengan {1} telah selesai.',
  expiredTitle: 'Pembayaran kedaluwarsa',
  expiredText: 'Waktu pembayaran habis. Tidak ada dana yang ditarik.',
  restart: 'Mulai pembayaran baru',
  back: 'Kembali ke metode pembayaran',
  current: 'Pilihan Anda saat ini',
  lastUsed: 'Terakhir dipakai',
  left: 'Sisa waktu {0}',
} satisfies typeof en;
