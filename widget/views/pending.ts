// The frame of every pending deposit's screen, around its kind's view: the method's heading, the countdown, the
// waiting line, "check now" and "change payment method", and the steps the views list; with its words and styles, and the controller that
// follows the deposit. Each view module wraps its view in it and re-exports the controller; the script-tag build
// copies this module into each view's chunk (one request per payment, see vite.config.ts). None of it is in the first
// paint.
import { css, html, nothing } from 'lit';
import { fill, type Locale } from '../i18n.js';
import type { Screen, View } from './view.js';
import en from '../locales/frame.en.js';
import id from '../locales/frame.id.js';

export { DepositStatusController } from './deposit-status-controller.js';

/** The words, one module per locale (locales/frame.<locale>.ts). */
const words = { en, id } satisfies Record<Locale, typeof en>;

/** The frame's styles; each view adds its own to them. */
export const frameStyles = css`
  ol {
    padding-left: 1.3rem;
    color: var(--m);
    font-size: 0.92rem;
  }
  .secondary {
    color: var(--a);
    font-weight: 600;
  }
`;

/** The pending screen of a kind: `view` in the frame. */
export const screen =
  (view: View): Screen =>
  (k) => {
    const { d, t } = k;
    const w = k.text(words);
    const steps = (list: string[]) =>
      html`<ol part="instructions">${list.map((s) => html`<li>${fill(s, d.method.name)}</li>`)}</ol>`;
    return html`<h2 tabindex="-1"><img src=${d.method.image} alt="" width="48" height="32" />${d.method.name}</h2>
    ${k.paid} ${view({ ...k, steps })} ${k.timer}
    <p class="loading waiting"><span class="spin" aria-hidden="true"></span>${k.offline ? t.offline : w.waiting}</p>
    <button part="check-now" class="secondary" ?disabled=${k.busy} @click=${k.check}>${k.busy ? w.checking : w.checkNow}</button>
    ${k.change ? html`<button part="change-method" class="secondary" @click=${k.change}>${w.change}</button>` : nothing}`;
  };
