import type TypeScript from 'typescript';
import { defineConfig, type Plugin } from 'vite';

// `vite build` (after `tsc -b`, see package.json) makes <kasir-checkout> for a `<script type="module">` tag in
// dist/browser/: the entry kasir-checkout.js (lit and the element: everything the first paint, the method list, needs;
// Lit in production mode) and one chunk per kind of pending view, kasir-checkout-<view>-<hash>.js, which the entry
// imports (a relative import(), resolved against the entry's own URL) when a deposit of that kind is about to be
// shown. The entry is the package's `@kasir/checkout/kasir-checkout.js`; the merchant backend serves it at
// /kasir-checkout.js and the sandbox's hosted checkout page at /checkout/kasir-checkout.js, each with the chunks beside
// it. Its code sits in one `if (typeof HTMLElement != 'undefined') { ... }` block, so importing the file in Node
// (server rendering) does nothing instead of throwing on `HTMLElement`: no exports, no static imports, no round trip.
/**
 * Squeezes the whitespace out of the widget's html`` and css`` templates (the minifier leaves template text alone).
 * Finds the templates with the TypeScript parser, so expressions and nested templates are never touched.
 */
const minifyTemplates = (): Plugin => ({
  name: 'kasir-minify-templates',
  enforce: 'pre',
  apply: 'build',
  async transform(code, id) {
    if (!/\/widget\/(views\/)?[^/]+\.ts(\?view=\w+)?$/.test(id)) return;
    // TypeScript is a dev dependency: without it (an install without dev dependencies) templates stay as written.
    const ts: typeof TypeScript | undefined = await import('typescript').then((m) => m.default ?? m, () => undefined);
    if (!ts) return;
    const file = ts.createSourceFile(id, code, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
    const edits: Array<[number, number, string]> = [];
    const visit = (node: TypeScript.Node) => {
      if (ts.isTaggedTemplateExpression(node) && ts.isIdentifier(node.tag) && /^(html|css|svg)$/.test(node.tag.text)) {
        const t = node.template;
        const literals = ts.isNoSubstitutionTemplateLiteral(t) ? [t] : [t.head, ...t.templateSpans.map((s) => s.literal)];
        for (const lit of literals) {
          const start = lit.getStart(file) + 1;
          const end = lit.getEnd() - (ts.isTemplateHead(lit) || ts.isTemplateMiddle(lit) ? 2 : 1);
          const text = code.slice(start, end);
          edits.push([
            start,
            end,
            node.tag.text === 'css'
              ? text.replace(/\/\*[^]*?\*\//g, '').replace(/\s+/g, ' ').replace(/\s*([{};,>])\s*/g, '$1').replace(/:\s+/g, ':').replace(/;}/g, '}')
                  // 0.5rem: .5rem
                  .replace(/([^\w.])0\.(\d)/g, '$1.$2')
              : // Line breaks: none next to a tag (whitespace there is not meant as a space), else one space.
                text.replace(/\s*\n\s*([<>])|([<>])\s*\n\s*/g, '$1$2').replace(/\s*\n\s*/g, ' ').replace(/>\s+</g, '><'),
          ]);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
    let out = code;
    for (const [start, end, text] of edits.sort((a, b) => b[0] - a[0])) out = out.slice(0, start) + text + out.slice(end);
    return { code: out, map: null };
  },
});

/**
 * Lit's production build still carries two long messages for a misuse of its `css` tag (a developer's error, never
 * reached by this element's fixed styles): a shopper downloads them in the first paint, so they are shortened here.
 */
const litMessages = (): Plugin => ({
  name: 'kasir-lit-messages',
  apply: 'build',
  transform(code, id) {
    if (!/@lit\/reactive-element\/css-tag\.js$/.test(id)) return;
    const out = code
      .replace('CSSResult is not constructable. Use `unsafeCSS` or `css` instead.', 'CSSResult: use css or unsafeCSS')
      .replace(`Value passed to 'css' function must be a 'css' function result: `, 'css: ')
      .replace(`. Use 'unsafeCSS' to pass non-literal values, but take care to ensure page security.`, '');
    return out === code ? undefined : { code: out, map: null };
  },
});

/**
 * Lit's production files call hooks for the web components polyfills and for server-rendered hydration
 * (`*PolyfillSupport`, `litElementHydrateSupport`), push their versions onto globals, support decorators and
 * attributes as JSON, and template kinds, bindings and directives this element never writes: the entry needs none of it
 * (browsers with native shadow DOM; the entry does nothing in Node, so nothing to hydrate; the element declares
 * `static properties`: no decorators, no JSON attribute; its templates and its views' are html`` only, with no
 * directive), so it is cut, about 720 B gzipped off the first paint. Only this script-tag build: the npm package's
 * modules keep Lit as it is. A Lit whose text differs fails the build.
 */
const litHooks = (): Plugin => ({
  name: 'kasir-lit-hooks',
  apply: 'build',
  enforce: 'pre',
  resolveId(source) {
    // A directive imported after all would silently do nothing: the build says so instead.
    if (/^lit(-html)?\/(directives\/|directive|async-directive)/.test(source)) this.error(`${source}: kasir-lit-hooks cut Lit's directives`);
    return null;
  },
  transform(code, id) {
    const cuts: Array<[RegExp, string]> | undefined = /@lit\/reactive-element\/reactive-element\.js$/.test(id)
      ? [
          [/,\w+=\w+\.reactiveElementPolyfillSupport(?=,)/, ''],
          [/,\w+\?\.\(\{ReactiveElement:\w+\}\),\(\w+\.reactiveElementVersions\?\?=\[\]\)\.push\("[\d.]+"\)/, ''],
          // Decorators' support (their metadata, addInitializer): the element declares `static properties` instead.
          [/Symbol\.metadata\?\?=Symbol\("metadata"\),\w+\.litPropertyMetadata\?\?=new WeakMap;/, ''],
          [/const \w+=this\[Symbol\.metadata\];if\(null!==\w+\)\{const \w+=litPropertyMetadata\.get\(\w+\);if\(void 0!==\w+\)for\(const\[\w+,\w+\]of \w+\)this\.elementProperties\.set\(\w+,\w+\)\}/, ''],
          [/static addInitializer\(\w+\)\{this\._\$Ei\(\),\(this\.l\?\?=\[\]\)\.push\(\w+\)\}/, ''],
          [/void 0!==\w+\.l&&\(this\.l=\[\.\.\.\w+\.l\]\),/, ''],
          [/,this\.constructor\.l\?\.forEach\(\w+=>\w+\(this\)\)/, ''],
          // Attributes as JSON (`type: Object` or `Array`): the element's attributes are strings, a number, a boolean.
          [/;break;case Object:case Array:\w+=null==\w+\?\w+:JSON\.stringify\(\w+\)\}/, '}'],
          [/;break;case Object:case Array:try\{\w+=JSON\.parse\(\w+\)\}catch\(\w+\)\{\w+=null\}\}/, '}'],
        ]
      : /\/lit-html\/lit-html\.js$/.test(id)
        ? [
            [/,\w+=\w+\.litHtmlPolyfillSupport;\w+\?\.\(\w+,\w+\),\(\w+\.litHtmlVersions\?\?=\[\]\)\.push\("[\d.]+"\);/, ';'],
            // The element and its views write only html`` templates (no svg`` or mathml``, which lit wraps and unwraps),
            [/,(\w+)=2===(\w+)\?"<svg>":3===\2\?"<math>":""/, ',$1=""'],
            [/\+\(2===\w+\?"<\/svg>":3===\w+\?"<\/math>":""\)/, ''],
            [/,2===\w+\|\|3===\w+\)\{const (\w+)=this\.el\.content\.firstChild;\1\.replaceWith\(\.\.\.\1\.childNodes\)\}/, '){}'],
            // with no binding inside <textarea>, <title>, <style> or <script>,
            [
              /if\(\w+\.test\(\w+\.tagName\)\)\{const \w+=\w+\.textContent\.split\(\w+\),\w+=\w+\.length-1;if\(\w+>0\)\{\w+\.textContent=\w+\?\w+\.emptyScript:"";for\(let \w+=0;\w+<\w+;\w+\+\+\)\w+\.append\(\w+\[\w+\],\w+\(\)\),\w+\.nextNode\(\),\w+\.push\(\{type:2,index:\+\+\w+\}\);\w+\.append\(\w+\[\w+\],\w+\(\)\)\}\}/,
              '',
            ],
            // and no element binding (`<div ${ref(...)}>`).
            [/else \w+\.startsWith\(\w+\)&&\(\w+\.push\(\{type:6,index:\w+\}\),\w+\.removeAttribute\(\w+\)\)/, ''],
            [/:6===\w+\.type&&\(\w+=new \w+\(\w+,this,\w+\)\)/, ':0'],
            // No directive either (no lit/directives import anywhere): a value is bound as it is.
            [
              /function (\w+)\((\w+),(\w+),\w+=\2,\w+\)\{if\(\3===\w+\)return \3;let \w+=void 0!==\w+\?\w+\._\$Co\?\.\[\w+\]:\w+\._\$Cl;const \w+=\w+\(\3\)\?void 0:\3\._\$litDirective\$;.*?\1\(\2,\w+\._\$AS\(\2,\3\.values\),\w+,\w+\)\),\3\}/,
              'function $1($2,$3){return $3}',
            ],
            // Nor the connection state async directives follow.
            [/get _\$AU\(\)\{return this\._\$AM\?\._\$AU\?\?this\._\$Cv\}/, ''],
            [/get _\$AU\(\)\{return this\._\$AM\._\$AU\}/g, ''],
            [/,this\._\$Cv=\w+\?\.isConnected\?\?!0/, ''],
            [/setConnected\(\w+\)\{void 0===this\._\$AM&&\(this\._\$Cv=\w+,this\._\$AP\?\.\(\w+\)\)\}/, ''],
            [/for\(this\._\$AP\?\.\(!1,!0,\w+\);/, 'for(;'],
            [/,this\._\$AN=void 0/g, ''],
          ]
        : /\/lit-element\/lit-element\.js$/.test(id)
          ? [
              [/,\w+\.litElementHydrateSupport\?\.\(\{LitElement:\w+\}\);const \w+=\w+\.litElementPolyfillSupport;\w+\?\.\(\{LitElement:\w+\}\);/, ';'],
              [/\(\w+\.litElementVersions\?\?=\[\]\)\.push\("[\d.]+"\);/, ''],
              // The connection state async directives follow (no directive: see lit-html's cuts).
              [
                /connectedCallback\(\)\{super\.connectedCallback\(\),this\._\$Do\?\.setConnected\(!0\)\}disconnectedCallback\(\)\{super\.disconnectedCallback\(\),this\._\$Do\?\.setConnected\(!1\)\}/,
                '',
              ],
              [/this\.hasUpdated\|\|\(this\.renderOptions\.isConnected=this\.isConnected\),/, ''],
            ]
          : undefined;
    if (!cuts) return;
    let out = code;
    for (const [re, by] of cuts) {
      if (out.search(re) < 0) this.error(`${id} changed: check what kasir-lit-hooks cuts (${re})`);
      out = out.replace(re, by);
    }
    return { code: out, map: null };
  },
});

/**
 * lean-qr's codes carry two methods for drawing on a canvas (`toImageData`, minified `u`, and `toCanvas`) that no chunk
 * calls (the views draw an SVG path, the PNG download draws that path): an object's methods are never tree-shaken, so
 * they are cut here, about 200 B gzipped off the QRIS and crypto chunks. A lean-qr whose text differs fails the build.
 */
const leanQrCanvas = (): Plugin => ({
  name: 'kasir-lean-qr-canvas',
  apply: 'build',
  transform(code, id) {
    if (!/\/lean-qr\/nano\.mjs(\?|$)/.test(id)) return;
    const out = code.replace(/,u\(o,\{on:[^]*?putImageData\(e,0,0\)\}/, '');
    if (out === code) this.error('lean-qr/nano.mjs changed: check what kasir-lean-qr-canvas cuts');
    return { code: out, map: null };
  },
});

/** The element's module registers <kasir-checkout>; package.json's `sideEffects` names only dist/, so say it here. */
const registers = (): Plugin => ({
  name: 'kasir-registers',
  apply: 'build',
  transform(code, id) {
    if (id.endsWith('/widget/kasir-checkout.ts')) return { code, moduleSideEffects: true };
  },
});

/**
 * Each pending view's chunk gets its own copy of what the view imports (the frame, views/pending.ts, and the
 * deposit's follower): the modules a view imports resolve to an id per view, so no chunk is shared. A payment then
 * loads one chunk, in one request, and downloads less than with the frame in a chunk of its own (two gzip streams,
 * the second without the first's dictionary). The cost: a shopper whose second deposit is of another kind fetches the
 * frame again (about 1.2 KB gzipped). Packages count too (lean-qr, in the QRIS and crypto views). Dynamic imports
 * inside a view (the QRIS PNG download) stay chunks of their own.
 */
const chunkPerView = (): Plugin => ({
  name: 'kasir-chunk-per-view',
  apply: 'build',
  enforce: 'pre',
  async resolveId(source, importer, options) {
    const view = importer?.match(/\/widget\/views\/(va|qris|ewallet|crypto)\.ts$/)?.[1] ?? importer?.match(/\?view=(\w+)$/)?.[1];
    if (!view || options.kind === 'dynamic-import') return null;
    const resolved = await this.resolve(source, importer!.replace(/\?.*$/, ''), { ...options, skipSelf: true });
    return resolved && !resolved.external ? { ...resolved, id: `${resolved.id}?view=${view}` } : resolved;
  },
});

/**
 * Checks the shape the Node guard and the one-request views rely on: the entry imports nothing statically and exports
 * nothing (its code is in one block), and no chunk imports another statically.
 */
const checkChunks = (): Plugin => ({
  name: 'kasir-check-chunks',
  apply: 'build',
  generateBundle(_, bundle) {
    for (const chunk of Object.values(bundle)) {
      if (chunk.type !== 'chunk') continue;
      if (chunk.imports.length) this.error(`${chunk.fileName} imports ${chunk.imports.join(', ')}: the entry and the views must load alone`);
      if (chunk.isEntry && chunk.exports.length) this.error(`${chunk.fileName} exports ${chunk.exports.join(', ')}: its code must stay inside the Node guard`);
    }
  },
});

export default defineConfig({
  plugins: [registers(), litMessages(), litHooks(), leanQrCanvas(), chunkPerView(), minifyTemplates(), checkChunks()],
  build: {
    outDir: 'dist/browser',
    emptyOutDir: true,
    target: 'es2021',
    lib: {
      entry: 'index.ts',
      formats: ['es'],
      fileName: () => 'kasir-checkout.js',
    },
    rollupOptions: {
      // The entry is for a script tag: it registers the element and exports nothing.
      preserveEntrySignatures: false,
      output: {
        minify: true,
        comments: { annotation: false },
        // kasir-checkout-<view>-<hash>.js: base36 hashes (no - or _), so the view's name is all before the last dash.
        chunkFileNames: 'kasir-checkout-[name]-[hash].js',
        hashCharacters: 'base36',
        // The Node guard: without a DOM the entry's code (lit's classes extend HTMLElement) does not run at all.
        intro: (chunk) => (chunk.isEntry ? "if (typeof HTMLElement != 'undefined') {" : ''),
        outro: (chunk) => (chunk.isEntry ? '}' : ''),
      },
    },
  },
});
