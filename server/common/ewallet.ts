// E-wallets as they behave, by wallet (docs/indonesian-payments.md): OVO pushes a payment request to the phone number
// the shopper types and gives 60 s to approve it (`push`); GoPay and ShopeePay show a QR on a computer and open their
// app on a phone, for the same payment (`qr-or-app`); DANA and LinkAja send the shopper to their page and back to the
// shop (`redirect`). Shared by both servers: the flows, the phone number's checks and how a shopper sees it.
import { ApiError } from './errors.js';

export type EwalletFlow = 'push' | 'qr-or-app' | 'redirect';

/** How long a wallet's push waits for the shopper's approval. */
export const PUSH_WINDOW_SECONDS = 60;

/**
 * An Indonesian mobile number as a wallet takes it (E.164, `+628...`), from what a shopper types: `0812-3456-7890`,
 * `62812...`, `+62 812...`; a 400 naming `field` otherwise.
 */
export function mobileNumber(value: unknown, field: string): string {
  const digits = typeof value === 'string' ? value.replace(/[\s().-]/g, '') : '';
  const match = /^(?:\+62|62|0)(8\d{7,11})$/.exec(digits);
  if (!match)
    throw new ApiError(400, `${field}: an Indonesian mobile number, such as 0812 3456 7890 or +62 812 3456 7890`);
  return `+62${match[1]}`;
}

/**
 * The number as a shopper may see it again: its first and last digits only (`0812****7890`). A number masked already
 * (the service's public checkout routes answer it so) is answered as it is.
 */
export const maskedMobile = (e164: string): string => {
  if (e164.includes('*')) return e164;
  const local = `0${e164.replace(/^\+62/, '')}`;
  return `${local.slice(0, 4)}${'*'.repeat(Math.max(local.length - 8, 0))}${local.slice(-4)}`;
};

/** Where a redirect wallet sends the shopper back: an http(s) URL of at most 2048 characters; a 400 naming `field` otherwise. */
export function returnUrl(value: unknown, field: string): string {
  try {
    const url = new URL(String(value));
    if (
      typeof value === 'string' &&
      value.length <= 2048 &&
      /^https?:$/.test(url.protocol) &&
      !url.username &&
      !url.password
    )
      return url.href;
  } catch {
    // not a URL: said below
  }
  throw new ApiError(400, `${field}: an http(s) URL of the page to come back to`);
}
