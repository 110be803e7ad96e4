// The e-wallet view's words in Indonesian (views/ewallet.ts and its flows: ewallet-push.ts, ewallet-qr-or-app.ts,
// ewallet-redirect.ts, a failed attempt's panel in failure.ts), with the frame's: in the view's chunk for Indonesian.
import type en from './ewallet.en.js';
import frame, { links, rate } from './frame.id.js';

export default {
  ...frame,
  ...rate,
  ...links,
  amount: 'Jumlah pembayaran',
  walletSteps: ['Lanjutkan ke {0} dan setujui pembayaran.', 'Kembali ke sini: halaman ini diperbarui otomatis.'],
  openWallet: 'Lanjutkan ke {0}',
  newTab: '(membuka tab baru)',
  phoneLabel: 'Nomor HP {0} Anda',
  phoneHint: 'Permintaan pembayaran dikirim ke aplikasi {0} di nomor ini.',
  sendRequest: 'Kirim permintaan pembayaran',
  sending: 'Mengirim…',
  approveIn: 'Buka {0} di {1} dan setujui pembayaran.',
  windowLeft: 'Sisa waktu untuk menyetujui',
  pushSteps: [
    'Masukkan nomor HP akun {0} Anda.',
    'Buka notifikasi di {0} dan setujui pembayaran.',
    'Halaman ini diperbarui otomatis.',
  ],
  walletQr: 'Kode pembayaran {0} untuk {1}',
  openApp: 'Buka {0}',
  scanSteps: [
    'Buka {0} di ponsel Anda lalu ketuk Bayar atau Scan.',
    'Pindai kode ini dan konfirmasi pembayaran.',
    'Halaman ini diperbarui otomatis.',
  ],
  appSteps: [
    'Ketuk tombol untuk membuka {0}.',
    'Konfirmasi pembayaran di aplikasi, lalu kembali ke sini.',
    'Halaman ini diperbarui otomatis.',
  ],
  continueTo: 'Lanjutkan ke {0}',
  redirectSteps: [
    'Lanjutkan ke {0} dan setujui pembayaran.',
    '{0} mengembalikan Anda ke halaman ini, tempat pembayaran dikonfirmasi.',
  ],
  failedTitle: 'Pembayaran gagal',
  declined: 'Pembayaran ditolak di {0}.',
  insufficient_balance: 'Saldo {0} Anda tidak cukup untuk pembayaran ini. Isi saldo, atau pilih metode lain.',
  timeout: 'Pembayaran tidak disetujui di {0} tepat waktu.',
  tryAgain: 'Coba lagi',
  chooseAnother: 'Pilih metode lain',
} satisfies typeof en;
