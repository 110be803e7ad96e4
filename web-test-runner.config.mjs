// Widget tests: real Chromium (Debian's), driven by Playwright, with TypeScript compiled by esbuild.
import { esbuildPlugin } from '@web/dev-server-esbuild';
import { playwrightLauncher } from '@web/test-runner-playwright';
import { reactAsEsm } from './test/support/react-esm.mjs';

const executablePath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const args = [
  '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--disable-quic', '--no-first-run',
];

export default {
  files: 'test/widget/**/*.test.ts',
  nodeResolve: true,
  concurrency: 1,
  testsFinishTimeout: 180_000,
  plugins: [esbuildPlugin({ ts: true, tsconfig: './tsconfig.json', target: 'es2021' }), reactAsEsm()],
  browsers: [playwrightLauncher({ product: 'chromium', launchOptions: { executablePath, headless: true, args } })],
  testFramework: { config: { timeout: 10_000 } },
};
