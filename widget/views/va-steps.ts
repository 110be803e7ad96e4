// A virtual account's steps per bank and channel (docs/indonesian-payments.md): ATM, mobile banking and internet
// banking (`data-channel` atm, mobile, internet), each naming the menus as that bank's ATM and apps word them (the
// menus stay as the bank shows them, in both languages). Mandiri's VA is a bill payment: its company (biller) code and
// bill key. Part of the virtual account view's chunk, never of the first paint.
import { html, css } from 'lit';
import type { ViewKit } from './view.js';
import en from '../locales/va.en.js';
import id from '../locales/va.id.js';
import type { Locale } from '../i18n.js';

export const bankStepStyles = css`
  [part='instructions'] details {
    border-top: 1px solid var(--b);
    padding: 0.4rem 0;
  }
  [part='instructions'] summary {
    cursor: pointer;
    font-weight: 600;
    min-height: 32px;
    display: flex;
    align-items: center;
  }
`;

type Channel = 'atm' | 'mobile' | 'internet';
const CHANNELS: Channel[] = ['atm', 'mobile', 'internet'];

/** A bank's app, its internet banking, and the menu path to a VA payment on each channel. */
interface BankMenus {
  app: string;
  web: string;
  atm: string;
  mobile: string;
  internet: string;
}

const BANKS: Record<string, BankMenus> = {
  BCA_VA: {
    app: 'BCA mobile',
    web: 'KlikBCA',
    atm: 'Transaksi Lainnya > Transfer > ke Rek BCA Virtual Account',
    mobile: 'm-Transfer > BCA Virtual Account',
    internet: 'Transfer Dana > Transfer ke BCA Virtual Account',
  },
  BNI_VA: {
    app: 'BNI Mobile Banking',
    web: 'BNI Internet Banking',
    atm: 'Menu Lain > Transfer > Virtual Account Billing',
    mobile: 'Transfer > Virtual Account Billing',
    internet: 'Transfer > Virtual Account Billing',
  },
  BRI_VA: {
    app: 'BRImo',
    web: 'Internet Banking BRI',
    atm: 'Transaksi Lain > Pembayaran > Lainnya > BRIVA',
    mobile: 'Pembayaran > BRIVA',
    internet: 'Pembayaran > BRIVA',
  },
  MANDIRI_VA: {
    app: "Livin' by Mandiri",
    web: 'Mandiri Internet Banking',
    atm: 'Bayar/Beli > Lainnya > Multi Payment',
    mobile: 'Bayar > Multipayment',
    internet: 'Bayar > Multi Payment',
  },
  PERMATA_VA: {
    app: 'PermataMobile X',
    web: 'PermataNet',
    atm: 'Transaksi Lainnya > Pembayaran > Pembayaran Lainnya > Virtual Account',
    mobile: 'Bayar Tagihan > Virtual Account',
    internet: 'Pembayaran > Pembayaran Tagihan > Virtual Account',
  },
  CIMB_VA: {
    app: 'OCTO Mobile',
    web: 'OCTO Clicks',
    atm: 'Transfer > Rekening CIMB Niaga Lain/Virtual Account',
    mobile: 'Transfer > Virtual Account',
    internet: 'Bayar Tagihan > Virtual Account',
  },
  BSI_VA: {
    app: 'BSI Mobile',
    web: 'BSI Net',
    atm: 'Pembayaran/Pembelian > Institusi',
    mobile: 'Bayar > Institusi',
    internet: 'Pembayaran > Institusi',
  },
};

/** The words, one module per locale (locales/va.<locale>.ts). */
const words = { en, id } satisfies Record<Locale, typeof en>;

/** The words of a Mandiri bill payment's rows (its biller code and bill key), in the kit's language. */
export const billWords = (k: ViewKit) => k.text(words);

/** The deposit's bank's steps per channel, or undefined for a bank without its own (the view's generic steps then). */
export function bankSteps(k: ViewKit) {
  const { d } = k;
  const menus = BANKS[d.method.code];
  if (!menus) return undefined;
  const t = k.text(words);
  const vars: Record<string, string> = {
    ...menus,
    va: d.accountNumber ?? '',
    biller: d.billerCode ?? '',
    key: d.billKey ?? '',
  };
  const put = (text: string, menu: string) =>
    text.replace(/\{(\w+)\}/g, (_, name: string) => (name === 'menu' ? menu : (vars[name] ?? '')));
  return html`<div part="instructions">
    ${CHANNELS.map((channel) => {
      const list = [...t[`${channel}Steps`]];
      // A bill payment asks for the company code and the bill key where others ask for the VA number.
      if (d.billerCode && d.billKey) list[2] = channel === 'atm' ? t.billAtmStep : t.billAppStep;
      return html`<details data-channel=${channel} ?open=${channel === 'mobile'}>
        <summary>${put(t[`${channel}Title`], '')}</summary>
        <ol>${list.map((step) => html`<li>${put(step, menus[channel])}</li>`)}</ol>
      </details>`;
    })}
  </div>`;
}
