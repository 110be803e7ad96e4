// The words of failures other than a lost connection (failures.ts) in English.

export default {
  busy: 'Too many attempts. Please wait a moment, then try again.',
  gone: 'This payment link is unknown or has ended.',
  badAmount: 'This amount cannot be paid online. Please contact the shop.',
  refused: 'This payment method cannot be used for this payment. Please choose another one.',
  failed: 'This payment could not be processed.',
  setup: 'This payment is not set up correctly. Please contact the shop.',
  server: 'Payments are not available right now. Please try again in a moment.',
};
