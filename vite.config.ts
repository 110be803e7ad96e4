import type TypeScript from 'typescript';
import { build, defineConfig, type Plugin } from 'vite';

// `vite build` makes two things:
// - <kasir-checkout> as one self-contained, minified ES module (lit and the QR encoder inside, Lit in production
//   mode), dist/widget/kasir-checkout.js, served by the merchant backend at /kasir-checkout.js and by the
//   sandbox's hosted checkout page;
// - the demo storefront, dist/demo (index.html + assets), served by the merchant backend at /. The demo loads the
//   widget from /kasir-checkout.js (a `vite-ignore` script), so the widget is never bundled twice.
const demo = (): Plugin => ({
  name: 'kasir-demo',
  apply: 'build',
  async closeBundle() {
    await build({
      configFile: false,
      root: 'demo',
      base: '/',
      logLevel: 'warn',
      build: { outDir: '../dist/demo', emptyOutDir: true, target: 'es2021' },
    });
  },
});

/**
 * Squeezes the whitespace out of the widget's html`` and css`` templates (the minifier leaves template text alone).
 * Finds the templates with the TypeScript parser, so expressions and nested templates are never touched.
 */
const minifyTemplates = (): Plugin => ({
  name: 'kasir-minify-templates',
  enforce: 'pre',
  apply: 'build',
  async transform(code, id) {
    if (!/\/widget\/[^/]+\.ts$/.test(id)) return;
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
              ? text.replace(/\s+/g, ' ').replace(/\s*([{};,>])\s*/g, '$1').replace(/:\s+/g, ':').replace(/;}/g, '}')
              : text.replace(/\s*\n\s*/g, ' ').replace(/>\s+</g, '><'),
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

export default defineConfig({
  plugins: [minifyTemplates(), demo()],
  build: {
    outDir: 'dist/widget',
    emptyOutDir: true,
    target: 'es2021',
    lib: {
      entry: 'widget/index.ts',
      formats: ['es'],
      fileName: () => 'kasir-checkout.js',
    },
    rollupOptions: { output: { codeSplitting: false, minify: true } },
  },
});
