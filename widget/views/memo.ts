// A Stellar deposit's memo (docs/indonesian-payments.md): the shop receives on one account and tells payments apart
// by the memo, so the view shows it (`part="memo"`, with copy) and says the payment needs it. Part of the crypto
// view's chunk.
import { html, nothing, css } from 'lit';
import { fill, type Locale } from '../i18n.js';
import { copyButton } from './copy.js';
import type { ViewKit } from './view.js';
import en from '../locales/crypto.en.js';
import id from '../locales/crypto.id.js';

export const memoStyles = css`
  [part='memo'] {
    font-family: ui-monospace, Menlo, Consolas, monospace;
    font-size: 1.05rem;
  }
  .memo-note {
    font-size: 0.88rem;
    color: var(--kasir-danger, #b42318);
    flex-basis: 100%;
  }
`;

/** The words, one module per locale (locales/crypto.<locale>.ts). */
const words = { en, id } satisfies Record<Locale, typeof en>;

/** The memo's row of the crypto view's list, when the deposit has one. */
export const memoRow = (k: ViewKit) => {
  const { d } = k;
  if (!d.memo) return nothing;
  const t = k.text(words);
  return html`<div>
    <dt>${fill(t.memo, d.memoType === 'id' ? 'MEMO_ID' : 'MEMO_TEXT')}</dt>
    <dd><span part="memo">${d.memo}</span>${copyButton(k, d.memo, t.theMemo, '[part=memo]')}<span class="memo-note" role="note">${t.memoNeeded}</span></dd>
  </div>`;
};
