// The method list (docs/design.md, "The shopper's choice, on any device"): grouped by kind, each group a
// `part="method-group"` with `data-kind`; with more than 6 methods each group is a disclosure (a button with
// aria-expanded and aria-controls, one group open at a time) that starts closed, and a kind with one method shows that
// method itself. Crypto is listed by asset, then network. The shopper's last choice at this shop comes first, on its
// own. A fee is said on a row only when some method has one (else "No fee" once, by the order total). Part of the first
// paint: rendered into the element's shadow root.
import { html, nothing } from 'lit';
import { fill, type Messages } from './i18n.js';
import { methodKinds } from './method-kinds.js';
import type { Checkout, Method, MethodKind } from './types.js';

/** What the picker gets from the element. */
export interface PickerKit {
  t: Messages;
  checkout: Checkout;
  /** The method being chosen (its row busy, the others disabled). */
  picked?: Method;
  /** The pending deposit's method, while switching. */
  current?: string;
  /** The shopper's last choice at this shop. */
  last?: string | null;
  /** The open group's kind. */
  expanded?: string;
  toggle(kind: MethodKind): void;
  pick(method: Method): void;
  /** Formats an amount of the order or of a method (a token amount exactly). */
  money(amount: string, of: { currency: string; symbol?: string }): string;
}

export const picker = (k: PickerKit) => {
  const { t, checkout, current } = k;
  const all = checkout.methods;
  const many = all.length > 6;
  // Fees worth telling apart: some method in the order's currency costs more than the order.
  const fees = all.some((m) => m.currency === checkout.currency && +m.fee);
  const first = all.find((m) => m.code === k.last && m.available);
  const row = (m: Method, name = m.name) => {
    const note =
      m.code === current
        ? t.current
        : !m.available
          ? t.unavailable
          : m === first
            ? t.lastUsed
            : +m.fee
              ? fill(t.fee, k.money(m.fee, m))
              : fees && t.noFee;
    return html`<button
      part="method"
      class="method"
      data-method=${m.code}
      ?disabled=${!m.available || !!k.picked}
      aria-busy=${k.picked === m}
      aria-current=${m.code === current || nothing}
      @click=${() => k.pick(m)}
    >
      <img src=${m.image} alt="" width="40" height="28" />
      <span><span class="name">${name}</span>${note ? html`<small class="fee">${note}</small>` : nothing}</span>
      ${fees || m.currency !== checkout.currency ? html`<strong class="total">${k.money(m.total, m)}</strong>` : nothing}
    </button>`;
  };
  // By asset (a crypto's symbol, in the order first listed), then network: an asset on several networks is named once,
  // its rows by network. Any other method is an asset of its own.
  const asset = (m: Method) => m.symbol || m.code;
  const items = (list: Method[]) =>
    [...new Set(list.map(asset))].map((symbol) => {
      const on = list.filter((m) => asset(m) === symbol);
      return on[1]
        ? html`<li class="asset">
            <span>${symbol}</span>
            <ul>
              ${on.map((m) => html`<li>${row(m, m.networkName)}</li>`)}
            </ul>
          </li>`
        : html`<li>${row(on[0])}</li>`;
    });
  return html`<h2 tabindex="-1">${t.choose}</h2>
    <p class="row">
      <span>${t.orderTotal}${fees ? nothing : html` <small>· ${t.noFee}</small>`}</span
      ><strong part="amount">${k.money(checkout.amount, checkout)}</strong>
    </p>
    <ul class="methods">
      ${first ? html`<li>${row(first)}</li>` : nothing}
      ${(Object.keys(methodKinds) as MethodKind[]).map((kind) => {
        const list = all.filter((m) => m.kind === kind && m !== first);
        // A disclosure when closed groups keep the list short; else (or for one method) the methods themselves.
        const folds = many && list.length > 1;
        const open = k.expanded === kind;
        return list.length
          ? html`<li part="method-group" data-kind=${kind}>
              ${
                folds
                  ? html`<h3>
                    <button class="kind" aria-expanded=${open} aria-controls="g-${kind}" @click=${() => k.toggle(kind)}>${t[kind]}</button>
                  </h3>`
                  : nothing
              }
              <ul id="g-${kind}" ?hidden=${folds && !open}>
                ${items(list)}
              </ul>
            </li>`
          : nothing;
      })}
    </ul>`;
};
