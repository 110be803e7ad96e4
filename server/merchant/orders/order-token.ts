// Order tokens (docs/security.md): a shop's order id is its own and often guessable, so it opens nothing by itself.
// The shop's server renders, beside the order id, a token made with its order secret: an HMAC-SHA256 over the order
// id and the token's expiry. The widget API opens an order's checkout, and acts on it, only with that token.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../../common/errors.js';
import { ConfigError } from '../../common/config.js';

/** How long a token opens its order unless the shop says otherwise. */
const ORDER_TOKEN_LIFETIME_SECONDS = 24 * 3600;
/** The header an action on an order's checkout may carry its token in (or `orderToken` in its JSON body). */
export const ORDER_TOKEN_HEADER = 'X-Kasir-Order-Token';

/** What `kasir.orderToken` takes besides the order id. */
export interface OrderTokenOptions {
  /** Seconds the token opens the order for (default 24 hours). */
  expiresIn?: number;
}

/** The token's signature: HMAC-SHA256 over the order id and the expiry, base64url. */
const signature = (secret: string, orderId: string, expires: number) =>
  createHmac('sha256', secret).update(`${orderId}\n${expires}`).digest();

/** A token for `orderId`, good until `now + expiresIn`: `<expiry in Unix seconds>.<signature>`. */
export function makeOrderToken(secret: string, orderId: string, now: number, options: OrderTokenOptions = {}): string {
  const { expiresIn = ORDER_TOKEN_LIFETIME_SECONDS } = options;
  if (!Number.isSafeInteger(expiresIn) || expiresIn < 1)
    throw new TypeError(`orderToken: expiresIn must be a whole number of seconds >= 1 (got ${String(expiresIn)})`);
  if (typeof orderId !== 'string' || !orderId)
    throw new TypeError('orderToken: the order id must be a non-empty string');
  const expires = Math.floor(now / 1000) + expiresIn;
  return `${expires}.${signature(secret, orderId, expires).toString('base64url')}`;
}

/** `kasir.orderToken`: a token under the shop's order secret; throws a ConfigError naming the option without one. */
export function orderTokenMaker(orderSecret: string | undefined, now: () => number) {
  return (orderId: string, options?: OrderTokenOptions): string => {
    if (!orderSecret)
      throw new ConfigError(
        'kasir.orderToken needs the orderSecret option (or KASIR_ORDER_SECRET): at least 32 bytes, e.g. openssl rand -base64 32',
      );
    return makeOrderToken(orderSecret, orderId, now(), options);
  };
}

/** Whether `token` is `orderId`'s, made under `secret` and not expired at `now`. */
export function isOrderToken(secret: string, orderId: string, token: unknown, now: number): boolean {
  if (typeof token !== 'string' || token.length > 200) return false;
  const match = /^(\d{1,15})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!match) return false;
  const expires = Number(match[1]);
  if (expires * 1000 <= now) return false;
  const given = Buffer.from(match[2]!, 'base64url');
  const expected = signature(secret, orderId, expires);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The 401 for a missing, wrong, expired or other order's token: it names `orderToken`, the page's to fix. */
export function orderTokenRefusal(reason: 'missing' | 'invalid' | 'unset'): ApiError {
  const why =
    reason === 'missing'
      ? "send the order's token (the element's order-token attribute), made on the shop's server with kasir.orderToken(orderId)"
      : reason === 'unset'
        ? 'this shop has no order secret (KASIR_ORDER_SECRET), so no order can be opened from a page'
        : "not this order's token, or it expired: render a new one with kasir.orderToken(orderId) on the shop's server";
  return new ApiError(401, `orderToken: ${why}`);
}
