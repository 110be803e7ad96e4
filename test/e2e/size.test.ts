// The size budget, on the built script-tag files (`npm run test:e2e` builds them): the first paint (the entry and the
// shopper's words: the method list) is at most 13 KB gzipped, and everything a shopper downloads to pay (that and the
// view's chunk) at most 17 KB for QRIS, virtual account and bank transfer, 18 KB for an e-wallet (three flows), and
// 19 KB for crypto, with Lit as published; a modal checkout adds its dialog's chunk, at most 0.75 KB. Each file is
// gzipped on its own, as a server sends it. Also the build's shape the budgets rely on: one entry that imports nothing
// statically, one chunk per locale and per view, loaded relative to the entry, each view's chunk importing nothing but
// the entry (already loaded), and the words of failures in a chunk of their own that no payment downloads unless
// something fails, as are those of a payment not as planned, and the modal dialog's. Without a DOM the package's export
// is a module that does nothing.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import {
  ENTRY,
  FIRST_PAINT_BUDGET_BYTES,
  FLOW_BUDGET_BYTES,
  importsOf,
  LOCALES,
  measureWidget,
  MODAL_BUDGET_BYTES,
  viewOf,
  VIEWS,
  WIDGET_DIR,
} from './widget-build';

const build = measureWidget();
const entry = build.files[ENTRY].code;

it(`the first paint (the method list) is at most ${FIRST_PAINT_BUDGET_BYTES} bytes gzipped: the entry and one locale's words`, () => {
  assert.deepEqual(build.firstPaint.files.slice(0, 1), [ENTRY]);
  assert.equal(build.firstPaint.files.length, 2, build.firstPaint.files.join(', '));
  assert.ok(
    build.firstPaint.gz <= FIRST_PAINT_BUDGET_BYTES,
    `the first paint is ${build.firstPaint.gz} bytes gzipped, over ${FIRST_PAINT_BUDGET_BYTES}`,
  );
});

it('each locale is one chunk of its own, with that language only: the entry carries no words but those of a lost connection', () => {
  assert.deepEqual(Object.keys(build.locales).sort(), [...LOCALES].sort());
  const code = (locale: string) => build.files[build.locales[locale]].code;
  assert.match(code('en'), /Choose how to pay/);
  assert.doesNotMatch(code('en'), /Pilih cara bayar/);
  assert.match(code('id'), /Pilih cara bayar/);
  assert.doesNotMatch(code('id'), /Choose how to pay/);
  assert.doesNotMatch(entry, /Choose how to pay|Pilih cara bayar/);
});

for (const view of VIEWS) {
  const budget = FLOW_BUDGET_BYTES[view];
  it(`a full ${view} payment downloads at most ${budget} bytes gzipped: the first paint and the ${view} chunk, in one language`, () => {
    const flow = build.flows[view];
    assert.ok(flow, `the entry imports no ${view} chunk (it imports: ${Object.keys(build.flows).join(', ')})`);
    assert.equal(flow.files.length, 3, `${view}: ${flow.files.join(', ')}`);
    assert.ok(flow.gz <= budget, `${flow.files.join(' + ')} is ${flow.gz} bytes gzipped, over ${budget}`);
  });
}

