// The words of a pending deposit's frame (views/pending.ts), in English, and those that more than one view shows: a
// copy button's (views/copy.ts), the rate's row (views/rate.ts) and a link the element does not open
// (views/external.ts). Each view's words (locales/<view>.en.ts) take what they use.

export const copy = { copy: 'Copy', copied: 'Copied' };

export const rate = { rate: 'Rate' };

export const links = { badLink: 'This payment link cannot be opened safely.' };

export default {
  waiting: 'Waiting for your payment…',
  checkNow: 'Check payment status',
  checking: 'Checking…',
  change: 'Change payment method',
};
