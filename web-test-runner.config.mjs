// Widget tests with TypeScript compiled by esbuild, in the browsers KASIR_BROWSERS names (chromium, firefox, webkit;
// Chromium alone when unset). `npm run test:widget` runs each of the three in turn (docs/browsers.md).
import { esbuildPlugin } from '@web/dev-server-esbuild';
import { playwrightLauncher } from '@web/test-runner-playwright';
import { WebdriverLauncher } from '@web/test-runner-webdriver';
import { chromiumPath, startWebKitDriver, wantedBrowsers, webkitCapabilities } from './test/support/browsers.mjs';
import { FirefoxLauncher } from './test/support/firefox-launcher.mjs';
import { keyboardPlugin } from './test/support/keyboard-plugin.mjs';
import { reactAsEsm } from './test/support/react-esm.mjs';

const chromiumArgs = [
  '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--disable-quic', '--no-first-run',
];

/** WebKit through WebKitWebDriver, which this launcher starts (with an Xvfb) on a spare port and stops at the end. */
class WebKitLauncher extends WebdriverLauncher {
  constructor() {
    super({ capabilities: webkitCapabilities(), hostname: '127.0.0.1', logLevel: 'error' });
  }

  async initialize(config, testFiles) {
    this.webkitDriver = await startWebKitDriver();
    this.options.port = this.webkitDriver.port;
    await super.initialize(config, testFiles);
    this.name = 'WebKit';
  }

  async stop() {
    await super.stop();
    await this.webkitDriver?.stop();
  }
}

const launchers = {
  chromium: () => playwrightLauncher({ product: 'chromium', launchOptions: { executablePath: chromiumPath, headless: true, args: chromiumArgs } }),
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
  testFramework: { config: { timeout: 10_000 } },
};
