// The hosted checkout page (docs/design.md, "Checkout"): GET /checkout/:id renders <kasir-checkout> in hosted mode
// under a strict CSP, and GET /checkout/kasir-checkout.js (with its chunks beside it) serves the element's script-tag
// build to it.
import { createHash } from 'node:crypto';
import { html, raw } from 'hono/html';
import { languageDetector } from 'hono/language';
import type { HtmlEscapedString } from 'hono/utils/html';
import { WIDGET_ENTRY_FILE, WIDGET_FILE_PARAM, widgetFileServer } from '../../common/widget-files.js';
import { isCheckoutId } from '../../common/widget-api.js';
import { organizationNameOf } from '../accounts/merchants.js';
import { findCheckout } from '../deposits/checkout.js';
import { createRouter, onNotFound } from '../http/errors.js';
import { htmlPage } from '../http/page.js';
import type { ProviderDeps } from '../instance/deps.js';

const PAGE_CSS = `:root{color-scheme:light;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f3f4f6;color:#111827}
body{margin:0;min-height:100vh;display:flex;align-items:flex-start;justify-content:center}
main{width:100%;max-width:440px;margin:32px 16px;background:#fff;border-radius:12px;box-shadow:0 1px 3px rgba(0,0,0,.1);padding:24px}
h1{font-size:1.1rem;margin:0 0 16px}p.foot{color:#6b7280;font-size:.8rem;margin:16px 0 0;text-align:center}
.sandbox{margin:20px 0 0;padding:12px;border:1px dashed #d1d5db;border-radius:8px;font-size:.85rem}.sandbox h2{font-size:.9rem;margin:0 0 8px}
.sandbox form{display:flex;flex-wrap:wrap;gap:8px;align-items:end}.sandbox label{display:grid;gap:4px;flex:1 1 160px}
.sandbox input,.sandbox button{font:inherit;min-height:40px;padding:4px 10px;border:1px solid #d1d5db;border-radius:8px}.sandbox button{background:#fff;cursor:pointer}`;
const PAGE_CSS_HASH = createHash('sha256').update(PAGE_CSS).digest('base64');

/** Strict CSP for the hosted page: scripts only from this origin, no inline script, the page style by hash. */
const CHECKOUT_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  `style-src 'self' 'sha256-${PAGE_CSS_HASH}'`,
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** The hosted page in the shell: the style, the widget's module, `content` and the footer in <main>. */
function hostedPage(title: string, content: HtmlEscapedString | Promise<HtmlEscapedString>, lang: 'en' | 'id' = 'en') {
  return htmlPage({
    title,
    lang,
    head: html`<link rel="icon" href="data:,">
<style>${raw(PAGE_CSS)}</style>
<script type="module" src="/checkout/kasir-checkout.js"></script>`,
    body: html`<main>
${content}
<p class="foot">Secured by kasir · sandbox</p>
</main>`,
  });
}

/**
 * The hosted page's sandbox panel (sandbox mode only): a payment of a chosen amount arrives (docs/design.md, "Payments
 * that do not go as planned": short, over, or after expiry), by default what is still due. Its script is a file of this
 * origin (the CSP allows no inline script).
 */
const SANDBOX_PANEL_JS = `const form = document.getElementById('kasir-sandbox-pay');
const status = document.getElementById('kasir-sandbox-status');
form.addEventListener('submit', async (event) => {
  event.preventDefault();
  const amount = form.elements.amount.value.trim();
  status.textContent = '';
  // Always JSON, as the API takes every POST (an empty body too: what is due).
  const res = await fetch('/checkout/api/sandbox/checkouts/' + encodeURIComponent(form.dataset.checkout) + '/pay',
    { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(amount ? { amount } : {}) });
  const body = await res.json().catch(() => null);
  const d = body && body.data;
  status.textContent = res.ok && d ? d.status + ': ' + d.paidAmount + ' / ' + d.amount + ' ' + d.currency : (body && body.message) || res.statusText;
});
`;

