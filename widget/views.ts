// The screen of a pending deposit, per kind of method: each its own module, loaded when a deposit of that kind is
// about to be shown, so the first paint (the method list) carries none of them. In the script-tag build every
// `import()` of this map is a chunk of its own, with its own copy of what it imports but Lit and the element's modules
// (widget/vite.config.ts): a payment loads one chunk. A new view registers here.
import type { MethodKind } from './types.js';
import type { PendingModule } from './views/view.js';

const va = () => import('./views/va.js');

export const views: Record<MethodKind, () => Promise<PendingModule>> = {
  va,
  bank: va,
  qris: () => import('./views/qris.js'),
  ewallet: () => import('./views/ewallet.js'),
  crypto: () => import('./views/crypto.js'),
};
