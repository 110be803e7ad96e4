// A push e-wallet (OVO; docs/indonesian-payments.md): the shopper enters the phone number (`part="phone"`), the
// wallet sends a payment request to it, and the view counts down the wallet's window (`part="wallet-countdown"`) while
// it says to approve in the app; past the window the service records a failed attempt (timeout), shown with "try
// again" (a new request to the same number) and "choose another method". Part of the e-wallet view's chunk.
import { html, nothing, css } from 'lit';
import { fill, type Locale } from '../i18n.js';
import { chooseAgain, secondsLeft, type WalletView } from './wallet-kit.js';
import { failurePanel, shownFailure } from './failure.js';
import en from '../locales/ewallet.en.js';
import id from '../locales/ewallet.id.js';

export const pushStyles = css`
  form {
    display: grid;
    gap: 0.4rem;
  }
  [part='phone'] {
    font: inherit;
    font-size: 1.1rem;
    padding: 0.55rem 0.7rem;
    border: 1px solid var(--b);
    border-radius: calc(var(--r) - 4px);
  }
  [part='wallet-countdown'] {
    font-size: 1.6rem;
    text-align: center;
  }
  .alert {
    color: var(--kasir-danger, #b42318);
  }
`;

/** The words, one module per locale (locales/ewallet.<locale>.ts). */
const words = { en, id } satisfies Record<Locale, typeof en>;

/** Per element: a request in flight, the service's refusal of the number, and the window already checked at its end. */
const state = new WeakMap<object, { sending?: boolean; problem?: string; checked?: string }>();

export const pushView: WalletView = (k) => {
  const { d, steps } = k;
  const t = k.text(words);
  const s = state.get(k.root) ?? {};
  state.set(k.root, s);
  const send = async (phone?: string) => {
    s.sending = true;
    s.problem = undefined;
    k.update();
    s.problem = await chooseAgain(k, phone === undefined ? {} : { phone });
    s.sending = false;
    if (s.problem !== undefined) k.say(s.problem);
    k.update();
  };
  const failure = shownFailure(k);
  // A failure's "try again" is a new request to the same number.
  if (failure) return html`${failurePanel(k, failure, () => send())}${steps(t.pushSteps)}`;
  const ends = d.walletExpiresAt;
  const left = ends ? secondsLeft(k, ends) : 0;
  if (ends && left > 0) {
    return html`<p role="status">${fill(t.approveIn, d.method.name, d.phone || '')}</p>
      <p class="row"><span>${t.windowLeft}</span><strong part="wallet-countdown" class="mono">${Math.floor(left / 60)}:${String(left % 60).padStart(2, '0')}</strong></p>
      ${steps(t.pushSteps)}`;
  }
  // The window just ended: the service records the timeout on the next read.
  if (ends && s.checked !== ends) {
    s.checked = ends;
    k.check();
  }
  const submit = (e: SubmitEvent) => {
    e.preventDefault();
    send(new FormData(e.currentTarget as HTMLFormElement).get('phone') as string);
  };
  return html`<form @submit=${submit}>
      <label for="kasir-phone">${fill(t.phoneLabel, d.method.name)}</label>
      <input id="kasir-phone" part="phone" name="phone" type="tel" inputmode="tel" autocomplete="tel" placeholder="0812 3456 7890" required aria-describedby="kasir-phone-hint" />
      <small id="kasir-phone-hint">${fill(t.phoneHint, d.method.name)}</small>
      ${s.problem ? html`<p class="alert" role="alert">${s.problem}</p>` : nothing}
      <button class="primary" type="submit" ?disabled=${s.sending}>${s.sending ? t.sending : t.sendRequest}</button>
    </form>
    ${steps(t.pushSteps)}`;
};
