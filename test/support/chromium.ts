// How every browser test here launches Chromium: Debian's binary, headless, with the flags that keep it
// from stalling on a closed network.
export const chromiumPath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
export const chromiumArgs = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--no-first-run',
];
