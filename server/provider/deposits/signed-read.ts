// The hot path of signed GETs (merchant backends poll GET /v1/deposit/:id): the same checks as
// http/signature.ts, with the merchant's credentials kept briefly in memory instead of read per request.
// Anything that is not a well-formed, valid signed GET goes through the shared signatureAuth, so every
// failure and its message come from one place. GETs are not replay-checked (DESIGN.md 3), so nothing is skipped.
import { timingSafeEqual } from 'node:crypto';
import { createMiddleware } from 'hono/factory';
import type { AuthenticatedMerchant, ProviderDeps, ProviderEnv } from '../http/env';
import { rawHeader, requestTarget } from '../http/request-target';
import { sign, signatureAuth, signingString } from '../http/signature';

/** How long a merchant's client secret is trusted from memory (a rotated secret takes effect within this). */
export const CREDENTIAL_CACHE_MS = 5000;
const TOLERANCE_SECONDS = 300;
const ISO_UTC_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

interface Credential { merchant: AuthenticatedMerchant; secret: string; until: number }

export function cachedSignatureAuth(deps: ProviderDeps, inner = signatureAuth(deps, { toleranceSeconds: TOLERANCE_SECONDS })) {
  const credentials = new Map<string, Credential>();

  const credentialOf = async (clientId: string): Promise<Credential | undefined> => {
    const now = Date.now();
    const cached = credentials.get(clientId);
    if (cached && cached.until > now) return cached;
    const row = await deps.db.selectFrom('merchants')
      .select(['id', 'organization_id', 'user_id', 'client_id', 'client_secret'])
      .where('client_id', '=', clientId)
      .executeTakeFirst();
    if (!row) {
      credentials.delete(clientId);
      return undefined;
    }
    if (credentials.size > 1000) credentials.clear();
    const entry = {
      merchant: { merchantId: row.id, organizationId: row.organization_id, userId: row.user_id, clientId: row.client_id },
      secret: row.client_secret,
      until: now + CREDENTIAL_CACHE_MS,
    };
    credentials.set(clientId, entry);
    return entry;
  };

  return createMiddleware<ProviderEnv>(async (c, next) => {
    if (c.req.method === 'GET') {
      const clientId = rawHeader(c, 'x-client-id');
      const timestamp = rawHeader(c, 'x-timestamp');
      const signature = rawHeader(c, 'x-signature');
      if (clientId && timestamp && signature && ISO_UTC_MS.test(timestamp)) {
        const at = Date.parse(timestamp);
        const fresh = !Number.isNaN(at) && Math.abs(deps.now().getTime() - at) / 1000 <= TOLERANCE_SECONDS;
        const credential = fresh ? await credentialOf(clientId) : undefined;
        if (credential) {
          const expected = Buffer.from(sign(credential.secret, signingString('GET', requestTarget(c), '', timestamp)), 'utf8');
          const given = Buffer.from(signature.toLowerCase(), 'utf8');
          if (given.length === expected.length && timingSafeEqual(given, expected)) {
            c.set('merchant', credential.merchant);
            c.set('auth', 'signature');
            return next();
          }
        }
      }
    }
    return inner(c, next);
  });
}