it('the entry lazy-loads exactly the views, the locales and the words of failures, each chunk in the build directory, by a path relative to the entry', () => {
  const { dynamic, all } = importsOf(entry);
  assert.deepEqual(
    [...new Set(dynamic.map(viewOf))].sort(),
    [...VIEWS, ...LOCALES, 'failures', 'modal', 'paid'].sort(),
  );
  for (const view of VIEWS) assert.deepEqual(Object.keys(build.views[view]).sort(), [...LOCALES].sort(), view);
  assert.deepEqual(
    all.filter((s) => !s.startsWith('./')),
    [],
    'every import is relative to the entry',
  );
  for (const file of dynamic) assert.ok(build.files[file], `${file} is not in ${WIDGET_DIR}`);
  // The QRIS PNG download is the only chunk loaded on demand from a view; the failures' words, those of a payment not
  // as planned (views/paid.ts) and the modal dialog the only ones from the entry; nothing else is in the directory.
  assert.deepEqual(build.onDemand, { va: [], qris: build.onDemand.qris, ewallet: build.onDemand.ewallet, crypto: [] });
  assert.deepEqual(build.onDemand.qris.map(viewOf), ['qris-download']);
  // A qr-or-app e-wallet's QR on a wide screen (docs/indonesian-payments.md): its encoder, only when such a code is shown.
  assert.deepEqual(build.onDemand.ewallet.map(viewOf), ['wallet-qr']);
  assert.deepEqual(build.entryOnDemand.map(viewOf).sort(), ['failures', 'modal', 'paid']);
  // The refund form (views/refund.ts) is loaded by the words of a payment not as planned, once money is owed back.
  const refund = importsOf(build.files[build.entryOnDemand.find((f) => viewOf(f) === 'paid')!].code).dynamic;
  assert.deepEqual(refund.map(viewOf), ['refund']);
  const used = new Set([
    ENTRY,
    ...Object.values(build.locales),
    ...Object.values(build.flows).flatMap((f) => f.files),
    ...Object.values(build.views).flatMap((byLocale) => Object.values(byLocale)),
    ...build.onDemand.qris,
    ...build.onDemand.ewallet,
    ...build.entryOnDemand,
    ...refund,
  ]);
  assert.deepEqual(
    // (Each file's precompressed copies, <file>.br and <file>.gz, are the servers' to send.)
    readdirSync(WIDGET_DIR).filter((f) => !used.has(f.replace(/\.(br|gz)$/, ''))),
    ['kasir-checkout.node.js'],
    'files nothing loads (but the module for no DOM)',
  );
});

