// The kinds of payment method (types.ts `MethodKind`), one row each: everything the element knows of a kind. The
// method list shows the groups in the table's order (crypto after the fiat methods, docs/design.md 8 and 12), each
// group named by the element's word of the same key (locales/: picker.ts's `t[kind]` fails to compile until every
// kind has its word). A new kind is a row here, its word in each locale, and its screen in views/ with its words in
// locales/ (or another kind's).
import { place, type Place } from './i18n.js';
import type { MethodKind } from './types.js';
import type { PendingModule } from './views/view.js';

/**
 * Each view's words, one module per locale (locales/<view>.<locale>.ts, its own chunk), loaded beside the view: a
 * payment downloads its view's words in the shopper's language only.
 */
export const viewWords = {
  va: place({ en: () => import('./locales/va.en.js'), id: () => import('./locales/va.id.js') }),
  qris: place({ en: () => import('./locales/qris.en.js'), id: () => import('./locales/qris.id.js') }),
  ewallet: place({ en: () => import('./locales/ewallet.en.js'), id: () => import('./locales/ewallet.id.js') }),
  crypto: place({ en: () => import('./locales/crypto.en.js'), id: () => import('./locales/crypto.id.js') }),
};

export interface MethodKindRow {
  /**
   * Loads the screen of a pending deposit of the kind (views/). In the script-tag build every `import()` of this table
   * is a chunk of its own, with its own copy of what it imports but Lit and the element's modules (vite.config.ts):
   * a payment loads one chunk.
   */
  view(): Promise<PendingModule>;
  /** The view's words (`viewWords`). */
  words: Place<object>;
  /** The payer types the amount (a transfer, a token payment), so money may still arrive after the deposit expired. */
  late?: boolean;
}

const va = () => import('./views/va.js');

export const methodKinds: Record<MethodKind, MethodKindRow> = {
  va: { view: va, words: viewWords.va },
  bank: { view: va, words: viewWords.va, late: true },
  qris: { view: () => import('./views/qris.js'), words: viewWords.qris },
  ewallet: { view: () => import('./views/ewallet.js'), words: viewWords.ewallet },
  crypto: { view: () => import('./views/crypto.js'), words: viewWords.crypto, late: true },
};
