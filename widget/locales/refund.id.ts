// The refund form's words (views/refund.ts) in Indonesian (its chunk carries every language's). Keys unique across the
// element's, so a shop's `strings` replace any of them.
import type en from './refund.en.js';

export default {
  refundTitle: 'Ke mana dana Anda dikembalikan?',
  refundBankIntro: 'Toko akan mengembalikan {0} kepada Anda. Beri tahu rekening bank tujuannya.',
  refundCryptoIntro: 'Toko akan mengembalikan {0} kepada Anda. Masukkan alamat di jaringan {1} tujuannya.',
  refundBank: 'Bank',
  refundChooseBank: 'Pilih bank Anda',
  refundAccountNumber: 'Nomor rekening',
  refundAccountName: 'Nama pemilik rekening',
  refundEmail: 'Email',
  refundAddress: 'Alamat',
  refundCity: 'Kota',
  refundPostCode: 'Kode pos',
  refundWallet: 'Alamat {0} Anda di jaringan {1}',
  refundMemo: 'Memo (jika dompet atau bursa Anda memintanya)',
  refundSend: 'Kirim data pengembalian dana',
  refundSending: 'Mengirim…',
  refundSent: 'Terima kasih. Toko telah menerima data pengembalian dana Anda dan akan mengirimkan {0}.',
  refundRequired: 'Wajib diisi.',
  refundBadAccount: 'Masukkan 5 sampai 34 angka atau huruf.',
  refundBadEmail: 'Masukkan alamat email, mis. nama@contoh.com.',
  refundBadAddress: 'Ini bukan alamat di jaringan {0}. Periksa kembali penulisannya.',
  refundBadMemo: 'Memo berupa angka, atau paling banyak 28 karakter.',
  refundFailed: 'Data pengembalian dana tidak dapat dikirim. Silakan coba lagi.',
  refundOwedSent: '{0}: toko telah menerima data Anda.',
  refundOwedOpen: '{0}: tujuan pengembaliannya belum dikirim.',
} satisfies typeof en;
