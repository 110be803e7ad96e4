// The refund form's words (views/refund.ts) in English (its chunk carries every language's). Keys unique across the
// element's, so a shop's `strings` replace any of them.

export default {
  refundTitle: 'Where should we send your refund?',
  refundBankIntro: 'The shop owes you {0}. Tell it which bank account to send it to.',
  refundCryptoIntro: 'The shop owes you {0}. Give an address on {1} to send it to.',
  refundBank: 'Bank',
  refundChooseBank: 'Choose your bank',
  refundAccountNumber: 'Account number',
  refundAccountName: "Account holder's name",
  refundEmail: 'Email',
  refundAddress: 'Address',
  refundCity: 'City',
  refundPostCode: 'Postal code',
  refundWallet: 'Your {0} address on {1}',
  refundMemo: 'Memo (if your wallet or exchange asks for one)',
  refundSend: 'Send refund details',
  refundSending: 'Sending…',
  refundSent: 'Thank you. The shop has your refund details and will send you {0}.',
  refundRequired: 'Required.',
  refundBadAccount: 'Enter 5 to 34 digits or letters.',
  refundBadEmail: 'Enter an email address, e.g. name@example.com.',
  refundBadAddress: 'This is not an address on {0}. Check it for a typo.',
  refundBadMemo: 'A memo is a number, or at most 28 characters.',
  refundFailed: 'Your refund details could not be sent. Please try again.',
  refundOwedSent: '{0}: the shop has your details.',
  refundOwedOpen: '{0}: where to send it is still to tell.',
};
