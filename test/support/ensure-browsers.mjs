#!/usr/bin/env node
// Makes sure the browsers the tests drive are on this machine (docs/browsers.md): the ones named as arguments, else
// Chromium and those KASIR_BROWSERS names (all three when unset). Test tools cannot download their own browsers here,
// so they are Debian's packages, installed with apt-get when we are allowed to (root, as in CI). A browser that is
// still missing fails the run with what to install: a browser's tests never pass by not running.
import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { allBrowsers, missingFor, wantedBrowsers } from './browsers.mjs';

export function ensureBrowsers(browsers) {
  const missingNow = () => browsers.flatMap((browser) => missingFor(browser).map((need) => ({ browser, ...need })));
  let missing = missingNow();
  if (!missing.length) return;
  const packages = [...new Set(missing.map((m) => m.pkg))];
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (isRoot && existsSync('/usr/bin/apt-get')) {
    console.log(
      `[tests] installing Debian's ${packages.join(' ')} with apt-get (${missing.map((m) => m.path).join(', ')} missing) ...`,
    );
    try {
      execSync(`apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ${packages.join(' ')}`, {
        stdio: 'inherit',
      });
    } catch {
      // the message below says what is still missing
    }
    missing = missingNow();
    if (!missing.length) return;
  }
  throw new Error(
    missing.map((m) => `[tests] ${m.browser}: no ${m.path}`).join('\n') +
      `\n[tests] Install them (Debian/Ubuntu: \`sudo apt-get install ${[...new Set(missing.map((m) => m.pkg))].join(' ')}\`), ` +
      'point CHROMIUM_PATH / FIREFOX_PATH / WEBKIT_DRIVER_PATH / MINIBROWSER_PATH at them, or leave a browser out on ' +
      'purpose with KASIR_BROWSERS (e.g. KASIR_BROWSERS=chromium,firefox).',
  );
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const named = process.argv.slice(2);
  const unknown = named.filter((n) => !allBrowsers.includes(n));
  if (unknown.length) {
    console.error(`[tests] unknown browser ${unknown.join(', ')}: the browsers are ${allBrowsers.join(', ')}`);
    process.exit(1);
  }
  try {
    ensureBrowsers(named.length ? named : [...new Set(['chromium', ...wantedBrowsers()])]);
  } catch (err) {
    console.error(err.message);
    process.exit(1);
  }
}