const PANEL_WORDS = {
  en: { title: 'Sandbox', amount: 'Amount that arrives (empty: what is due)', pay: 'Simulate payment' },
  id: { title: 'Sandbox', amount: 'Jumlah yang tiba (kosong: sisa tagihan)', pay: 'Simulasikan pembayaran' },
};

function sandboxPanel(checkoutId: string, lang: 'en' | 'id') {
  const w = PANEL_WORDS[lang];
  return html`<aside class="sandbox" aria-labelledby="kasir-sandbox-title"><h2 id="kasir-sandbox-title">${w.title}</h2>
<form id="kasir-sandbox-pay" data-checkout="${checkoutId}"><label>${w.amount} <input name="amount" inputmode="decimal" autocomplete="off" pattern="[0-9]+([.][0-9]+)?"></label><button type="submit">${w.pay}</button></form>
<p id="kasir-sandbox-status" role="status"></p></aside>
<script type="module" src="/checkout/sandbox-panel.js"></script>`;
}

/** GET /checkout/kasir-checkout.js (and its chunks) and GET /checkout/:id, for mounting at the root. */
export function hostedPageRoutes(deps: ProviderDeps) {
  const router = createRouter();

  // The built widget, served to the hosted page (registered before /checkout/:id): @kasir/checkout's script-tag build
  // (a dependency of this package), or the entry KASIR_WIDGET_FILE names, with its chunks beside it.
  const serveWidget = widgetFileServer();
  router.get('/checkout/sandbox-panel.js', (c) => {
    if (!deps.config.sandbox) return onNotFound(c);
    c.header('Cache-Control', 'no-cache');
    return c.body(SANDBOX_PANEL_JS, 200, { 'Content-Type': 'text/javascript; charset=utf-8' });
  });
  router.get(`/checkout/${WIDGET_FILE_PARAM}`, async (c) => {
    const served = await serveWidget(
      c,
      process.env.KASIR_WIDGET_FILE || WIDGET_ENTRY_FILE,
      c.req.param('file'),
      'The checkout widget is not built yet: run npm run build',
    );
    return served ?? onNotFound(c); // no chunk of that name: an unknown path, as anywhere else
  });

  // The hosted page speaks the shopper's language: ?lang=, else Accept-Language, else English.
  const detectLanguage = languageDetector({
    supportedLanguages: ['en', 'id'],
    fallbackLanguage: 'en',
    order: ['querystring', 'header'],
    lookupQueryString: 'lang',
    caches: false,
  });
  router.get('/checkout/:id', detectLanguage, async (c) => {
    const lang = c.get('language') === 'id' ? 'id' : 'en';
    const id = c.req.param('id');
    const checkout = isCheckoutId(id) ? await findCheckout(deps, id) : undefined;
    c.header('Content-Security-Policy', CHECKOUT_CSP);
    c.header('Cache-Control', 'no-store');
    c.header('Referrer-Policy', 'no-referrer');
    if (!checkout) {
      return c.html(
        lang === 'id'
          ? hostedPage(
              'Checkout tidak ditemukan',
              html`<h1>Checkout tidak ditemukan</h1><p>Tautan pembayaran ini tidak ada. Minta tautan baru ke toko.</p>`,
              lang,
            )
          : hostedPage(
              'Checkout not found',
              html`<h1>Checkout not found</h1><p>This payment link does not exist. Ask the shop for a new one.</p>`,
              lang,
            ),
        404,
      );
    }
    const name = (await organizationNameOf(deps.db, checkout.merchant_id)) ?? 'Checkout';
    return c.html(
      hostedPage(
        lang === 'id' ? `Bayar ${name}` : `Pay ${name}`,
        html`<h1>${name}</h1>
<kasir-checkout endpoint="/checkout/api" checkout-id="${checkout.id}" locale="${lang}"></kasir-checkout>${
          deps.config.sandbox
            ? html`
${sandboxPanel(checkout.id, lang)}`
            : ''
        }`,
        lang,
      ),
    );
  });

  return router;
}
