// Signed requests (docs/design.md, "Signed requests"): the one implementation of the signature, used by the merchant's
// client to sign and by the payment service's signature middleware to verify. Neutral: only node:crypto.
//
//   X-Client-ID:  the merchant's client id
//   X-Timestamp:  ISO 8601 UTC with milliseconds, e.g. 2026-11-22T01:02:03.456Z
//   X-Signature:  lowercase hex HMAC-SHA256(client secret, "METHOD:PATH:BODYHASH:TIMESTAMP")
//                 PATH = path and query exactly as on the request line; BODYHASH = hex SHA-256 of the raw body
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** Hex SHA-256 of the empty body, computed once: most signed calls (reads) have no body. */
const EMPTY_BODY_HASH = createHash('sha256').update('').digest('hex');

/** Lowercase hex SHA-256 of the raw body (a string is hashed as UTF-8). */
function bodyHash(body: string | Uint8Array): string {
  return body.length === 0 ? EMPTY_BODY_HASH : createHash('sha256').update(body).digest('hex');
}

/** The string a client signs: `METHOD:PATH:BODYHASH:TIMESTAMP`, METHOD upper case. */
function signingString(method: string, target: string, body: string | Uint8Array, timestamp: string): string {
  return `${method.toUpperCase()}:${target}:${bodyHash(body)}:${timestamp}`;
}

/** The X-Signature of one request: lowercase hex HMAC-SHA256 of its signing string, keyed by the client secret (UTF-8). */
export function signRequest(
  secret: string,
  method: string,
  target: string,
  body: string | Uint8Array,
  timestamp: string,
): string {
  return createHmac('sha256', secret)
    .update(signingString(method, target, body, timestamp), 'utf8')
    .digest('hex');
}

/** Whether a received X-Signature equals the expected one (hex, case-insensitive), in constant time. */
export function signatureMatches(given: string, expected: string): boolean {
  const a = Buffer.from(given.toLowerCase(), 'utf8');
  const b = Buffer.from(expected, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A type, not an interface, so it passes where a Record<string, string> of headers is expected. */
export type SignedRequestHeaders = {
  'X-Client-ID': string;
  'X-Timestamp': string;
  'X-Signature': string;
};

/** The three headers of a signed call. `timestamp` defaults to now (ISO 8601 UTC with milliseconds). */
export function signedRequestHeaders(
  clientId: string,
  secret: string,
  method: string,
  target: string,
  body: string | Uint8Array,
  timestamp = new Date().toISOString(),
): SignedRequestHeaders {
  return {
    'X-Client-ID': clientId,
    'X-Timestamp': timestamp,
    'X-Signature': signRequest(secret, method, target, body, timestamp),
  };
}
