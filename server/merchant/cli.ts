#!/usr/bin/env node
// kasir-merchant: the merchant backend from the environment (DESIGN.md section 2): the widget API and the webhook
// receiver under /api and the widget at /kasir-checkout.js. A bad variable is one line naming it, and exit code 1.
import { ConfigError, loadMerchantConfig } from './config.js';
import { startMerchant } from './server.js';

const USAGE = `Usage: kasir-merchant
Serves the kasir widget API at /api, the webhook receiver at /api/webhooks/kasir and the widget at /kasir-checkout.js.
Environment: KASIR_BASE_URL, KASIR_CLIENT_ID, KASIR_CLIENT_SECRET, KASIR_ACCESS_TOKEN, KASIR_WEBHOOK_SECRET (required);
KASIR_CHECKOUT_URL, KASIR_ALLOWED_ORIGINS, KASIR_FEES_PAID_BY, KASIR_SANDBOX, KASIR_CURRENCIES, KASIR_CHECKOUT_RATE_LIMIT,
KASIR_STATUS_REFRESH_MS, KASIR_WEBHOOK_TOLERANCE_SECONDS, KASIR_TRUST_PROXY, PORT (3000), HOST.`;

if (process.argv.includes('--help') || process.argv.includes('-h')) {
  console.log(USAGE);
  process.exit(0);
}

let options;
try {
  options = loadMerchantConfig();
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  console.error(`[kasir-merchant] ${err.message}`);
  process.exit(1);
}
const merchant = await startMerchant({
  ...options,
  onDepositCompleted: ({ checkoutId, orderId, deposit }) => {
    console.log(`[kasir-merchant] deposit ${checkoutId}${orderId ? ` (order ${orderId})` : ''} completed: ${deposit.inputAmount} ${deposit.inputCurrency}`);
  },
}).catch((err: NodeJS.ErrnoException) => {
  console.error(`[kasir-merchant] cannot listen on port ${options.port}: ${err.code ?? err.message}`);
  process.exit(1);
});
console.log(`[kasir-merchant] widget API on ${merchant.url}/api, widget at ${merchant.url}/kasir-checkout.js (payment service ${options.baseUrl}${options.sandbox ? ', sandbox routes on' : ''})`);
const shutdown = () => merchant.stop().finally(() => process.exit(0));
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
