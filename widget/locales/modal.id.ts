// The modal dialog's words (modal.ts) in Indonesian (its chunk carries every language's).
import type en from './modal.en.js';

export default {
  dialog: 'Pembayaran',
  close: 'Tutup',
} satisfies typeof en;
