// The first thing the script-tag build runs (index.ts imports it first): the shopper's words start downloading before
// Lit and the element are evaluated, and the element's words load then finds them on their way. On a slow phone that
// evaluation is time the method list would otherwise wait for. Guessed from the page's first element; another
// element's own locale is loaded as usual.
import { locales, shopperLocale } from './i18n.js';

if (typeof document == 'object')
  locales[shopperLocale(document.querySelector('kasir-checkout')?.getAttribute('locale'))]().catch(() => {});
