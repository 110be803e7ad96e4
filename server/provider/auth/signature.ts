import { createMiddleware } from 'hono/factory';
import { signatureMatches, signRequest } from '../../common/request-signing.js';
import { ApiError } from '../http/errors.js';
import { credentialOf } from './credentials.js';
import type { ProviderDeps } from '../instance/deps.js';
import type { ProviderEnv } from '../http/env.js';
import { isBodiless, rawHeader, requestTarget } from '../http/request-target.js';

export interface SignatureOptions {
  /** Largest allowed distance between X-Timestamp and the server clock, in seconds. */
  toleranceSeconds?: number;
}

const ISO_UTC_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const unauthorized = (message: string) => new ApiError(401, message);

const EMPTY_BODY = new Uint8Array(0);

/**
 * Verifies the S headers (X-Client-ID, X-Timestamp, X-Signature) and sets `merchant`.
 * Each failure names the check that failed; a non-GET signature is accepted once only.
 */
export function signatureAuth(deps: ProviderDeps, options: SignatureOptions = {}) {
  const tolerance = options.toleranceSeconds ?? 300;
  return createMiddleware<ProviderEnv>(async (c, next) => {
    // Headers are read from Node's own parse (see rawHeader): this runs on the service's hottest path.
    const clientId = rawHeader(c, 'x-client-id');
    const timestamp = rawHeader(c, 'x-timestamp');
    const signature = rawHeader(c, 'x-signature');
    if (!clientId || !timestamp || !signature) {
      const missing = [!clientId && 'X-Client-ID', !timestamp && 'X-Timestamp', !signature && 'X-Signature'].filter(
        Boolean,
      );
      throw unauthorized(`Missing signature headers: ${missing.join(', ')}`);
    }

    if (!ISO_UTC_MS.test(timestamp) || Number.isNaN(Date.parse(timestamp))) {
      throw unauthorized('X-Timestamp must be ISO 8601 UTC with milliseconds, e.g. 2026-11-22T01:02:03.456Z');
    }
    const skew = Math.abs(deps.now().getTime() - Date.parse(timestamp)) / 1000;
    if (skew > tolerance)
      throw unauthorized(`Stale timestamp: X-Timestamp is more than ${tolerance} seconds from the server clock`);

    const credential = await credentialOf(deps, clientId);
    if (!credential) throw unauthorized('Unknown client: X-Client-ID is not registered');

    const body = isBodiless(c) ? EMPTY_BODY : new Uint8Array(await c.req.arrayBuffer());
    const expected = signRequest(credential.secret, c.req.method, requestTarget(c), body, timestamp);
    if (!signatureMatches(signature, expected))
      throw unauthorized('Bad signature: X-Signature does not match the request');

    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
      const nowMs = deps.now().getTime();
      const inserted = await deps.db
        .insertInto('signature_nonces')
        .values({
          signature: `${credential.merchant.clientId}:${expected}`,
          expires_at: Date.parse(timestamp) + tolerance * 1000,
        })
        .onConflict((oc) => oc.doNothing())
        .executeTakeFirst();
      if (!inserted.numInsertedOrUpdatedRows) throw unauthorized('Replay: this signed request was already accepted');
      if (Math.random() < 0.01) await deps.db.deleteFrom('signature_nonces').where('expires_at', '<', nowMs).execute();
    }

    c.set('merchant', credential.merchant);
    c.set('auth', 'signature');
    await next();
  });
}
