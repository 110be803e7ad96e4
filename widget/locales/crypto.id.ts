// The crypto view's words in Indonesian (views/crypto.ts, a Stellar memo's row in views/memo.ts), with the frame's: in
// the view's chunk for Indonesian.
import type en from './crypto.en.js';
import frame, { copy, links, rate } from './frame.id.js';

export default {
  ...frame,
  ...copy,
  ...rate,
  ...links,
  network: 'Jaringan: {0}',
  warning: 'Kirim {0} hanya melalui jaringan {1}. Pembayaran melalui jaringan lain akan hilang.',
  address: 'Alamat',
  exactAmount: 'Kirim tepat',
  inWallet: 'Buka di dompet',
  theAddress: 'alamat',
  theAmount: 'jumlah',
  qrLabel: 'Permintaan pembayaran dompet untuk {0}',
  steps: [
    'Buka dompet Anda di jaringan {1}.',
    'Pindai kode ini, atau kirim tepat sejumlah itu ke alamat tersebut.',
    'Halaman ini diperbarui otomatis setelah pembayaran diterima.',
  ],
  sendStep: 'Kirim tepat sejumlah itu ke alamat tersebut.',
  memo: 'Memo ({0})',
  memoNeeded: 'Tambahkan memo ini pada pembayaran: tanpa memo, pembayaran tidak dapat dicocokkan dengan pesanan Anda.',
  theMemo: 'memo',
} satisfies typeof en;
