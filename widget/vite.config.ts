import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { minify } from 'terser';
import type TypeScript from 'typescript';
import { defineConfig, type Plugin } from 'vite';

// `vite build` (after `tsc -b`, see package.json) makes <kasir-checkout> for a `<script type="module">` tag in
// dist/browser/: the entry kasir-checkout.js (Lit, as published, in production mode, and the element: everything the
// first paint, the method list, needs), a chunk per locale of the element's words (kasir-checkout-words-en.js, loaded
// in parallel with the checkout), and a chunk per pending view (the kinds' table, widget/method-kinds.ts), which the entry
// imports (a relative import(), resolved against the entry's own URL) when a deposit of that kind is about to be
// shown, and which imports Lit from the entry (already loaded). The entry is the package's
// `@kasir/checkout/kasir-checkout.js`; the merchant backend serves it at /kasir-checkout.js and the sandbox's hosted
// checkout page at /checkout/kasir-checkout.js, each with the chunks beside it. Without a DOM the package's export is
// kasir-checkout.node.js, which does nothing (noDomEntry).
/**
 * Squeezes the whitespace out of the widget's html`` and css`` templates (the minifier leaves template text alone).
 * Finds the templates with the TypeScript parser, so expressions and nested templates are never touched. A css``
 * template becomes Lit's unsafeCSS() of the same text: Lit's css tag only adds a check that what it interpolates is
 * CSS (the widget's styles are its own source, checked by the type checker) and that check's long error message,
 * which the entry would otherwise carry.
 */
