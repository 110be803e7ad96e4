// The modal dialog's words (modal.ts) in Indonesian: a chunk of their own, loaded with it.
import type en from './modal.en.js';

export default {
  dialog: 'Pembayaran',
  close: 'Tutup',
} satisfies typeof en;
