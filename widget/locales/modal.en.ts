// The modal dialog's words (modal.ts) in English: a chunk of their own, loaded with it.

export default {
  dialog: 'Payment',
  close: 'Close',
};
