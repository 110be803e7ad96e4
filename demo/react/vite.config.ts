import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The React shop: dist/demo-react, served by the demo server at /react/ on the origin of the widget API (/api) and
// the shop's own /shop/orders. React 19 + TypeScript, JSX by Vite's own transform; the element comes from
// @kasir/checkout/react (bundled, as a React shop would). `vite -c demo/react/vite.config.ts` serves it for
// development, proxying /api and /shop to `npm start` on port 3000.
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const backend = process.env.KASIR_DEMO_BACKEND ?? 'http://localhost:3000';

export default defineConfig({
  root: here('.'),
  base: '/react/',
  publicDir: here('../public'),
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic' } },
  server: { proxy: { '/api': backend, '/shop': backend } },
  build: {
    outDir: here('../../dist/demo-react'),
    emptyOutDir: true,
    target: 'es2021',
    rolldownOptions: {
      // @kasir/checkout/react starts with 'use client' (for React Server Components); a client bundle drops it.
      onwarn: (warning, warn) => warning.code !== 'MODULE_LEVEL_DIRECTIVE' && warn(warning),
    },
  },
});
