// Types of browsers.mjs (plain JavaScript, so web-test-runner's config loads it as is; the e2e tests use it too).
export type BrowserName = 'chromium' | 'firefox' | 'webkit';
export const chromiumPath: string;
export const firefoxPath: string;
export const webkitDriverPath: string;
export const miniBrowserPath: string;
export const allBrowsers: readonly BrowserName[];
export function wantedBrowsers(fallback?: readonly BrowserName[]): BrowserName[];
export function missingFor(browser: BrowserName): Array<{ path: string; pkg: string }>;
export function firefoxLaunchOptions(): { browser: 'firefox'; executablePath: string; headless: true };
export function webkitCapabilities(): {
  browserName: 'MiniBrowser';
  'wdio:enforceWebDriverClassic': true;
  'webkitgtk:browserOptions': { binary: string; args: string[] };
};
export function sparePort(): Promise<number>;
export function startWebKitDriver(): Promise<{ port: number; url: string; stop(): Promise<void> }>;
