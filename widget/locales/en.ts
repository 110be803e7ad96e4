// The element's words in English: one file, its own chunk in the script-tag build, loaded with the checkout (in
// parallel) when the shopper's language is English, so the first paint carries one language. A pending deposit's view
// (views/), the modal dialog (modal.ts) and the words of failures (failures.ts) carry their own, and those of a lost
// connection are i18n.ts's `offline`. Keys are unique across all of them: a shop's `strings` replace any text by its
// key. A new locale is a file like this one, registered in i18n.ts's `locales`.
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
