import { createMiddleware } from 'hono/factory';
import { merchantOfToken } from './tokens.js';
import { ApiError } from '../http/errors.js';
import type { AuthenticatedMerchant, ProviderDeps } from '../instance/deps.js';
import type { ProviderEnv } from '../http/env.js';

/** Verifies `Authorization: Bearer <jwt>` and sets `merchant`. */
export function bearerAuth(deps: ProviderDeps) {
  return createMiddleware<ProviderEnv>(async (c, next) => {
    const merchant = await authenticateBearer(deps, c.req.header('authorization'));
    c.set('merchant', merchant);
    c.set('auth', 'bearer');
    await next();
  });
}

/** The merchant account of an `Authorization: Bearer <accessToken>` header; a 401 saying what is wrong otherwise. */
export async function authenticateBearer(
  deps: ProviderDeps,
  header: string | undefined,
): Promise<AuthenticatedMerchant> {
  if (!header) throw new ApiError(401, 'Missing Authorization header: send Authorization: Bearer <accessToken>');
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  if (!match) throw new ApiError(401, 'Authorization header must be: Bearer <accessToken>');
  return merchantOfToken(deps, match[1]);
}

/** A or S: a bearer token when an Authorization header is present, otherwise the signature headers. */
export function bearerOrSignature(
  deps: ProviderDeps,
  signature: ReturnType<typeof import('./signature.js').signatureAuth>,
) {
  return createMiddleware<ProviderEnv>(async (c, next) => {
    if (c.req.header('authorization')) {
      c.set('merchant', await authenticateBearer(deps, c.req.header('authorization')));
      c.set('auth', 'bearer');
      return next();
    }
    return signature(c, next);
  });
}
