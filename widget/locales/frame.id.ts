// The words of a pending deposit's frame (views/pending.ts), in Indonesian, and those that more than one view shows: a
// copy button's (views/copy.ts), the rate's row (views/rate.ts) and a link the element does not open
// (views/external.ts). Each view's words (locales/<view>.id.ts) take what they use.
import type * as en from './frame.en.js';

export const copy = { copy: 'Salin', copied: 'Tersalin' } satisfies typeof en.copy;

export const rate = { rate: 'Kurs' } satisfies typeof en.rate;

export const links = { badLink: 'Tautan pembayaran ini tidak aman untuk dibuka.' } satisfies typeof en.links;

export default {
  waiting: 'Menunggu pembayaran Anda…',
  checkNow: 'Cek status pembayaran',
  checking: 'Memeriksa…',
  change: 'Ganti metode pembayaran',
} satisfies typeof en.default;
