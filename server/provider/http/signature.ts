import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { createMiddleware } from 'hono/factory';
import { ApiError } from './errors';
import type { ProviderDeps, ProviderEnv } from './env';
import { requestTarget } from './request-target';

export interface SignatureOptions {
  /** Largest allowed distance between X-Timestamp and the server clock, in seconds. */
  toleranceSeconds?: number;
}

const ISO_UTC_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const unauthorized = (message: string) => new ApiError(401, message);

/** The string a client signs (DESIGN.md section 3): METHOD:PATH:BODYHASH:TIMESTAMP. */
export function signingString(method: string, target: string, body: Uint8Array | string, timestamp: string): string {
  const bodyHash = createHash('sha256').update(body).digest('hex');
  return `${method.toUpperCase()}:${target}:${bodyHash}:${timestamp}`;
}

export function sign(secret: string, message: string): string {
  return createHmac('sha256', secret).update(message, 'utf8').digest('hex');
}

/**
 * Verifies the S headers (X-Client-ID, X-Timestamp, X-Signature) and sets `merchant`.
 * Each failure names the check that failed; a non-GET signature is accepted once only.
 */
export function signatureAuth(deps: ProviderDeps, options: SignatureOptions = {}) {
  const tolerance = options.toleranceSeconds ?? 300;
  return createMiddleware<ProviderEnv>(async (c, next) => {
    const clientId = c.req.header('x-client-id');
    const timestamp = c.req.header('x-timestamp');
    const signature = c.req.header('x-signature');
    const missing = [!clientId && 'X-Client-ID', !timestamp && 'X-Timestamp', !signature && 'X-Signature'].filter(Boolean);
    if (missing.length) throw unauthorized(`Missing signature headers: ${missing.join(', ')}`);

    if (!ISO_UTC_MS.test(timestamp!) || Number.isNaN(Date.parse(timestamp!))) {
      throw unauthorized('X-Timestamp must be ISO 8601 UTC with milliseconds, e.g. 2026-11-22T01:02:03.456Z');
    }
    const skew = Math.abs(deps.now().getTime() - Date.parse(timestamp!)) / 1000;
    if (skew > tolerance) throw unauthorized(`Stale timestamp: X-Timestamp is more than ${tolerance} seconds from the server clock`);

    const merchant = await deps.db
      .selectFrom('merchants')
      .select(['id', 'organization_id', 'user_id', 'client_id', 'client_secret'])
      .where('client_id', '=', clientId!)
      .executeTakeFirst();
    if (!merchant) throw unauthorized('Unknown client: X-Client-ID is not registered');

    const body = new Uint8Array(await c.req.arrayBuffer());
    const expected = Buffer.from(sign(merchant.client_secret, signingString(c.req.method, requestTarget(c), body, timestamp!)), 'utf8');
    const given = Buffer.from(signature!.toLowerCase(), 'utf8');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw unauthorized('Bad signature: X-Signature does not match the request');
    }

    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
      const nowMs = deps.now().getTime();
      const inserted = await deps.db
        .insertInto('signature_nonces')
        .values({ signature: `${merchant.client_id}:${expected.toString()}`, expires_at: Date.parse(timestamp!) + tolerance * 1000 })
        .onConflict((oc) => oc.doNothing())
        .executeTakeFirst();
      if (!inserted.numInsertedOrUpdatedRows) throw unauthorized('Replay: this signed request was already accepted');
      if (Math.random() < 0.01) await deps.db.deleteFrom('signature_nonces').where('expires_at', '<', nowMs).execute();
    }

    c.set('merchant', {
      merchantId: merchant.id,
      organizationId: merchant.organization_id,
      userId: merchant.user_id,
      clientId: merchant.client_id,
    });
    c.set('auth', 'signature');
    await next();
  });
}
