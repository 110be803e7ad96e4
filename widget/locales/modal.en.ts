// The modal dialog's words (modal.ts) in English (its chunk carries every language's).

export default {
  dialog: 'Payment',
  close: 'Close',
};
