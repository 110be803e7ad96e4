// The virtual account and bank transfer view's words in English (views/va.ts, its banks' steps in views/va-steps.ts),
// with the frame's: a chunk of their own, loaded beside the view when the shopper's language is English.
import frame, { copy, rate } from './frame.en.js';

export default {
  ...frame,
  ...copy,
  ...rate,
  vaNumber: 'Account number',
  accountName: 'Account name',
  exactAmount: 'Transfer exactly',
  theNumber: 'account number',
  theAmount: 'amount',
  vaSteps: [
    'Open your bank app, internet banking or an ATM.',
    'Choose a virtual account transfer and enter the number above.',
    'Transfer exactly the amount shown. This page updates by itself.',
  ],
  bankStep: 'Transfer to the account above, from any bank.',
  uniqueStep: 'Transfer exactly this amount: the last digits ({1}) identify your payment. This page updates by itself.',
  atmTitle: 'ATM',
  mobileTitle: '{app} (mobile banking)',
  internetTitle: '{web} (internet banking)',
  atmSteps: [
    'Insert your card and enter your PIN.',
    'Choose {menu}.',
    'Enter the virtual account number {va}.',
    'Check the amount and the name, then confirm.',
  ],
  mobileSteps: [
    'Open {app} and log in.',
    'Choose {menu}.',
    'Enter the virtual account number {va}.',
    'Check the amount and the name, then confirm with your PIN.',
  ],
  internetSteps: [
    'Log in to {web}.',
    'Choose {menu}.',
    'Enter the virtual account number {va}.',
    'Check the amount and the name, then confirm with your token or OTP.',
  ],
  billAtmStep: 'Enter the company code {biller}, then the bill key {key}.',
  billAppStep: 'Choose the biller with code {biller} and enter the bill key {key}.',
  billerCode: 'Company code (biller)',
  billKey: 'Bill key',
};
