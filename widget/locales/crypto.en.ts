// The crypto view's words in English (views/crypto.ts, a Stellar memo's row in views/memo.ts), with the frame's: in the
// view's chunk for English.
import frame, { copy, links, rate } from './frame.en.js';

export default {
  ...frame,
  ...copy,
  ...rate,
  ...links,
  network: 'Network: {0}',
  warning: 'Send {0} on the {1} network only. A payment sent on another network is lost.',
  address: 'Address',
  exactAmount: 'Send exactly',
  inWallet: 'Open in wallet',
  theAddress: 'address',
  theAmount: 'amount',
  qrLabel: 'Wallet payment request for {0}',
  steps: [
    'Open your wallet on the {1} network.',
    'Scan this code, or send exactly the amount to the address.',
    'This page updates by itself once the payment arrives.',
  ],
  sendStep: 'Send exactly the amount to the address.',
  memo: 'Memo ({0})',
  memoNeeded: 'Add this memo to the payment: without it the payment cannot be matched to your order.',
  theMemo: 'memo',
};
