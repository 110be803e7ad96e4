// How the tests start the kasir-sandbox and kasir-merchant commands: through tsx from their sources, or, in a run whose
// build just compiled them (`npm test` sets KASIR_TEST_BUILT=1: test/support/run-suites.mjs), their compiled bins,
// which start in a fraction of tsx's time.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const COMMANDS = {
  'kasir-sandbox': { source: 'server/provider/cli.ts', built: 'server/provider/dist/provider/cli.js' },
  'kasir-merchant': { source: 'server/merchant/cli.ts', built: 'server/merchant/dist/merchant/cli.js' },
};

/** The arguments for `process.execPath` that run `command` (its arguments follow). */
export function commandArgs(command: keyof typeof COMMANDS): string[] {
  const { source, built } = COMMANDS[command];
  return process.env.KASIR_TEST_BUILT === '1' ? [join(ROOT, built)] : ['--import', 'tsx', join(ROOT, source)];
}
