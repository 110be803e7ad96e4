import type TypeScript from 'typescript';
import { defineConfig, type Plugin } from 'vite';

// `vite build` (after `tsc -b`, see package.json) makes <kasir-checkout> as one self-contained, minified script for a
// `<script type="module">` tag, dist/browser/kasir-checkout.js: lit and the QR encoder inside, Lit in production
// mode. It is the package's `@kasir/checkout/kasir-checkout.js`, served by the merchant backend at
// /kasir-checkout.js and by the sandbox's hosted checkout page. The code is wrapped in a function that returns at
// once without a DOM, so importing the file in Node (server rendering) does nothing instead of throwing on
// `HTMLElement`.
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
  plugins: [minifyTemplates()],
  build: {
    outDir: 'dist/browser',
    emptyOutDir: true,
    target: 'es2021',
    lib: {
      entry: 'index.ts',
      formats: ['iife'],
      name: 'kasir',
      fileName: () => 'kasir-checkout.js',
    },
    rollupOptions: {
      output: {
        minify: true,
        intro: "if (typeof HTMLElement == 'undefined') return;",
      },
    },
  },
});
