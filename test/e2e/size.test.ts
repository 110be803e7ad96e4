// The size budget: everything a shopper downloads for a full QRIS payment is the one widget module (lit and the
// QR encoder inside, no further chunks). At most 16 KB gzipped. Runs on the built file (`npm run test:e2e` builds it).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { WIDGET_BUDGET_BYTES as BUDGET_BYTES } from './harness';

const widget = readFileSync('widget/dist/browser/kasir-checkout.js');
const code = widget.toString('utf8');

it(`the widget is at most ${BUDGET_BYTES} bytes gzipped`, () => {
  const size = gzipSync(widget).length;
  assert.ok(size <= BUDGET_BYTES, `widget/dist/browser/kasir-checkout.js is ${size} bytes gzipped, over the ${BUDGET_BYTES} byte budget`);
});

it('is one self-contained production module: no imports, no Lit dev mode, no eval', () => {
  assert.doesNotMatch(code, /^\s*import[\s{*"']/m, 'imports another module');
  assert.doesNotMatch(code, /\bimport\(/, 'loads a chunk');
  assert.doesNotMatch(code, /Lit is in dev mode/);
  assert.doesNotMatch(code, /\beval\(|new Function\(/);
  assert.match(code, /customElements\.define\(`kasir-checkout`|customElements\.define\("kasir-checkout"/);
});

it('the demo does not bundle the widget a second time', () => {
  const html = readFileSync('dist/demo/index.html', 'utf8');
  assert.match(html, /<script type="module" src="\/kasir-checkout\.js"/);
  for (const file of readdirSync('dist/demo/assets').filter((f) => f.endsWith('.js'))) {
    const js = readFileSync(`dist/demo/assets/${file}`, 'utf8');
    assert.doesNotMatch(js, /customElements\.define|lit-html|_\$litElement\$/, `${file} carries the widget or lit`);
    assert.ok(gzipSync(js).length < 2048, `${file} is small`);
  }
  assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, 'an inline script');
});
