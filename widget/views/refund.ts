// The refund form (`part="refund"`, docs/refunds.md): money is owed back for a finished deposit (it expired or was
// cancelled with money received, a payment arrived late, or more than was due arrived), and the shop's backend takes
// refund claims. It asks where to send the money: a bank of the backend's list, the account number and the holder's
// name, and what else the shop does not know of its customer; or, for crypto, an address on the network the money
// came by, checked as wallets check it (EIP-55 on an EVM network, a Stellar account id with its checksum, and its
// memo). Money is owed per currency as it arrived, whatever the deposit's method now: the form asks for one currency
// at a time (the backend's offer says which) and lists what is owed in each. The amount shown is the backend's (the
// payment service's count); the form never sends one. Its own chunk, loaded by the element only when money is owed:
// no other payment downloads it.
import { html, nothing, type ReactiveController, type TemplateResult } from 'lit';
import { isEvmAddress, isStellarAddress, isStellarMemo } from '../crypto-address.js';
import type { PaidKit } from './view.js';
import type { RefundClaim, RefundClaimBody, RefundField } from '../types.js';
import en from '../locales/refund.en.js';
import id from '../locales/refund.id.js';
import type { Locale } from '../i18n.js';

/**
 * The form's words, in this chunk (the first paint carries none of them); keys unique across the element's, so a
 * shop's `strings` replace any of them.
 */
/** The words, one module per locale (locales/refund.<locale>.ts). */
const words = { en, id } satisfies Record<Locale, typeof en>;
type Words = (typeof words)['en'];
type Offer = Extract<RefundClaim, { accepted: true }>;
type Field = 'bankCode' | 'accountNumber' | 'accountName' | RefundField | 'address' | 'memo';

const STYLES = `
[part='refund']{display:grid;gap:.75rem;text-align:start;border-top:1px solid var(--b);padding-top:1rem;margin-top:.25rem}
[part='refund'] h3{font-size:1rem;color:inherit}
[part='refund'] label{display:grid;gap:.25rem;font-size:.92rem}
[part='refund'] input,[part='refund'] select{font:inherit;min-height:44px;padding:.5rem .75rem;border:1px solid var(--b);border-radius:calc(var(--r) - 4px);background:var(--kasir-bg,#fff);color:inherit;width:100%}
[part='refund'] input:focus-visible,[part='refund'] select:focus-visible{outline:2px solid var(--a);outline-offset:1px}
[part='refund'] [aria-invalid='true']{border-color:var(--kasir-danger,#b42318)}
[part='refund'] .error{color:var(--kasir-danger,#b42318);font-size:.88rem}
[part='refund'] .mono{font-family:ui-monospace,Menlo,Consolas,monospace;word-break:break-all}
`;
let sheet: CSSStyleSheet | undefined;

/** Fills `{0}`, `{1}` in a message (i18n.ts's, written again: this chunk carries no copy of the element's words). */
const fill = (text: string, ...values: string[]) => text.replace(/\{(\d)\}/g, (_, i) => values[+i] ?? '');

/**
 * `a - b` for plain decimal texts, exactly, when it is above 0; '' otherwise (what of a currency is still to claim:
 * owed less claimed).
 */
const minus = (a: string, b: string) => {
  const decimals = (v: string) => (v.split('.')[1] || '').length;
  const places = Math.max(decimals(a), decimals(b));
  const units = (v: string) => BigInt(v.replace('.', '') + '0'.repeat(places - decimals(v)));
  const rest = units(a) - units(b);
  if (rest <= 0n) return '';
  const digits = rest.toString().padStart(places + 1, '0');
  return places ? `${digits.slice(0, -places)}.${digits.slice(-places)}` : digits;
};

/**
 * The refund form of one checkout: asks the backend what is owed and what to ask when made, then follows the shopper's
 * answer to the shop. Renders nothing when nothing is owed, the backend takes no claims, or it could not be asked.
 */
class RefundForm implements ReactiveController {
  private offer?: Offer;
  private errors: Partial<Record<Field, string>> = {};
  private failure?: string;
  private sending?: boolean;
  private sent?: boolean;

  readonly id: string;
  /** What had arrived when the offer was asked for: more arriving (a late payment) asks again. */
  private paid: string;
  private readonly host: PaidKit['host'];
  private readonly kit: PaidKit;

  /** For the element and its finished deposit, as views/paid.ts's kit holds them. */
  constructor(kit: PaidKit) {
    this.kit = kit;
    this.host = kit.host;
    this.id = kit.d.id;
    this.paid = kit.d.paidAmount;
    kit.host.addController(this);
    void this.load();
  }

