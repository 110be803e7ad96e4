import { defineConfig } from 'vite';

// Builds <kasir-checkout> as one self-contained ES module (lit and the QR encoder inside),
// served by the merchant backend at /kasir-checkout.js and by the sandbox's hosted checkout page.
export default defineConfig({
  build: {
    outDir: 'dist/widget',
    emptyOutDir: true,
    target: 'es2021',
    lib: {
      entry: 'widget/index.ts',
      formats: ['es'],
      fileName: () => 'kasir-checkout.js',
    },
    rollupOptions: { output: { inlineDynamicImports: true } },
  },
});