it(`a modal checkout's dialog is a chunk of its own (widget/modal.ts), at most ${MODAL_BUDGET_BYTES} bytes gzipped: the entry carries none of it`, () => {
  const modal = build.entryOnDemand.find((file) => viewOf(file) === 'modal')!;
  assert.match(build.files[modal].code, /part="?dialog/);
  assert.doesNotMatch(entry, /part="?dialog|part="?close/);
  assert.ok(build.files[modal].gz <= MODAL_BUDGET_BYTES, `${modal} is ${build.files[modal].gz} bytes gzipped`);
});

it("each view's chunk holds one language: a payment downloads the shopper's words only", () => {
  const code = (view: string, locale: string) => build.files[build.views[view][locale]].code;
  // Each view's own words and the frame's, in its chunk for that language and in no other.
  const said = {
    qris: { en: /Scan this code/, id: /Pindai kode ini/ },
    va: { en: /Account number/, id: /Nomor rekening/ },
    ewallet: { en: /Your \{0\} phone number/, id: /Nomor HP \{0\} Anda/ },
    crypto: { en: /Send exactly/, id: /Kirim tepat/ },
    frame: { en: /Waiting for your payment/, id: /Menunggu pembayaran Anda/ },
  };
  for (const view of VIEWS)
    for (const locale of LOCALES)
      for (const [words, other] of [
        [said[view], LOCALES.find((l) => l !== locale)!],
        [said.frame, LOCALES.find((l) => l !== locale)!],
      ] as const) {
        assert.match(code(view, locale), words[locale], `${view} ${locale}`);
        assert.doesNotMatch(code(view, locale), words[other], `${view} ${locale} carries ${other}`);
      }
});

it("words are where they are used: a lost connection's in the entry only, a bad link's with the views that link out", () => {
  const code = (view: string) => build.files[build.flows[view].files.at(-1)!].code;
  for (const locale of LOCALES) {
    const words = build.files[build.locales[locale]].code;
    assert.doesNotMatch(words, /could not reach the payment service|Layanan pembayaran tidak dapat dihubungi/, locale);
    assert.doesNotMatch(words, /cannot be opened safely|tidak aman untuk dibuka/, locale);
  }
  assert.match(entry, /could not reach the payment service/);
  assert.match(entry, /Layanan pembayaran tidak dapat dihubungi/);
  const badLink = /cannot be opened safely|tidak aman untuk dibuka/;
  for (const view of ['ewallet', 'crypto']) assert.match(code(view), badLink, view);
  for (const view of ['va', 'qris']) assert.doesNotMatch(code(view), badLink, view);
});

it('the crypto view carries its own QR encoder (no chunk shared with QRIS), and the QRIS view no crypto words', () => {
  const code = (view: string) => build.files[build.flows[view].files.at(-1)!].code;
  for (const view of ['qris', 'crypto']) assert.match(code(view), /lean-qr error/, `${view} has the encoder`);
  assert.doesNotMatch(code('qris'), /network only/);
  assert.doesNotMatch(entry, /lean-qr|network only/, 'the first paint carries neither');
});

it('the entry imports nothing statically; every other chunk imports nothing statically but the entry (loaded already)', () => {
  assert.deepEqual(importsOf(entry).static, []);
  for (const file of Object.keys(build.files).filter((f) => f !== ENTRY)) {
    assert.deepEqual(
      importsOf(build.files[file].code).static.filter((f) => f !== ENTRY),
      [],
      `${file} loads in one request`,
    );
  }
});

it("imported in Node (no DOM, as in server rendering), the package's kasir-checkout.js does nothing and does not throw", async () => {
  assert.equal(typeof HTMLElement, 'undefined');
  const before = Object.keys(globalThis).sort();
  const specifier: string = '@kasir/checkout/kasir-checkout.js'; // the package's export, as Node resolves it (no types)
  const module = await import(specifier);
  assert.deepEqual(Object.keys(module), []);
  assert.deepEqual(Object.keys(globalThis).sort(), before, 'no global was set');
  // The browser's entry is beside it, for the servers to serve.
  assert.equal(
    new URL('kasir-checkout.js', import.meta.resolve(specifier)).href,
    pathToFileURL(resolve(WIDGET_DIR, ENTRY)).href,
  );
});

it('private members are shortened by the build with the checked-in name cache: no __ name is left', () => {
  const cache = JSON.parse(readFileSync('widget/mangle-cache.json', 'utf8')) as {
    props: { props: Record<string, string> };
  };
  assert.ok(Object.keys(cache.props.props).includes('$__deposit'), "the element's state is in the cache");
  // (`.__proto__` in a dependency's message, @noble/hashes' in the refund chunk, is no member of ours.)
  for (const [file, { code }] of Object.entries(build.files)) {
    assert.doesNotMatch(code.replaceAll('.__proto__', ''), /[.{,]__[a-zA-Z]/, file);
  }
});

it('is production code: no Lit dev mode, no eval; the entry registers the element', () => {
  for (const [file, { code }] of Object.entries(build.files)) {
    assert.doesNotMatch(code, /Lit is in dev mode/, file);
    assert.doesNotMatch(code, /\beval\(|new Function\(/, file);
  }
  assert.match(entry, /customElements\.define\(`kasir-checkout`|customElements\.define\("kasir-checkout"/);
});

it('the demo does not bundle the widget a second time', () => {
  const html = readFileSync('dist/demo/index.html', 'utf8');
  assert.match(html, /<script type="module" src="\/kasir-checkout\.js"/);
  for (const file of readdirSync('dist/demo/assets').filter((f) => f.endsWith('.js'))) {
    const js = readFileSync(join('dist/demo/assets', file), 'utf8');
    assert.doesNotMatch(js, /customElements\.define|lit-html|_\$litElement\$/, `${file} carries the widget or lit`);
    assert.ok(gzipSync(js).length < 2048, `${file} is small`);
  }
  assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, 'an inline script');
});
