import { isCustomElement } from '@kasir/checkout/vue';
import vue from '@vitejs/plugin-vue';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The Vue shop: dist/demo-vue, served by the demo server at /vue/ on the origin of the widget API (/api).
// Vue 3 + TypeScript single-file components; <kasir-checkout> is a custom element to Vue's compiler.
// `vite -c demo/vue/vite.config.ts` serves it for development, proxying /api to `npm start` on port 3000.
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const backend = process.env.KASIR_DEMO_BACKEND ?? 'http://localhost:3000';

export default defineConfig({
  root: here('.'),
  base: '/vue/',
  publicDir: here('../public'),
  logLevel: 'warn',
  plugins: [vue({ template: { compilerOptions: { isCustomElement } } })],
  server: { proxy: { '/api': backend, '/shop': backend } },
  build: { outDir: here('../../dist/demo-vue'), emptyOutDir: true, target: 'es2021' },
});
