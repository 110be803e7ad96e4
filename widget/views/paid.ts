// A deposit that was not paid as planned (docs/design.md, "Payments that do not go as planned"): what arrived and what
// is still due while it is pending (`part="paid"`), and what the shopper must know once it is over: more arrived than
// was due, or money arrived for a payment that expired (the shop will refund it). Its own small chunk, loaded by the
// element when a deposit carries such a payment: most payments never need it, so neither the first paint nor a
// payment's view carries these words.
import { html, nothing } from 'lit';
import type { PaidKit } from './view.js';
import en from '../locales/paid.en.js';
import id from '../locales/paid.id.js';
import type { Locale } from '../i18n.js';

/** The words, one module per locale (locales/paid.<locale>.ts). */
const words = { en, id } satisfies Record<Locale, typeof en>;

/**
 * What arrived, as it arrived (docs/money.md): in the deposit's currency when every payment was; after a switch, each
 * currency's sum in its own ("Rp 100,000 + 1.5 USDC"), never converted.
 */
const received = ({ d, money }: PaidKit) => {
  const list = d.received ?? [];
  if (!list.length || list.every((r) => r.currency === d.currency)) return money(d.paidAmount);
  return list.map((r) => (r.currency === d.currency ? money(r.amount) : money(r.amount, r))).join(' + ');
};

const filled = (k: PaidKit, key: keyof (typeof words)['en']) =>
  k
    .text(words)
    [key].replace(/\{(\d)\}/g, (_, i) =>
      i === '0' ? received(k) : k.money([k.d.paidAmount, k.d.remainingAmount, k.d.overpaidAmount][+i]),
    );

/** Pending after a partial payment: what arrived and what is still due; nothing before any payment. */
const row = (k: PaidKit) => {
  const { d, money } = k;
  const t = k.text(words);
  return d.status === 'pending' && +d.paidAmount
    ? html`<div part="paid">
        <p class="row"><span>${t.paid}</span><strong>${received(k)}</strong></p>
        <p class="row"><span>${t.due}</span><strong>${money(d.remainingAmount)}</strong></p>
      </div>`
    : nothing;
};

/**
 * The line `part="result"` adds for a finished deposit: by how much it was overpaid, or that the shop will refund
 * what arrived for an expired one (before it expired, or late); empty when there is nothing to add.
 */
const note = (k: PaidKit) => {
  const { d } = k;
  return d.status === 'expired' && (+d.paidAmount || d.paidLate)
    ? filled(k, d.paidLate ? 'late' : 'short')
    : d.status === 'completed' && +d.overpaidAmount
      ? filled(k, 'over')
      : '';
};

/**
 * What screen readers hear when such a payment arrives: the partial payment, or the outcome with its title. A finished
 * one owes money back: the refund form's chunk loads (it asks the backend whether it takes claims; docs/refunds.md).
 */
const said = (k: PaidKit) => {
  const { d } = k;
  if (d.status !== 'pending')
    import('./refund.js').then(
      (m) => m.offer(k),
      () => {},
    );
  return d.status === 'pending' ? filled(k, 'partial') : `${k.text(words)[d.status]} ${note(k)}`;
};

export default { row, note, said };
