// The element's words in English and Indonesian (a pending deposit's view, in views/, carries its own, and the words
// of failures other than a lost connection are in failures.ts), and locale-aware money and duration formatting. Keys
// are unique across all of them: a shop's `strings` replace any text by its key.

const en = {
  loading: 'Preparing your payment…',
  choose: 'Choose how to pay',
  orderTotal: 'Order total',
  va: 'Virtual account',
  qris: 'QRIS',
  ewallet: 'E-wallet',
  bank: 'Bank transfer',
  crypto: 'Crypto',
  fee: 'Fee {0}',
  noFee: 'No fee',
  unavailable: 'Not available for this amount',
  payWithin: 'Pay within',
  chooseWithin: 'Choose within',
  stillPending: 'Not received yet.',
  offline: 'Connection lost. Retrying…',
  paidTitle: 'Payment received',
  paidText: 'Thank you! Your payment of {0} with {1} is complete.',
  expiredTitle: 'Payment expired',
  expiredText: 'The time to pay ran out. Nothing was charged.',
  restart: 'Start a new payment',
  errorTitle: 'Something went wrong',
  noConnection: 'We could not reach the payment service. Please try again in a moment.',
  retry: 'Try again',
  back: 'Back to payment methods',
  current: 'Your current choice',
  lastUsed: 'Last used',
  left: '{0} left to pay',
  dialog: 'Payment',
  close: 'Close',
  badLink: 'This payment link cannot be opened safely.',
};

export type Messages = typeof en;

const id: Messages = {
  ...en,
  loading: 'Menyiapkan pembayaran…',
  choose: 'Pilih cara bayar',
  orderTotal: 'Total pesanan',
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
  errorTitle: 'Terjadi kesalahan',
  noConnection: 'Layanan pembayaran tidak dapat dihubungi. Silakan coba lagi sebentar lagi.',
  retry: 'Coba lagi',
  back: 'Kembali ke metode pembayaran',
  current: 'Pilihan Anda saat ini',
  lastUsed: 'Terakhir dipakai',
  left: 'Sisa waktu {0}',
  dialog: 'Pembayaran',
  close: 'Tutup',
  badLink: 'Tautan pembayaran ini tidak aman untuk dibuka.',
};

export type Locale = 'en' | 'id';
/** A shop's texts by key (a list of steps is an array), replacing the element's own in every locale. */
export type Strings = Record<string, string | string[]>;
export const messages: Record<Locale, Messages> = { en, id };

/** Fills `{0}`, `{1}` ... in a message. */
export const fill = (text: string, ...values: string[]) => text.replace(/\{(\d)\}/g, (_, i) => values[+i] ?? '');

const tag = (locale: Locale) => (locale === 'id' ? 'id-ID' : 'en-US');

/**
/** A token amount as shown and copied (DESIGN.md 12): the exact string without trailing zeros ("0.50" is "0.5"). */
export const exact = (amount: string) => amount.replace(/\.0*$|(\.\d*?)0+$/, '$1');

/**
 * Formats a decimal string exactly (Intl formats numeric strings without going through a float), with as many
 * fraction digits as the string carries: "150000" IDR is "Rp 150.000" in `id`, "Rp 150,000" in `en`. A token amount
 * (with its `symbol`) is grouped by hand, digit for digit, without trailing zeros: "1234.500000" USDC is "1,234.5 USDC" in `en`, since its
 * 18 decimals (ETH) may be more than Intl keeps and an older engine would round it through a float.
 */
export function money(amount: string, currency: string, locale: Locale, symbol?: string) {
  if (symbol) {
    const [whole, fraction] = exact(amount).split('.');
    const [group, point] = locale === 'id' ? '.,' : ',.';
    return `${whole.replace(/\B(?=(\d{3})+$)/g, group)}${fraction ? point + fraction : ''} ${symbol}`;
  }
  const digits = (amount.split('.')[1] || '').length;
  try {
    return new Intl.NumberFormat(tag(locale), {
      style: 'currency',
      currency,
      currencyDisplay: 'narrowSymbol',
      minimumFractionDigits: digits,
      maximumFractionDigits: digits,
    }).format(amount as unknown as number);
  } catch {
    return `${amount} ${currency}`;
  }
}

/** "14 minutes" / "14 menit": a spoken duration for a polite announcement. */
export function duration(value: number, unit: 'hour' | 'minute' | 'second', locale: Locale) {
  return new Intl.NumberFormat(tag(locale), { style: 'unit', unit, unitDisplay: 'long' }).format(value);
}

/** "23:59:07" or "14:07": the visible countdown. */
export function clock(ms: number) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  const two = (n: number) => String(n).padStart(2, '0');
  const h = Math.floor(s / 3600);
  return (h ? `${h}:${two(Math.floor(s / 60) % 60)}` : `${Math.floor(s / 60)}`) + `:${two(s % 60)}`;
}
