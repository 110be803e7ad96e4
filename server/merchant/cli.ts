#!/usr/bin/env node
// kasir-merchant: the merchant backend from the environment (docs/design.md, "Running it"): the widget API and the
// webhook receiver under /api and the widget at /kasir-checkout.js. A bad variable is one line naming it, and exit
// code 1. Logs are JSON lines (pino) on stdout; SIGTERM or SIGINT stops it gracefully.
import { existsSync } from 'node:fs';
import { createLogger, LogLevelError, type Logger } from '../common/log.js';
import { ConfigError, loadMerchantConfig } from './config.js';
import { COMMANDS_USAGE, isCommand, runCommand } from './commands/subcommands.js';
import { reconcileCommand, RECONCILE_USAGE } from './commands/reconcile-command.js';
import type { CompletedDeposit } from './hooks.js';
import { startMerchant } from './server.js';

const USAGE = `Usage: kasir-merchant
Serves the kasir widget API at /api, the webhook receiver at /api/webhooks/kasir, the widget at /kasir-checkout.js
(when @kasir/checkout is installed) and the probes /healthz and /readyz.
Environment: KASIR_BASE_URL, KASIR_CLIENT_ID, KASIR_CLIENT_SECRET, KASIR_ACCESS_TOKEN, KASIR_WEBHOOK_SECRET (required;
\`kasir-sandbox env\` prints a sandbox's); KASIR_CHECKOUT_URL, KASIR_ALLOWED_ORIGINS, KASIR_FEES_PAID_BY, KASIR_SANDBOX,
KASIR_CURRENCIES, KASIR_CHECKOUT_RATE_LIMIT, KASIR_TRANSFER_RATE_LIMIT, KASIR_STATUS_REFRESH_MS, KASIR_WEBHOOK_TOLERANCE_SECONDS, KASIR_TRUST_PROXY,
KASIR_SSE_MAX_PER_ADDRESS (10), KASIR_SSE_MAX_TOTAL (10000), REDIS_URL (several copies), KASIR_REDIS_PREFIX (kasir:), KASIR_REDIS_TIMEOUT_MS (300),
KASIR_DATA_DIR (./.kasir; without Redis, its state in KASIR_DATA_DIR/merchant/), KASIR_LOG_LEVEL (info), PORT (3000),
HOST, KASIR_METRICS (GET /metrics for Prometheus), KASIR_METRICS_TOKEN (its bearer token), KASIR_FOLLOW_MS (20000).
Each is described in the @kasir/merchant README, "Options and environment". A .env in the working directory is read
first (variables already set win).

${COMMANDS_USAGE}`;

// A .env in the working directory is read first (what `kasir-sandbox env > .env` wrote); a variable already set wins.
if (existsSync('.env')) {
  try {
    process.loadEnvFile('.env');
  } catch (err) {
    console.error(`[kasir-merchant] .env: ${(err as Error).message}`);
    process.exit(1);
  }
}

// `kasir-merchant check`, `deposits`, `login` (commands/subcommands.ts): one task, then exit.
if (isCommand(process.argv[2])) {
  const code = await runCommand(process.argv[2], process.argv.slice(3));
  await new Promise((resolve) => process.stdout.write('', resolve)); // what it printed is out before the exit
  process.exit(code);
}

if (process.argv.includes('--help') || process.argv.includes('-h')) {
  console.log(process.argv[2] === 'reconcile' ? RECONCILE_USAGE : `${USAGE}\n\n${RECONCILE_USAGE}`);
  process.exit(0);
}

let log: Logger;
let completions: Logger;
let options;
try {
  log = createLogger('kasir-merchant');
  // Completions go straight to stdout (synchronous for files and pipes), not through the log's buffer: a killed
  // process must not lose the line of a hook that ran.
  completions = createLogger('kasir-merchant', { destination: process.stdout });
  options = loadMerchantConfig();
} catch (err) {
  if (!(err instanceof ConfigError) && !(err instanceof LogLevelError)) throw err;
  console.error(`[kasir-merchant] ${err.message}`);
  process.exit(1);
}
const hooks = {
  onDepositCompleted: ({ checkoutId, orderId, deposit, eventId, paidAmount }: CompletedDeposit) => {
    // What arrived, as exact decimal text (the service's inputAmount is a JSON number: 9.093665 would lose digits).
    completions.info(
      { checkoutId, orderId, webhookId: eventId, paidAmount, currency: deposit.inputCurrency },
      'deposit completed',
    );
  },
};
// `kasir-merchant reconcile`: the same settings, once, then exit; the shop's hooks only from a module it names (--hooks).
if (process.argv[2] === 'reconcile') process.exit(await reconcileCommand(process.argv.slice(3), options, log));
const merchant = await startMerchant({
  ...options,
  logger: log,
  ...hooks,
}).catch((err: NodeJS.ErrnoException) => {
  console.error(`[kasir-merchant] cannot listen on port ${options.port}: ${err.code ?? err.message}`);
  process.exit(1);
});
log.info(
  { url: merchant.url, baseUrl: options.baseUrl, sandbox: options.sandbox, redis: !!options.redisUrl },
  `widget API on ${merchant.url}/api, widget at ${merchant.url}/kasir-checkout.js`,
);
const shutdown = (signal: string) => {
  log.info({ signal }, 'stopping');
  void merchant.stop().finally(() => log.flush(() => process.exit(0)));
};
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
