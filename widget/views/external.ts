// Links that leave the page for a wallet or an e-wallet's app (docs/design.md, "The shopper's choice, on any device"):
// the element says so first with
// `kasir-open-external` (cancelable), so a shop inside an app's WebView, where such links do not open by themselves,
// opens them its own way. Part of the views that offer such a link (crypto, e-wallet), not of the first paint.
import { css } from 'lit';
import { KasirOpenExternalEvent } from '../events.js';
import type { Deposit } from '../types.js';
import { allowedLink } from './links.js';
import type { ViewKit } from './view.js';
import { links as en } from '../locales/frame.en.js';
import { links as id } from '../locales/frame.id.js';
import type { Locale } from '../i18n.js';

/** A phone: a touch screen is the main pointer, or a phone's or tablet's browser says so. */
export const phone = () =>
  matchMedia('(pointer: coarse)').matches || /Mobi|Android|iP(hone|ad|od)/.test(navigator.userAgent);

/** A link's click handler: fires `kasir-open-external` from the link (composed: the shop hears it on the element) and keeps the link from opening when a listener cancels it. */
export const opening = (url: string, kind: 'wallet' | 'app') => (e: Event) => {
  if (!e.currentTarget!.dispatchEvent(new KasirOpenExternalEvent(url, kind))) e.preventDefault();
};

/**
 * Such a link drawn as the element's buttons are (kasir-checkout.styles.ts), and its focus ring: in the views that show
 * one only. Without weight (`:where`), so `.primary` still colours it.
 */
export const linkStyles = css`
  :where(.button) {
    display: block;
    font: inherit;
    min-height: 44px;
    border-radius: calc(var(--r) - 4px);
    border: 1px solid var(--b);
    background: var(--kasir-bg, #fff);
    color: inherit;
    padding: 0.5rem 1rem;
    cursor: pointer;
    text-decoration: none;
    text-align: center;
  }
  a:focus-visible {
    outline: 3px solid var(--a);
    outline-offset: 2px;
  }
`;

/** The words, one module per locale (locales/frame.<locale>.ts). */
const words = { en, id } satisfies Record<Locale, typeof en>;

/**
 * Why the deposit cannot be shown, in the shopper's words: it carries a link (an e-wallet's page, a wallet payment
 * request) of a scheme the element does not open. Nothing when it can.
 */
export const unsafe = (d: Deposit, text: ViewKit['text']) =>
  [d.checkoutUrl, d.paymentUri].some((url) => url && !allowedLink(url, d.method.code))
    ? text(words).badLink
    : undefined;
