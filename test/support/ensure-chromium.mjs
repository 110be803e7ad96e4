#!/usr/bin/env node
// Makes sure a Chromium the browser tests can drive is on this machine. Test tools cannot download
// their own browser here, so we use Debian's `chromium`, installed with apt-get when we are allowed to.
import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const path = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
if (existsSync(path)) process.exit(0);

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const hasApt = existsSync('/usr/bin/apt-get');
if (isRoot && hasApt) {
  console.log(`[tests] ${path} is missing: installing Debian's chromium with apt-get ...`);
  try {
    execSync('apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium', { stdio: 'inherit' });
  } catch {
    // fall through to the message below
  }
  if (existsSync(path)) process.exit(0);
}
console.error(
  `[tests] No Chromium at ${path}. Install one (Debian/Ubuntu: \`sudo apt-get install chromium\`) ` +
    'or point CHROMIUM_PATH at a Chromium or Chrome binary, then run the tests again.',
);
process.exit(1);
