// Access tokens (docs/design.md, "Access tokens"): HS256 JWTs issued for a user, and the merchant account a token
// stands for, kept briefly in memory per instance so a busy client does not pay for JWT verification and a user lookup
// per call.
import { sign, verify } from 'hono/jwt';
import { ApiError } from '../../common/errors.js';
import { merchantOfUser } from '../accounts/merchants.js';
import type { AuthenticatedMerchant, ProviderDeps } from '../instance/deps.js';

const DAY_SECONDS = 24 * 3600;

/** A token recently verified is kept (deps.caches.verifiedTokens, by token) until it expires, or this long at most. */
export const VERIFIED_TOKEN_CACHE = { max: 10_000, ttlMs: 10_000 };

/** Issues an HS256 access token for a user: 24 h, or without expiry when `disableExpire`. */
export function issueAccessToken(deps: ProviderDeps, userId: string, disableExpire = false): Promise<string> {
  const iat = Math.floor(deps.now().getTime() / 1000);
  return sign({ sub: userId, iat, ...(disableExpire ? {} : { exp: iat + DAY_SECONDS }) }, deps.jwtSecret, 'HS256');
}

/** The merchant account an access token stands for; a 401 ApiError saying why when it stands for none. */
export async function merchantOfToken(deps: ProviderDeps, token: string): Promise<AuthenticatedMerchant> {
  const cache = deps.caches.verifiedTokens;
  const hit = cache.get(token);
  if (hit) return hit;

  let payload: { sub?: unknown; exp?: unknown };
  try {
    payload = await verify(token, deps.jwtSecret, 'HS256');
  } catch (err) {
    const expired = err instanceof Error && /expired/i.test(err.name + err.message);
    throw new ApiError(401, expired ? 'Access token expired: log in again' : 'Invalid access token');
  }
  const merchant = typeof payload.sub === 'string' ? await merchantOfUser(deps.db, payload.sub) : undefined;
  if (!merchant) throw new ApiError(401, 'Invalid access token: the user has no active merchant account');
  const left = typeof payload.exp === 'number' ? payload.exp * 1000 - deps.now().getTime() : Infinity;
  if (left > 0) cache.set(token, merchant, { ttl: Math.min(VERIFIED_TOKEN_CACHE.ttlMs, left) });
  return merchant;
}
