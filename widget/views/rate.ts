// The rate a converted payment is priced at (the quote's, Deposit.exchangeRate), as "1 USDC = 16,250 IDR": digit for
// digit, grouped by hand like a token amount. Shown by the crypto view, and by the virtual account and e-wallet views
// for a payment in another currency than the order's; the QRIS view (rupiah only) leaves it out, for its size budget.
import { html, nothing, type TemplateResult } from 'lit';
import type { ViewKit } from './view.js';
import { rate as en } from '../locales/frame.en.js';
import { rate as id } from '../locales/frame.id.js';
import type { Locale } from '../i18n.js';

/** The words, one module per locale (locales/frame.<locale>.ts). */
const words = { en, id } satisfies Record<Locale, typeof en>;

/** The rate row (`part="rate"`), or nothing when the payment is not converted. */
export const rateRow = ({ d, text, money }: ViewKit): TemplateResult | typeof nothing => {
  const rate = d.exchangeRate;
  // A crypto id ("USDC-POLYGON") is named by its token's symbol.
  const name = (currency: string) => (currency === d.method.code && d.symbol) || currency;
  return rate
    ? html`<p part="rate" class="row"><span>${text(words).rate}</span><strong>1 ${name(rate.from)} = ${money(rate.rate, { currency: '', symbol: name(rate.to) })}</strong></p>`
    : nothing;
};
