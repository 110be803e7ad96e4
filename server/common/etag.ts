// ETags of both servers: a strong tag from content, and If-None-Match matched by weak comparison (RFC 9110 13.1.2).
import { createHash } from 'node:crypto';

/** `"<27 base64url chars of SHA-256>"` of the given content. */
export function etagOf(content: string | Uint8Array): string {
  return `"${createHash('sha256').update(content).digest('base64url').slice(0, 27)}"`;
}

/** If-None-Match against an ETag, weak comparison: `*` or any listed tag, W/ ignored on both sides. */
export function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const bare = etag.replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === bare);
}
