// The demo storefront's own script: the language switch, the sandbox panel and the event log.
// The element comes from /kasir-checkout.js (loaded by index.html); only its types are imported here.
import type { KasirCheckout } from '../widget/kasir-checkout.js';

const checkout = document.querySelector<KasirCheckout>('#checkout')!;
const payButton = document.querySelector<HTMLButtonElement>('#pay')!;
const expireButton = document.querySelector<HTMLButtonElement>('#expire')!;
const amountInput = document.querySelector<HTMLInputElement>('#pay-amount')!;
const status = document.querySelector<HTMLElement>('#sandbox-status')!;
const log = document.querySelector<HTMLOListElement>('#log')!;
let checkoutId = '';

function note(type: string, detail: string) {
  const item = document.createElement('li');
  const time = document.createElement('time');
  time.textContent = new Date().toLocaleTimeString('en-GB');
  const name = document.createElement('code');
  name.textContent = type;
  item.append(time, ' ', name, detail ? ` ${detail}` : '');
  log.prepend(item);
}

function sandboxReady(state: string) {
  expireButton.disabled = !(checkoutId && state === 'pending');
  // A payment may also arrive after expiry (docs/design.md, "Payments that do not go as planned"): it is recorded late,
  // and the shop owes it back.
  payButton.disabled = !(checkoutId && (state === 'pending' || state === 'expired'));
}

checkout.addEventListener('kasir-ready', (e) => {
  checkoutId = e.detail.checkout.id;
  status.textContent = '';
  note(e.type, checkoutId);
});
checkout.addEventListener('kasir-method-selected', (e) => note(e.type, e.detail.method.code));
checkout.addEventListener('kasir-pending', (e) =>
  note(e.type, `${e.detail.deposit.method.code} ${e.detail.deposit.amount}`),
);
checkout.addEventListener('kasir-completed', (e) => note(e.type, e.detail.deposit.status));
checkout.addEventListener('kasir-expired', (e) => note(e.type, e.detail.deposit?.status ?? 'no deposit'));
checkout.addEventListener('kasir-error', (e) => note(e.type, e.detail.message));

// The element reflects its phase in `state`: the sandbox buttons follow it.
new MutationObserver(() => sandboxReady(checkout.state)).observe(checkout, {
  attributes: true,
  attributeFilter: ['state'],
});

async function sandbox(action: 'pay' | 'expire') {
  status.textContent = '';
  // Paying a chosen amount (short, over, late); without one, what is still due.
  const amount = action === 'pay' ? amountInput.value.trim() : '';
  const res = await fetch(`/api/sandbox/checkouts/${encodeURIComponent(checkoutId)}/${action}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    ...(amount ? { body: JSON.stringify({ amount }) } : {}),
  });
  const body = await res.json().catch(() => null);
  const d = body?.data;
  status.textContent = !res.ok
    ? `Sandbox: ${body?.message ?? res.statusText}`
    : d?.paidAmount !== undefined
      ? `Sandbox: deposit ${d.status}; paid ${d.paidAmount}, still due ${d.remainingAmount} ${d.currency}.`
      : `Sandbox: deposit ${d?.status}.`;
}
payButton.addEventListener('click', () => sandbox('pay'));
expireButton.addEventListener('click', () => sandbox('expire'));
document.querySelector('#restart')!.addEventListener('click', () => {
  note('new order', '');
  checkout.restart();
});

/** The page's own prices, in the same format as the widget's (Rp 150,000 in English, Rp 150.000 in Indonesian). */
function formatPrices(locale: 'en' | 'id') {
  const format = new Intl.NumberFormat(locale === 'id' ? 'id-ID' : 'en-US', {
    style: 'currency',
    currency: 'IDR',
    currencyDisplay: 'narrowSymbol',
    maximumFractionDigits: 0,
  });
  for (const node of document.querySelectorAll<HTMLElement>('[data-amount]'))
    node.textContent = format.format(Number(node.dataset.amount));
}
formatPrices('en');

/** The page's own words: each element carries its Indonesian text in data-id; the English is kept in data-en. */
function translatePage(locale: 'en' | 'id') {
  for (const node of document.querySelectorAll<HTMLElement>('[data-id]')) {
    node.dataset.en ??= node.textContent ?? '';
    node.textContent = locale === 'id' ? node.dataset.id! : node.dataset.en;
  }
}

for (const button of document.querySelectorAll<HTMLButtonElement>('[data-locale]')) {
  button.addEventListener('click', () => {
    const locale = button.dataset.locale as 'en' | 'id';
    checkout.locale = locale;
    document.documentElement.lang = locale;
    formatPrices(locale);
    translatePage(locale);
    for (const other of document.querySelectorAll('[data-locale]'))
      other.setAttribute('aria-pressed', String(other === button));
  });
}
