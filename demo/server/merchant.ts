// `npm run start:merchant`: the demo shop alone, against any payment service configured by env (DESIGN.md section 2).
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
const shutdown = () => merchant.stop().finally(() => process.exit(0));
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
