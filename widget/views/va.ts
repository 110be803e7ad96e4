// The pending screen of a virtual account or a bank transfer: the account number (grouped by four), the account name
// when there is one, the exact amount, each to copy, and the steps (for a transfer whose amount carries a unique code,
// why its last digits are odd).
import { css, html, nothing } from 'lit';
import { fill, type Locale } from '../i18n.js';
import { copyButton, copyStyles } from './copy.js';
import { bankStepStyles, bankSteps, billWords } from './va-steps.js';
import { frameStyles, screen } from './pending.js';
import { rateRow } from './rate.js';
import type { View } from './view.js';
import en from '../locales/va.en.js';
import id from '../locales/va.id.js';

export { DepositStatusController } from './pending.js';

/** The frame's styles and the view's own. */
export const styles = [
  frameStyles,
  copyStyles,
  bankStepStyles,
  css`
  [part='va-number'] {
    font-size: min(1.25rem, 5.6cqi);
    white-space: nowrap;
  }
`,
];

/** The words, one module per locale (locales/va.<locale>.ts). */
const words = { en, id } satisfies Record<Locale, typeof en>;

/** A Mandiri bill payment's company code and bill key (docs/indonesian-payments.md), each to copy. */
const billRows = (k: Parameters<View>[0]) => {
  const { d } = k;
  const b = billWords(k);
  return html`<div>
      <dt>${b.billerCode}</dt>
      <dd><span part="biller-code" class="mono">${d.billerCode}</span>${copyButton(k, d.billerCode!, b.billerCode, '[part=biller-code]')}</dd>
    </div>
    <div>
      <dt>${b.billKey}</dt>
      <dd><span part="bill-key" class="mono">${d.billKey}</span>${copyButton(k, d.billKey!, b.billKey, '[part=bill-key]')}</dd>
    </div>`;
};

const grouped = (number = '') => number.replace(/\s+/g, '').replace(/(.{4})(?=.)/g, '$1 ');

// A VA's steps are its bank's, per channel (va-steps.ts), unless the shop gave its own `vaSteps` (`strings`).
const va: View = (k) => {
  const { d, amount, steps } = k;
  const t = k.text(words);
  return html`<dl>
      <div>
        <dt>${t.vaNumber}</dt>
        <dd><span part="va-number" class="mono">${grouped(d.accountNumber)}</span>${copyButton(k, d.accountNumber!, t.theNumber, '[part=va-number]')}</dd>
      </div>
      ${d.accountName ? html`<div><dt>${t.accountName}</dt><dd>${d.accountName}</dd></div>` : nothing}
      ${d.billerCode && d.billKey ? billRows(k) : nothing}
      <div>
        <dt>${t.exactAmount}</dt>
        <dd><strong part="amount">${amount}</strong>${copyButton(k, k.due, t.theAmount, 'dd [part=amount]')}</dd>
      </div>
    </dl>
    ${rateRow(k)} ${
      (d.method.kind === 'va' && t.vaSteps === words[k.loc].vaSteps && bankSteps(k)) ||
      steps(
        d.method.kind === 'bank'
          ? // A bank transfer's amount carries a unique code (odd last digits): say why, or the shopper rounds it.
            [t.vaSteps[0], t.bankStep, d.uniqueCode ? fill(t.uniqueStep, d.method.name, d.uniqueCode) : t.vaSteps[2]]
          : t.vaSteps,
      )
    }`;
};
export default screen(va);
