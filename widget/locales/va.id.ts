// The virtual account and bank transfer view's words in Indonesian (views/va.ts, its banks' steps in views/va-
// steps.ts), with the frame's: a chunk of their own, loaded beside the view when the shopper's language is Indonesian.
import type en from './va.en.js';
import frame, { copy, rate } from './frame.id.js';

export default {
  ...frame,
  ...copy,
  ...rate,
  vaNumber: 'Nomor rekening',
  accountName: 'Nama rekening',
  exactAmount: 'Transfer tepat',
  theNumber: 'nomor rekening',
  theAmount: 'jumlah',
  vaSteps: [
    'Buka aplikasi bank, internet banking, atau ATM.',
    'Pilih transfer virtual account dan masukkan nomor di atas.',
    'Transfer tepat sesuai jumlah. Halaman ini diperbarui otomatis.',
  ],
  bankStep: 'Transfer ke rekening di atas, dari bank mana pun.',
  uniqueStep:
    'Transfer tepat sejumlah ini: digit terakhirnya ({1}) menandai pembayaran Anda. Halaman ini diperbarui otomatis.',
  atmTitle: 'ATM',
  mobileTitle: '{app} (m-banking)',
  internetTitle: '{web} (internet banking)',
  atmSteps: [
    'Masukkan kartu dan PIN Anda.',
    'Pilih {menu}.',
    'Masukkan nomor virtual account {va}.',
    'Periksa jumlah dan nama, lalu konfirmasi.',
  ],
  mobileSteps: [
    'Buka {app} dan masuk.',
    'Pilih {menu}.',
    'Masukkan nomor virtual account {va}.',
    'Periksa jumlah dan nama, lalu konfirmasi dengan PIN.',
  ],
  internetSteps: [
    'Masuk ke {web}.',
    'Pilih {menu}.',
    'Masukkan nomor virtual account {va}.',
    'Periksa jumlah dan nama, lalu konfirmasi dengan token atau OTP.',
  ],
  billAtmStep: 'Masukkan kode perusahaan {biller}, lalu kode bayar {key}.',
  billAppStep: 'Pilih penyedia jasa dengan kode {biller} dan masukkan kode bayar {key}.',
  billerCode: 'Kode perusahaan (biller)',
  billKey: 'Kode bayar',
} satisfies typeof en;
