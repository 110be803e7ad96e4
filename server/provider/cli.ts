#!/usr/bin/env node
// kasir-sandbox: the payment-service sandbox from the environment (DESIGN.md section 2). Writes sandbox.json in
// KASIR_DATA_DIR; a bad variable is one line naming it, and exit code 1.
import { join } from 'node:path';
import { resolveProviderConfig, SandboxConfigError } from './config.js';
import type { RunningSandbox } from './main.js';

const USAGE = `Usage: kasir-sandbox [--help]
Starts the kasir payment-service sandbox: the /v1 API, the hosted checkout (/checkout/:id), the dashboard
(/dashboard) and the API docs (/docs). On first start it seeds a merchant account and writes its credentials to
$KASIR_DATA_DIR/sandbox.json; a restart on the same data keeps them.

Environment:
  PROVIDER_PORT                port to listen on (4010; 0 picks a free one)
  PROVIDER_HOST                interface to listen on (0.0.0.0)
  KASIR_DATA_DIR               SQLite database, token key and sandbox.json (./.kasir)
  DATABASE_URL                 postgres://... keeps the state in PostgreSQL instead of SQLite
  KASIR_WEBHOOK_URL            the seeded merchant's webhook URL (http://localhost:$PORT/api/webhooks/kasir)
  KASIR_PROVIDER_PUBLIC_URL    the public origin written to sandbox.json (http://localhost:$PROVIDER_PORT)
  SMTP_URL                     send OTP mail through SMTP (default: the sandbox mailbox, /sandbox/mailbox)
  KASIR_SANDBOX                false turns off the sandbox-only endpoints (true)
  KASIR_SCRYPT_N               scrypt cost for passwords, a power of two (131072)
  KASIR_EXPIRY_{VA,BANK,QRIS,EWALLET,CRYPTO}_SECONDS   deposit validity (86400, 86400, 1800, 900, 3600)
  KASIR_SWEEP_INTERVAL_MS      how often overdue deposits expire (5000)
  KASIR_SANDBOX_RATES          JSON prices in IDR overriding the rate table, e.g. {"USD":"16500"}
  KASIR_AUTH_RATE_{WINDOW_SECONDS,PER_EMAIL,PER_ADDRESS}  auth rate limits (900, 20, 200)
  KASIR_TRUST_PROXY            take the client address from X-Forwarded-For (false)
  KASIR_WEBHOOK_TIMEOUT_MS     per-attempt timeout of a webhook POST (10000)
  KASIR_LOG_LEVEL              JSON log lines on stdout from this level: trace, debug, info, warn, error, fatal, silent (info)

With DATABASE_URL, any number of copies (each its own PROVIDER_PORT and KASIR_DATA_DIR) serve one service.
SIGTERM or SIGINT stops gracefully: no new connections, requests and webhook deliveries in flight finish (up to 5 s).`;

const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  console.log(USAGE);
  process.exit(0);
}
if (args.length > 0) {
  console.error(`[kasir-sandbox] unknown argument ${args[0]}; it is configured by environment variables (kasir-sandbox --help)`);
  process.exit(1);
}

// Signals are handled from the start: one during startup stops the service as soon as it is up.
let sandbox: RunningSandbox | undefined;
let stopping: NodeJS.Signals | undefined;
const shutdown = (signal: NodeJS.Signals) => {
  if (stopping) process.exit(1); // a second Ctrl-C does not wait
  stopping = signal;
  if (!sandbox) return;
  console.log(`[kasir-sandbox] ${signal}: stopping`);
  sandbox.stop().then(() => process.exit(0), (err) => {
    console.error(`[kasir-sandbox] stop failed: ${err instanceof Error ? err.message : err}`);
    process.exit(1);
  });
};
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);

try {
  // The environment is checked before the service's modules load, so a bad variable is reported at once.
  resolveProviderConfig();
  const { startSandbox } = await import('./main.js');
  // The command logs at info unless KASIR_LOG_LEVEL says otherwise (startSandbox alone is silent by default).
  sandbox = await startSandbox({ logLevel: process.env.KASIR_LOG_LEVEL ? undefined : 'info' });
} catch (err) {
  // Configuration and environment problems (a bad variable, a port in use, a database that cannot be reached) are
  // one line; anything else is a bug and keeps its stack.
  if (err instanceof SandboxConfigError || (err as { code?: unknown } | undefined)?.code) {
    console.error(`[kasir-sandbox] ${(err as Error).message}`);
  } else {
    console.error('[kasir-sandbox] failed to start:', err);
  }
  process.exit(1);
}

if (stopping) {
  const signal = stopping;
  stopping = undefined;
  shutdown(signal);
} else {
  console.log(`[kasir-sandbox] payment service sandbox on ${sandbox.url} (dashboard ${sandbox.url}/dashboard, docs ${sandbox.url}/docs)`);
  console.log(`[kasir-sandbox] credentials in ${join(sandbox.dataDir, 'sandbox.json')}`);
}