  hostConnected() {}

  /** The deposit as the element shows it now: when more money arrived, what is owed is asked for again. */
  seen(kit: PaidKit) {
    if (kit.d.paidAmount === this.paid) return;
    this.paid = kit.d.paidAmount;
    void this.load();
  }

  private async load() {
    try {
      const claim = await this.kit.api.call<RefundClaim>(`/checkouts/${encodeURIComponent(this.id)}/refund-claim`);
      if (claim.accepted && (+claim.amount || claim.owed?.length)) {
        this.offer = claim;
        this.sent = claim.claimed;
      }
    } catch {
      // A backend without refund claims (an older one), or none reached: the element's words stand alone.
    }
    this.host.requestUpdate();
  }

  /** The form, or once sent the line saying the shop has the details; nothing when no form is offered. */
  render(): TemplateResult | typeof nothing {
    const { offer, kit } = this;
    const t = kit.text(words);
    // Only under its own deposit (the element may have moved on to a new checkout).
    if (!offer || kit.shown() !== this.id) return nothing;
    const root = this.host.shadowRoot;
    // Adopted (a page's strict CSP allows no <style>), and again whenever the element adopted its own anew.
    sheet ??= sheetOf();
    if (root && !root.adoptedStyleSheets.includes(sheet)) root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
    // An amount in the currency it arrived in (not the deposit's current one: a switch may have come between).
    const inCurrency = (value: string, currency: string) =>
      kit.money(value, {
        currency,
        symbol: /^[A-Z]{3}$/.test(currency)
          ? undefined
          : (currency === offer.currency && offer.symbol) || currency.split('-')[0],
      });
    const owed = offer.owed || [];
    if (this.sent)
      return html`<p class="sent" role="status">
        ${fill(t.refundSent, owed.length ? owed.map((o) => inCurrency(o.amount, o.currency)).join(' + ') : kit.money(offer.amount))}
      </p>`;
    const amount = inCurrency(offer.amount, offer.currency);
    // More than one currency, or money after a claim: what is owed in each, and what the shop has details for.
    const list =
      owed.length > 1 || owed.some((o) => +o.claimed)
        ? html`<ul part="refund-owed">
            ${owed.map((o) => {
              // Claimed in part (money arrived after a claim): what the shop has details for, then the rest.
              const open = minus(o.amount, o.claimed);
              return html`${+o.claimed ? html`<li>${fill(t.refundOwedSent, inCurrency(open ? o.claimed : o.amount, o.currency))}</li>` : nothing}
              ${open ? html`<li>${fill(t.refundOwedOpen, inCurrency(open, o.currency))}</li>` : nothing}`;
            })}
          </ul>`
        : nothing;
    const crypto = offer.kind === 'crypto';
    const field = (
      name: Field,
      label: string,
      attrs: { type?: string; autocomplete?: string; inputmode?: string; mono?: boolean } = {},
    ) => {
      const error = this.errors[name];
      return html`<label
        >${label}
        <input
          name=${name}
          type=${attrs.type || 'text'}
          autocomplete=${attrs.autocomplete || 'off'}
          inputmode=${attrs.inputmode || 'text'}
          spellcheck="false"
          class=${attrs.mono ? 'mono' : ''}
          aria-invalid=${error ? 'true' : 'false'}
          aria-describedby=${error ? `refund-${name}-error` : nothing}
        />${error ? html`<span class="error" id="refund-${name}-error">${error}</span>` : nothing}</label
      >`;
    };
    const labels: Record<RefundField, [string, string, string?]> = {
      email: [t.refundEmail, 'email', 'email'],
      address: [t.refundAddress, 'street-address'],
      city: [t.refundCity, 'address-level2'],
      postCode: [t.refundPostCode, 'postal-code'],
    };
    const bankError = this.errors.bankCode;
    return html`<form part="refund" novalidate aria-labelledby="refund-title" @submit=${(e: SubmitEvent) => this.submit(e, t)}>
      <h3 id="refund-title">${t.refundTitle}</h3>
      ${list}
      <p>${crypto ? fill(t.refundCryptoIntro, amount, offer.networkName || offer.network || '') : fill(t.refundBankIntro, amount)}</p>
      ${
        crypto
          ? html`${field('address', fill(t.refundWallet, offer.symbol || '', offer.networkName || offer.network || ''), { mono: true })}
          ${offer.chain === 'STELLAR' ? field('memo', t.refundMemo) : nothing}`
          : html`<label
              >${t.refundBank}
              <select name="bankCode" aria-invalid=${bankError ? 'true' : 'false'} aria-describedby=${bankError ? 'refund-bankCode-error' : nothing}>
                <option value="">${t.refundChooseBank}</option>
                ${(offer.banks || []).map((bank) => html`<option value=${bank.code}>${bank.name}</option>`)}
              </select>
              ${bankError ? html`<span class="error" id="refund-bankCode-error">${bankError}</span>` : nothing}</label
            >
            ${field('accountNumber', t.refundAccountNumber, { inputmode: 'numeric' })} ${field('accountName', t.refundAccountName, { autocomplete: 'name' })}
            ${(offer.ask || []).map((name) => field(name, labels[name][0], { autocomplete: labels[name][1], type: labels[name][2] }))}`
      }
      ${this.failure ? html`<p class="error" role="alert">${this.failure}</p>` : nothing}
      <button class="primary" ?disabled=${this.sending}>${this.sending ? t.refundSending : t.refundSend}</button>
    </form>`;
  }

