#!/usr/bin/env node
// `npm run test:widget`: the widget suites in each browser KASIR_BROWSERS names (all three when unset), one
// web-test-runner run per browser, in turn (the machine's cores go to one browser at a time, and each browser's
// result and time are its own). Arguments go to web-test-runner (e.g. a test file). Ends with a line per browser:
// its time and its passed/failed counts; fails if any browser failed or is missing.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { wantedBrowsers } from './browsers.mjs';
import { ensureBrowsers } from './ensure-browsers.mjs';

const browsers = wantedBrowsers();
try {
  ensureBrowsers(browsers);
} catch (err) {
  console.error(err.message);
  process.exit(1);
}

// web-test-runner's command (its package's index.mjs sits beside dist/).
const runner = fileURLToPath(new URL('dist/bin.js', import.meta.resolve('@web/test-runner')));
// web-test-runner's last progress line for a browser: "Firefox: |███| 10/10 test files | 149 passed, 14 failed".
const counts = /(\d+) passed, (\d+) failed/g;
const results = [];
for (const browser of browsers) {
  console.log(`\n[tests] widget suites in ${browser}`);
  const started = Date.now();
  const child = spawn(process.execPath, [runner, ...process.argv.slice(2)], {
    env: { ...process.env, KASIR_BROWSERS: browser },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let tail = '';
  child.stdout.on('data', (chunk) => {
    process.stdout.write(chunk);
    tail = (tail + chunk).slice(-4000);
  });
  const code = await new Promise((resolve) => child.once('close', (exitCode, signal) => resolve(exitCode ?? signal)));
  const last = [...tail.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '').matchAll(counts)].at(-1);
  results.push({
    browser,
    code,
    seconds: Math.round((Date.now() - started) / 1000),
    passed: last?.[1] ?? '?',
    failed: last?.[2] ?? '?',
  });
}

console.log('\n[tests] widget suites, by browser:');
for (const r of results) {
  console.log(
    `[tests]   ${r.browser.padEnd(8)} ${String(r.seconds).padStart(4)} s  ${r.passed} passed, ${r.failed} failed${r.code === 0 ? '' : `  (exit ${r.code})`}`,
  );
}
process.exit(results.every((r) => r.code === 0) ? 0 : 1);
