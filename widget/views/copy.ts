// Copy buttons for the values a shopper types into a bank or wallet app (an account number, an exact amount): the
// clipboard when the page may use it, else the shown text is selected so the shopper can copy it; "Copied" shows for
// two seconds and is announced. Part of the views that use it (the virtual account's), not of the first paint.
import { css, html, type TemplateResult } from 'lit';
import type { ViewKit } from './view.js';
import { copy as en } from '../locales/frame.en.js';
import { copy as id } from '../locales/frame.id.js';
import type { Locale } from '../i18n.js';

/** The words, one module per locale (locales/frame.<locale>.ts). */
const words = { en, id } satisfies Record<Locale, typeof en>;

/** Per element (its shadow root): the `node` of the button that just copied. */
const copied = new WeakMap<object, string>();

/** The style of the copy buttons and of the list of values they sit in (the views that use them add it to theirs). */
export const copyStyles = css`
  dl {
    margin: 0;
    display: grid;
    gap: 0.6rem;
    background: var(--s);
    border-radius: calc(var(--r) - 4px);
    padding: 0.9rem;
  }
  dt {
    font-size: 0.85rem;
    color: var(--m);
  }
  dd {
    margin: 0;
    display: flex;
    flex-wrap: wrap;
    align-items: center;
    justify-content: space-between;
    gap: 0.5rem;
    font-size: 1.1rem;
  }
  /* An 18-decimal token amount or an address cannot break at a space: it wraps anywhere rather than overflow. */
  dd > strong {
    overflow-wrap: anywhere;
  }
  .copy {
    min-height: 36px;
    padding: 0.2rem 0.8rem;
    font-size: 0.9rem;
    color: var(--a);
  }
`;

async function copy({ root, say, update, text }: ViewKit, value: string, what: string, node: string) {
  try {
    await navigator.clipboard.writeText(value);
  } catch {
    // No clipboard (an insecure page, a denied permission): select the text so the shopper can copy it.
    const shown = root.querySelector(node);
    if (shown) getSelection()?.selectAllChildren(shown);
    return;
  }
  copied.set(root, node);
  say(`${text(words).copied}: ${what}`);
  setTimeout(() => copied.get(root) === node && (copied.delete(root), update()), 2000);
}

/** A button copying `value`; `what` names it for screen readers, `node` selects the text shown. */
export const copyButton = (k: ViewKit, value: string, what: string, node: string): TemplateResult => {
  const t = k.text(words);
  return html`<button class="copy" @click=${() => copy(k, value, what, node)}>
    ${copied.get(k.root) === node ? t.copied : t.copy}<span class="sr"> ${what}</span>
  </button>`;
};
