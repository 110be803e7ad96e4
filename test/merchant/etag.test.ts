// If-None-Match by weak comparison (RFC 9110 13.1.2), as both servers answer it (server/common/etag.ts): W/ on either
// side ignored, any tag of a list, `*`, and an entity-tag read whole (a comma is legal inside its quotes).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { etagOf, matchesEtag } from '../../server/common/etag';

describe('matchesEtag: If-None-Match, weak comparison', () => {
  const strong = etagOf('a deposit');
  const weak = `W/${strong}`;

  it('matches a strong or weak tag against a strong or weak ETag', () => {
    for (const etag of [strong, weak]) {
      for (const header of [strong, weak, ` ${weak} `, `"other", ${weak}`, `W/"other",${strong}`, '*']) {
        assert.equal(matchesEtag(header, etag), true, `${header} vs ${etag}`);
      }
    }
  });

  it('does not match another tag, a bare opaque part, or nothing', () => {
    for (const header of [
      undefined,
      '',
      'W/"other"',
      '"other", W/"x"',
      strong.slice(1, -1),
      `w/${strong}`.replace(/"/g, ''),
    ]) {
      assert.equal(matchesEtag(header, weak), false, String(header));
    }
  });

  it('reads each entity-tag whole: a comma inside the quotes does not split it', () => {
    assert.equal(matchesEtag('W/"a,b"', '"a,b"'), true);
    assert.equal(matchesEtag('"x", W/"a,b"', 'W/"a,b"'), true);
    assert.equal(matchesEtag('"a,b"', '"b"'), false);
    assert.equal(matchesEtag('"a,b"', '"a"'), false);
  });
});
