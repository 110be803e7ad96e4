import { defineConfig } from 'vite';

// The demo storefront, dist/demo (index.html + assets), served by `npm start` at /. It loads the widget from
// /kasir-checkout.js (a `vite-ignore` script), so the widget is never bundled twice.
export default defineConfig({
  root: 'demo',
  base: '/',
  logLevel: 'warn',
  build: { outDir: '../dist/demo', emptyOutDir: true, target: 'es2021' },
});
