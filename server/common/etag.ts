// ETags of both servers: a strong tag from content, and If-None-Match matched by weak comparison (RFC 9110 13.1.2).
import { createHash } from 'node:crypto';

/** `"<27 base64url chars of SHA-256>"` of the given content. */
export function etagOf(content: string | Uint8Array): string {
  return `"${createHash('sha256').update(content).digest('base64url').slice(0, 27)}"`;
}

/**
 * If-None-Match against an ETag, weak comparison (RFC 9110 13.1.2): `*`, or any listed entity-tag whose opaque part
 * (the quoted string, W/ dropped on both sides) equals the ETag's. Tags are read whole, so a comma inside the quotes
 * (legal in an entity-tag) does not split one.
 */
export function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const opaque = etag.replace(/^W\//, '');
  for (const [, tag] of header.matchAll(ENTITY_TAG)) if (tag === opaque) return true;
  return false;
}

/** One entity-tag of a list: an optional W/ and its opaque quoted string. */
const ENTITY_TAG = /(?:W\/)?("[^"]*")/g;