  /** Checks the answers as the backend will, sends them, and says the shop has them (a claim made before counts too). */
  private async submit(event: SubmitEvent, t: Words) {
    event.preventDefault();
    const offer = this.offer;
    const form = event.target as HTMLFormElement;
    if (!offer || this.sending) return;
    const value = (name: Field) => ((form.elements.namedItem(name) as HTMLInputElement | null)?.value || '').trim();
    const errors: Partial<Record<Field, string>> = {};
    let body: RefundClaimBody;
    if (offer.kind === 'crypto') {
      const address = value('address');
      const memo = value('memo');
      const valid = offer.chain === 'STELLAR' ? isStellarAddress(address) : isEvmAddress(address);
      if (!address) errors.address = t.refundRequired;
      else if (!valid) errors.address = fill(t.refundBadAddress, offer.networkName || offer.network || '');
      if (memo && !isStellarMemo(memo)) errors.memo = t.refundBadMemo;
      body = { address, ...(memo ? { memo } : {}) };
    } else {
      const answers: Record<string, string> = {};
      for (const name of ['bankCode', 'accountNumber', 'accountName', ...(offer.ask || [])] as Field[]) {
        answers[name] = value(name);
        if (!answers[name]) errors[name] = t.refundRequired;
      }
      if (answers.accountNumber && !/^[0-9A-Za-z]{5,34}$/.test(answers.accountNumber.replace(/[\s-]/g, '')))
        errors.accountNumber = t.refundBadAccount;
      if (answers.email && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(answers.email)) errors.email = t.refundBadEmail;
      body = answers as RefundClaimBody;
    }
    this.errors = errors;
    this.failure = undefined;
    if (!Object.keys(errors).length) {
      this.sending = true;
      this.host.requestUpdate();
      try {
        // The currency this form is for; the answer is the offer as it is now (another currency may be owed too).
        const next = await this.kit.api.call<RefundClaim>(`/checkouts/${encodeURIComponent(this.id)}/refund-claim`, {
          ...body,
          currency: offer.currency,
        });
        if (next.accepted && next.owed) {
          this.offer = next;
          this.sent = next.claimed;
          if (!next.claimed) form.reset();
        } else this.sent = true;
      } catch (err) {
        const { status, message = '' } = err as { status?: number; message?: string };
        // Made before (another tab, a reload): the shop has the details all the same; what else is owed, if anything, is asked again.
        if (status === 409) {
          this.sent = true;
          await this.load();
        } else {
          // "accountNumber: must be ..." names a field of the form: shown at it, else under the form.
          const named = /^(\w+): (.*)$/.exec(message);
          if (status === 400 && named && form.elements.namedItem(named[1])) this.errors = { [named[1]]: named[2] };
          // A refusal the shopper can act on is shown as the backend words it; a 401 (no or an old order token) is
          // the shop's page's to mend, and its words are for developers.
          else this.failure = status && status < 500 && status != 401 && message ? message : t.refundFailed;
        }
      }
      this.sending = false;
    }
    this.host.requestUpdate();
    await this.host.updateComplete;
    // The first field to fix gets focus; once sent, the line saying so is announced (role=status).
    form.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }
}

function sheetOf() {
  const created = new CSSStyleSheet();
  created.replaceSync(STYLES);
  return created;
}

/** Gives the element the refund form of its finished deposit (once per deposit), from views/paid.ts's kit. */
export function offer(kit: PaidKit) {
  // The panel the element holds is this module's own form.
  kit.keepRefund((held) => {
    const form = held as RefundForm | undefined;
    if (form?.id !== kit.d.id) return new RefundForm(kit);
    form.seen(kit);
    return form;
  });
}
