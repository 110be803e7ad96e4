// `npm run start:merchant`: the demo shop alone, against any payment service configured by env (docs/design.md,
// "Running it"). Any number of copies serve one shop when they share REDIS_URL (each its own PORT); SIGTERM stops one
// gracefully.
import { ConfigError, loadMerchantConfig } from '@kasir/merchant';
import { listenStorefront } from './listen.js';

let options;
try {
  options = loadMerchantConfig();
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  console.error(`[merchant] ${err.message}`);
  process.exit(1);
}
const merchant = await listenStorefront(options);
const shutdown = () => merchant.stop().finally(() => merchant.app.log.flush(() => process.exit(0)));
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