const minifyTemplates = (): Plugin => ({
  name: 'kasir-minify-templates',
  enforce: 'pre',
  apply: 'build',
  async transform(code, id) {
    if (!/\/widget\/(views\/)?[^/]+\.ts(\?view=\w+)?$/.test(id)) return;
    // TypeScript is a dev dependency: without it (an install without dev dependencies) templates stay as written.
    const ts: typeof TypeScript | undefined = await import('typescript').then(
      (m) => m.default ?? m,
      () => undefined,
    );
    if (!ts) return;
    const file = ts.createSourceFile(id, code, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
    const edits: Array<[number, number, string]> = [];
    const visit = (node: TypeScript.Node) => {
      if (ts.isTaggedTemplateExpression(node) && ts.isIdentifier(node.tag) && /^(html|css|svg)$/.test(node.tag.text)) {
        const t = node.template;
        const literals = ts.isNoSubstitutionTemplateLiteral(t)
          ? [t]
          : [t.head, ...t.templateSpans.map((s) => s.literal)];
        if (node.tag.text === 'css') {
          edits.push([node.tag.getStart(file), node.tag.getEnd(), 'unsafeCSS(']);
          edits.push([t.getEnd(), t.getEnd(), ')']);
        }
        // HTML's void elements need no `/>` (SVG's elements do: an svg`` template, or one with an <svg>, keeps them).
        const html = node.tag.text === 'html' && !literals.some((lit) => lit.getText(file).includes('<svg'));
        for (const lit of literals) {
          const start = lit.getStart(file) + 1;
          const end = lit.getEnd() - (ts.isTemplateHead(lit) || ts.isTemplateMiddle(lit) ? 2 : 1);
          const text = code.slice(start, end);
          edits.push([
            start,
            end,
            node.tag.text === 'css'
              ? text
                  .replace(/\/\*[^]*?\*\//g, '')
                  .replace(/\s+/g, ' ')
                  .replace(/\s*([{};,>])\s*/g, '$1')
                  .replace(/:\s+/g, ':')
                  .replace(/;}/g, '}')
                  // 0.5rem: .5rem
                  .replace(/([^\w.])0\.(\d)/g, '$1.$2')
                  // [part='qr']: [part=qr] (a value that is a CSS identifier needs no quotes)
                  .replace(/\[([\w-]+)='([a-z][\w-]*)'\]/g, '[$1=$2]')
                  // (the spaces around a template with no expressions)
                  .replace(ts.isNoSubstitutionTemplateLiteral(t) ? /^ | $/g : /$^/, '')
              : // Line breaks: none next to a tag (whitespace there is not meant as a space), else one space. An
                // attribute's value that needs no quotes (HTML's unquoted value: no space, quote, =, <, >, `) loses them.
                text
                  .replace(/\s*\n\s*([<>])|([<>])\s*\n\s*/g, '$1$2')
                  .replace(/\s*\n\s*/g, ' ')
                  .replace(/>\s+</g, '><')
                  .replace(html ? /\s*\/>/g : /$^/, '>')
                  // An empty value is the attribute alone (alt="": alt).
                  .replace(/(\s[\w-]+)=""/g, '$1')
                  .replace(/(\s[\w-]+)="([^\s"'=<>`/]+)"/g, '$1=$2'),
          ]);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
    let out = code;
    for (const [start, end, text] of edits.sort((a, b) => b[0] - a[0]))
      out = out.slice(0, start) + text + out.slice(end);
    if (edits.some(([, , text]) => text === 'unsafeCSS(')) out = `import { unsafeCSS } from 'lit';\n${out}`;
    return { code: out, map: null };
  },
});

/**
 * The element's module registers <kasir-checkout> and early-words.ts starts the shopper's words downloading;
 * package.json's `sideEffects` names only dist/, so say it here.
 */
const registers = (): Plugin => ({
  name: 'kasir-registers',
  apply: 'build',
  transform(code, id) {
    if (/\/widget\/(kasir-checkout|early-words)\.ts$/.test(id)) return { code, moduleSideEffects: true };
  },
});

/** The element's locales: its words' files, locales/<locale>.ts (the table in widget/i18n.ts). */
const LOCALES = readdirSync(fileURLToPath(new URL('./locales/', import.meta.url)))
  .map((file) => /^([a-z]+)\.ts$/.exec(file)?.[1])
  .filter((locale): locale is string => !!locale);

/**
 * Each pending view's chunk (every `import()` of the kinds' table, widget/method-kinds.ts) is made once per locale,
 * kasir-checkout-<view>-<locale>-<hash>.js: a view's `import()` there becomes one per locale, picked by the locale the
 * element passes (`view(locale)`), and in a locale's chunk every other locale's words module (locales/<place>.<other>.ts)
 * is left empty, so a payment downloads its language only. Each chunk gets its own copy of what the view imports (the
 * frame, views/pending.ts, the deposit's follower, the QR encoder, the words): the modules a view imports resolve to
 * an id per view, so no chunk is shared between views. A payment then loads one chunk, in one request, and downloads
 * less than with the frame in a chunk of its own (two gzip streams, the second without the first's dictionary). The
 * cost: a shopper whose second deposit is of another kind fetches the frame again. Lit and the
 * element's own modules (widget/*.ts: words, formatting, events) are not copied: they are the entry's, which a view's
 * chunk imports (already loaded: no request). Dynamic imports inside a view (the QRIS PNG download) stay chunks of
 * their own.
 */
const chunkPerView = (): Plugin => {
  /** The views of the kinds' table (their ids), by chunk name (view_locale). */
  const roots = new Map<string, string>();
  /** What an empty words module stands in for: the file it replaces. */
  const emptied = new Map<string, string>();
  return {
    name: 'kasir-chunk-per-view',
    apply: 'build',
    enforce: 'pre',
    transform(code, id) {
      if (!id.endsWith('/widget/method-kinds.ts')) return;
      const view = /\(\) => import\('(\.\/views\/[\w-]+\.js)'\)/g;
      const out = code.replace(
        view,
        (_, path: string) =>
          `(locale) => ({ ${LOCALES.map((l) => `${l}: () => import('${path}?locale=${l}')`).join(', ')} })[locale]()`,
      );
      if (/import\('(?!.*\?locale=)/.test(out))
        this.error('method-kinds.ts: a view is loaded other than by `() => import(...)`');
      return { code: out, map: null };
    },
    async resolveId(source, importer, options) {
      if (!importer) return null;
      const plain = importer.replace(/\?.*$/, '');
      if (options.kind === 'dynamic-import') {
        // A view of the kinds' table in a locale: its chunk's root, named after its file and the locale.
        if (!plain.endsWith('/widget/method-kinds.ts')) return null;
        const [path, locale] = source.split('?locale=');
        const resolved = await this.resolve(path, importer, { ...options, skipSelf: true });
        if (!resolved) return resolved;
        const name = `${basename(resolved.id).replace(/\.\w+$/, '')}_${locale}`;
        roots.set(`${resolved.id}?view=${name}`, name);
        return { ...resolved, id: `${resolved.id}?view=${name}` };
      }
      const view = roots.get(importer) ?? importer.match(/\?view=(\w+)$/)?.[1];
      if (!view) return null;
      const resolved = await this.resolve(source, plain, { ...options, skipSelf: true });
      if (!resolved || resolved.external) return resolved;
      // Another locale's words: an empty module with the same exports.
      const words = /\/widget\/locales\/[\w-]+\.([a-z]+)\.ts$/.exec(resolved.id);
      if (words && words[1] !== view.split('_')[1]) {
        const id = `\0kasir-other-locale:${resolved.id}`;
        emptied.set(id, resolved.id);
        return id;
      }
      // (The event classes, events.ts, are copied too: the entry then carries none of those only views dispatch.)
      const shared =
        /\/node_modules\/(lit|lit-html|lit-element|@lit\/[\w-]+)\//.test(resolved.id) ||
        (/\/widget\/[^/]+\.ts$/.test(resolved.id) && !resolved.id.endsWith('/widget/events.ts'));
      return shared ? resolved : { ...resolved, id: `${resolved.id}?view=${view}` };
    },
    load(id) {
      const file = emptied.get(id);
      if (!file) return;
      const named = [...readFileSync(file, 'utf8').matchAll(/^export const (\w+)/gm)].map((m) => m[1]);
      return ['export default undefined;', ...named.map((name) => `export const ${name} = undefined;`)].join('\n');
    },
  };
};

/**
 * The modal dialog's chunk (modal.ts) gets its own copy of the event classes (events.ts, of which it uses the one it
 * dispatches, kasir-close), as a view's chunk does (chunkPerView): the entry then carries none of it.
 */
const dialogEvents = (): Plugin => ({
  name: 'kasir-dialog-events',
  apply: 'build',
  enforce: 'pre',
  async resolveId(source, importer, options) {
    if (!importer?.endsWith('/widget/modal.ts')) return null;
    const resolved = await this.resolve(source, importer, { ...options, skipSelf: true });
    return resolved?.id.endsWith('/widget/events.ts') ? { ...resolved, id: `${resolved.id}?copy=modal` } : resolved;
  },
});

/**
 * Checks the shape the budgets rely on: the entry imports nothing statically (all the first paint is in it), and a
 * chunk imports nothing statically but the entry (loaded already: one request per view).
 */
const checkChunks = (): Plugin => ({
  name: 'kasir-check-chunks',
  apply: 'build',
  generateBundle(_, bundle) {
    const entry = Object.values(bundle).find((chunk) => chunk.type === 'chunk' && chunk.isEntry)!.fileName;
    for (const chunk of Object.values(bundle)) {
      if (chunk.type !== 'chunk') continue;
      const imports = chunk.imports.filter((file) => file !== entry || chunk.isEntry);
      if (imports.length)
        this.error(
          `${chunk.fileName} imports ${imports.join(', ')}: the entry must load alone, and a view with the entry only`,
        );
    }
  },
});

/**
 * Vite's minifier keeps the `@__PURE__` annotations in a library's build (for a bundler that tree-shakes it again); a
 * script tag's files are the end of the line, so they are printed once more without them.
 */
const dropAnnotations = (): Plugin => ({
  name: 'kasir-drop-annotations',
  apply: 'build',
  async generateBundle(_, bundle) {
    for (const chunk of Object.values(bundle)) {
      if (chunk.type !== 'chunk' || !chunk.code.includes('__PURE__')) continue;
      const printed = await minify(chunk.code, {
        ecma: 2020,
        module: true,
        compress: false,
        mangle: false,
        format: { comments: false, preserve_annotations: false },
      });
      chunk.code = printed.code!;
    }
  },
});

/**
 * A locale's words chunk is one object, printed by the minifier as `var e={…};export{e as default};`: written as the
 * `export default{…};` it is.
 */
const wordsAsDefault = (): Plugin => ({
  name: 'kasir-words-as-default',
  apply: 'build',
  generateBundle(_, bundle) {
    for (const chunk of Object.values(bundle)) {
      if (chunk.type !== 'chunk' || chunk.moduleIds.length !== 1 || !chunk.facadeModuleId?.includes('/widget/locales/'))
        continue;
      const declared = /^var (\w+)=(\{.*\});export\{\1 as default\};?\n?$/s.exec(chunk.code);
      if (declared) chunk.code = `export default${declared[2]};\n`;
    }
  },
});

/**
 * Each file of the build also precompressed beside it, at the highest levels (made once, served many times): <file>.br
 * (brotli) and <file>.gz (gzip), which the servers send to a browser that takes them (server/common/widget-files.ts),
 * as a CDN can (widget/README.md).
 */
const precompress = (): Plugin => ({
  name: 'kasir-precompress',
  apply: 'build',
  writeBundle(options, bundle) {
    for (const file of Object.values(bundle)) {
      if (file.type !== 'chunk') continue; // (the module for no DOM is an asset: no browser loads it)
      const path = join(options.dir!, file.fileName);
      const body = readFileSync(path);
      writeFileSync(`${path}.br`, brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
      writeFileSync(`${path}.gz`, gzipSync(body, { level: 9 }));
    }
  },
});

/**
 * What the package's `./kasir-checkout.js` export is where there is no DOM (its `node`, `deno`, `bun`, `workerd` and
 * `edge-light` conditions: server rendering in Next.js, Nuxt, Astro): a module that does nothing. The entry itself
 * runs Lit, which needs a DOM, and exports what its views import, so it cannot keep its code behind a guard.
 */
const noDomEntry = (): Plugin => ({
  name: 'kasir-no-dom-entry',
  apply: 'build',
  generateBundle() {
    const source =
      '// @kasir/checkout/kasir-checkout.js without a DOM (server rendering): nothing to run. Browsers load kasir-checkout.js.\nexport {};\n';
    this.emitFile({ type: 'asset', fileName: 'kasir-checkout.node.js', source });
  },
});

/**
 * The script-tag build mangles private members (`__` names: the element's and its controllers', as Lit's own build
 * does) with terser, keeping each name's short form in widget/mangle-cache.json, so the same source builds the same
 * files and a change renames nothing else. Written back when a new private member gets its name.
 */
/**
 * Members of the objects the element's own modules and chunks hand each other, and nothing else names: the load
 * controller's options and outcome, the countdown's, the deposit follower's callbacks, and the kits of the picker, the
 * views and views/paid.ts (views/view.ts), with the paid module's functions. Shortened like private members (the same
 * name cache, so every chunk agrees). Not here: a words key (a shop's `strings` replace words by key), a field of the
 * widget API's JSON or of an event, a module's export, and DOM names (the minifier leaves those alone anyway).
 */
const INTERNAL_NAMES = [
  ...['args', 'task', 'onDone', 'settled', 'remaining', 'spoken', 'onDeposit', 'onTrouble'],
  ...['picked', 'expanded', 'pick', 'money', 'api', 'keepRefund', 'shown', 'loc', 'say', 'timer'],
  ...['said', 'row'],
];
const CACHE_FILE = fileURLToPath(new URL('./mangle-cache.json', import.meta.url));
const nameCache: { vars?: object; props?: object } = existsSync(CACHE_FILE)
  ? JSON.parse(readFileSync(CACHE_FILE, 'utf8'))
  : {};
const keepNameCache = (): Plugin => ({
  name: 'kasir-name-cache',
  apply: 'build',
  closeBundle() {
    const text = `${JSON.stringify(nameCache, null, 2)}\n`;
    if (!existsSync(CACHE_FILE) || readFileSync(CACHE_FILE, 'utf8') !== text) writeFileSync(CACHE_FILE, text);
  },
});

export default defineConfig({
  plugins: [
    registers(),
    chunkPerView(),
    dialogEvents(),
    minifyTemplates(),
    checkChunks(),
    dropAnnotations(),
    wordsAsDefault(),
    precompress(),
    noDomEntry(),
    keepNameCache(),
  ],
  build: {
    outDir: 'dist/browser',
    emptyOutDir: true,
    target: 'es2021',
    lib: {
      entry: 'index.ts',
      formats: ['es'],
      fileName: () => 'kasir-checkout.js',
    },
    minify: 'terser',
    terserOptions: {
      ecma: 2020,
      module: true,
      // Vite asks for Safari 10's workarounds; the build's target (es2021) is newer.
      safari10: false,
      compress: { passes: 2 },
      // Private members (a `__` name, as Lit's own build mangles) and the internal names below.
      mangle: { properties: { regex: new RegExp(`^(__.+|${INTERNAL_NAMES.join('|')})$`) } },
      nameCache,
      format: { comments: false },
    },
    rollupOptions: {
      // The entry is for a script tag: it registers the element and exports only what its views import from it.
      preserveEntrySignatures: false,
      output: {
        // kasir-checkout-<view>-<hash>.js: base36 hashes (no - or _), so the view's name is all before the last dash.
        // A locale's words keep one name, kasir-checkout-words-<locale>.js, so a page that knows its language can
        // preload them beside the script (docs/orders.md, "First paint"); the servers revalidate them like the entry.
        // A view's chunk in a locale: kasir-checkout-<view>-<locale>-<hash>.js.
        chunkFileNames: (chunk) =>
          chunk.facadeModuleId?.includes('/widget/locales/')
            ? 'kasir-checkout-words-[name].js'
            : `kasir-checkout-${/\?view=\w+_([a-z]+)$/.test(chunk.facadeModuleId ?? '') ? `[name]-${chunk.facadeModuleId!.split('_').at(-1)}` : '[name]'}-[hash:6].js`,
        hashCharacters: 'base36',
      },
    },
  },
});
