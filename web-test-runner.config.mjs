// Widget tests with TypeScript compiled by esbuild, in the browsers KASIR_BROWSERS names (chromium, firefox, webkit;
// Chromium alone when unset). `npm run test:widget` runs each of the three in turn (docs/browsers.md).
import { esbuildPlugin } from '@web/dev-server-esbuild';
import { playwrightLauncher } from '@web/test-runner-playwright';
import { chromiumPath, wantedBrowsers } from './test/support/browsers.mjs';
import { FirefoxLauncher } from './test/support/firefox-launcher.mjs';
import { keyboardPlugin } from './test/support/keyboard-plugin.mjs';
import { reactAsEsm } from './test/support/react-esm.mjs';
import { WebKitLauncher } from './test/support/webkit-launcher.mjs';

const chromiumArgs = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--no-first-run',
];

const launchers = {
  chromium: () =>
    playwrightLauncher({
      product: 'chromium',
      launchOptions: { executablePath: chromiumPath, headless: true, args: chromiumArgs },
    }),
  firefox: () => new FirefoxLauncher(),
  webkit: () => new WebKitLauncher(),
};

export default {
  files: 'test/widget/**/*.test.ts',
  nodeResolve: true,
  concurrency: 1,
  testsFinishTimeout: 180_000,
  plugins: [esbuildPlugin({ ts: true, tsconfig: './tsconfig.json', target: 'es2021' }), reactAsEsm(), keyboardPlugin()],
  browsers: wantedBrowsers(['chromium']).map((name) => launchers[name]()),
  testFramework: { config: { timeout: 20_000 } },
};
