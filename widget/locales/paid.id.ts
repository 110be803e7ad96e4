// The words of a payment not as planned (views/paid.ts) in Indonesian (its chunk carries every language's).
import type en from './paid.en.js';

export default {
  paid: 'Diterima',
  due: 'Sisa tagihan',
  partial: 'Diterima {0}. Sisa tagihan: {1}.',
  over: 'Anda membayar {2} lebih dari tagihan.',
  short: 'Waktu pembayaran habis sebelum pembayaran lengkap. {0} telah diterima: toko akan mengembalikannya.',
  late: '{0} telah diterima, tidak semuanya sebelum waktu pembayaran habis: toko akan mengembalikannya.',
  completed: 'Pembayaran diterima.',
  expired: 'Pembayaran kedaluwarsa.',
} satisfies typeof en;
