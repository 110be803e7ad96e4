// The element's words in English: one file, its own chunk in the script-tag build, loaded with the checkout (in
// parallel) when the shopper's language is English, so the first paint carries one language. Every other place words
// live has its own file per language beside this one (<place>.en.ts: each pending view with the frame's, the modal
// dialog, the failures, a payment not as planned, the refund form), and those of a lost connection are i18n.ts's
// `offline`. Keys are unique across all of them: a shop's `strings` replace any text by its key. A new locale is a
// file like this one and one per place (each place's table of them fails to compile without it), registered in
// i18n.ts's `locales` and `formats`.
export default {
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
  back: 'Back to payment methods',
  current: 'Your current choice',
  lastUsed: 'Last used',
  left: '{0} left to pay',
};
