// The e-wallet view's words in English (views/ewallet.ts and its flows: ewallet-push.ts, ewallet-qr-or-app.ts, ewallet-
// redirect.ts, a failed attempt's panel in failure.ts), with the frame's: in the view's chunk for English.
import frame, { links, rate } from './frame.en.js';

export default {
  ...frame,
  ...rate,
  ...links,
  amount: 'Amount to pay',
  walletSteps: ['Continue to {0} and approve the payment.', 'Come back here: this page updates by itself.'],
  openWallet: 'Continue to {0}',
  newTab: '(opens in a new tab)',
  phoneLabel: 'Your {0} phone number',
  phoneHint: 'We send the payment request to the {0} app on this number.',
  sendRequest: 'Send payment request',
  sending: 'Sending…',
  approveIn: 'Open {0} on {1} and approve the payment.',
  windowLeft: 'Time left to approve',
  pushSteps: [
    'Enter the phone number of your {0} account.',
    'Open the notification in {0} and approve the payment.',
    'This page updates by itself.',
  ],
  walletQr: '{0} payment code for {1}',
  openApp: 'Open {0}',
  scanSteps: [
    'Open {0} on your phone and tap Pay or Scan.',
    'Scan this code and confirm the payment.',
    'This page updates by itself.',
  ],
  appSteps: [
    'Tap the button to open {0}.',
    'Confirm the payment in the app, then come back here.',
    'This page updates by itself.',
  ],
  continueTo: 'Continue to {0}',
  redirectSteps: [
    'Continue to {0} and approve the payment.',
    '{0} brings you back here, where the payment is confirmed.',
  ],
  failedTitle: 'Payment failed',
  declined: 'The payment was declined in {0}.',
  insufficient_balance: 'Your {0} balance is not enough for this payment. Top it up, or choose another method.',
  timeout: 'The payment was not approved in {0} in time.',
  tryAgain: 'Try again',
  chooseAnother: 'Choose another method',
};
