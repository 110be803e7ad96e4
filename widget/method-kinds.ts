// The kinds of payment method (types.ts `MethodKind`), one row each: everything the element knows of a kind. The
// method list shows the groups in the table's order (crypto after the fiat methods, docs/design.md, "Crypto" and "The
// shopper's choice, on any device"), each group named by the element's word of the same key (locales/: picker.ts's
// `t[kind]` fails to compile until every kind has its word). A new kind is a row here, its word in each locale, and its
// screen in views/ with its words in locales/ (or another kind's).
import type { Locale } from './i18n.js';
import type { MethodKind } from './types.js';
import type { PendingModule } from './views/view.js';

export interface MethodKindRow {
  /**
   * Loads the screen of a pending deposit of the kind (views/). In the script-tag build every `import()` of this table
   * is a chunk of its own, with its own copy of what it imports but Lit and the element's modules (vite.config.ts):
   * a payment loads one chunk. Its words are in its chunk in `locale` only: the build makes one chunk per locale of
   * each view (here, with no build, the module has them all).
   */
  view(locale: Locale): Promise<PendingModule>;
  /** The payer types the amount (a transfer, a token payment), so money may still arrive after the deposit expired. */
  late?: boolean;
}

const va = () => import('./views/va.js');

export const methodKinds: Record<MethodKind, MethodKindRow> = {
  va: { view: va },
  bank: { view: va, late: true },
  qris: { view: () => import('./views/qris.js') },
  ewallet: { view: () => import('./views/ewallet.js') },
  crypto: { view: () => import('./views/crypto.js'), late: true },
};
