// The words of a payment not as planned (views/paid.ts) in English (its chunk carries every language's).

export default {
  paid: 'Received',
  due: 'Still due',
  partial: 'Received {0}. Still due: {1}.',
  over: 'You paid {2} more than was due.',
  short: 'The time to pay ran out before the payment was complete. {0} was received: the shop will refund it.',
  late: '{0} was received, not all of it before the time to pay ran out: the shop will refund it.',
  completed: 'Payment received.',
  expired: 'Payment expired.',
};
