// A page on an origin the shop has not allowed (KASIR_ALLOWED_ORIGINS) is told so in an answer it can read: the
// refusal carries Access-Control-Allow-Origin for that origin (it holds nothing but the refusal), so the element
// reports a `config` error naming the origin instead of a lost connection, and the backend warns once per origin and
// minute. The request itself is refused before any route runs: nothing is read or changed for that page.
import type { Context } from 'hono';
import { errorBody } from '../../common/errors.js';
import type { MerchantConfig } from '../config.js';
import type { Warnings } from '../warnings.js';

/** What the refusal says: the origin, and the setting that would allow it. */
const originRefusalMessage = (origin: string) =>
  `This page's origin ${origin} is not allowed to use this shop's payment API: add it to KASIR_ALLOWED_ORIGINS (allowedOrigins) on the shop's server`;

/**
 * Whether a request must be refused for its origin: it names one (a browser's cross-origin call), which is neither
 * allowed nor, as the browser itself says (Sec-Fetch-Site), the page's own (behind a proxy that rewrites Host).
 */
export function isRefusedOrigin(
  origin: string | undefined,
  allowed: boolean,
  fetchSite: string | undefined,
): origin is string {
  return !!origin && !allowed && fetchSite !== 'same-origin';
}

/** The 403 in the envelope, readable by the refused page, and the backend's warning. */
export function refuseOrigin(
  c: Context,
  origin: string,
  config: Pick<MerchantConfig, 'allowedOrigins'>,
  warnings: Warnings,
): Response {
  const allowed = config.allowedOrigins.length ? config.allowedOrigins.join(', ') : "none but the API's own";
  warnings.warn(
    `origin:${origin}`,
    { origin, path: c.req.path, allowedOrigins: config.allowedOrigins },
    `refused a request from the page origin ${origin}: it is not in KASIR_ALLOWED_ORIGINS (allowedOrigins; allowed now: ${allowed}); add it if it is your storefront`,
  );
  c.header('Access-Control-Allow-Origin', origin);
  return c.json(errorBody(403, originRefusalMessage(origin)), 403);
}
