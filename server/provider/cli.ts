#!/usr/bin/env node
// kasir-sandbox: the payment-service sandbox from the environment (docs/design.md, "Running it" and "Seeing and testing
// an integration"), and the commands that drive a running one from a terminal (pay, expire, decline, deposits,
// webhooks, resend, env). Every error is one line naming what is wrong, and exit code 1.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { DepositView } from './deposits/view.js';
import type { RunningSandbox } from './process/main.js';
import { SandboxClient, type WebhookAttempt } from './sandbox/client.js';
import type { SandboxCredentials } from './sandbox/seed.js';
import { DEFAULT_EXPIRY_SECONDS } from './instance/defaults.js';

const USAGE = `Usage: kasir-sandbox [command] [options]

Commands:
  start                      start the sandbox (the default command; see Environment)
    --host <address>         interface to listen on (PROVIDER_HOST; 127.0.0.1; 0.0.0.0 for all interfaces)
  pay <depositId|checkoutId|latest> [--amount X] [--currency C] [--method M]
                             pay a pending deposit: what is due, or X (in its inputCurrency); latest = newest pending;
                             --method/--currency: to a method it had before a switch (its old VA, account or address)
  expire <depositId|checkoutId|latest>
                             expire a pending deposit
  decline <depositId|checkoutId|latest> [--reason R]
                             a failed attempt to pay: the deposit stays pending (R: declined, insufficient_balance,
                             timeout; declined)
  deposits [--status S] [--limit N]
                             deposits, newest first (S: pending, completed, expired; N: 10)
  webhooks [--limit N] [--follow]
                             webhook delivery attempts, newest first; --follow prints new ones as they happen
  resend <depositId>         send a deposit's last webhook again
  env                        the merchant's settings as KEY=value lines, for a .env file

Options of every command:
  --data-dir <dir>           the sandbox's data dir, where sandbox.json is (KASIR_DATA_DIR, else ./.kasir)
  --json                     answer in JSON
  -h, --help                 this text

The commands talk to the running sandbox whose sandbox.json is in the data dir, over HTTP, signed with its
credentials.

On start the sandbox serves the /v1 API, the hosted checkout (/checkout/:id), the dashboard (/dashboard) and the API
docs (/docs). On first start it seeds a merchant account and writes its credentials to sandbox.json; a restart on the
same data keeps them. A second sandbox on a data dir in use refuses to start.

Environment:
  PROVIDER_PORT                port to listen on (4010; 0 picks a free one)
  PROVIDER_HOST                interface to listen on (127.0.0.1: this machine only; 0.0.0.0: all interfaces)
  KASIR_DATA_DIR               SQLite database, token key and sandbox.json (./.kasir)
  DATABASE_URL                 postgres://... keeps the state in PostgreSQL instead of SQLite
  KASIR_WEBHOOK_URL            the seeded merchant's webhook URL (http://localhost:$PORT/api/webhooks/kasir)
  KASIR_PROVIDER_PUBLIC_URL    the public origin written to sandbox.json (http://localhost:$PROVIDER_PORT)
  SMTP_URL                     send OTP mail through SMTP (default: the sandbox mailbox, /sandbox/mailbox)
  KASIR_SANDBOX                false turns off the sandbox-only endpoints (true)
  KASIR_SCRYPT_N               scrypt cost for passwords, a power of two (131072)
  KASIR_EXPIRY_{VA,BANK,QRIS,EWALLET,CRYPTO}_SECONDS   deposit validity (${Object.values(DEFAULT_EXPIRY_SECONDS).join(', ')})
  KASIR_SWEEP_INTERVAL_MS      how often overdue deposits expire (5000)
  KASIR_SANDBOX_RATES          JSON prices in IDR overriding the rate table, e.g. {"USD":"16500"}
  KASIR_AUTH_RATE_{WINDOW_SECONDS,PER_EMAIL,PER_ADDRESS}  auth rate limits (900, 20, 200)
  KASIR_TRUST_PROXY            take the client address from X-Forwarded-For (false)
  KASIR_WEBHOOK_TIMEOUT_MS     per-attempt timeout of a webhook POST (10000)
  KASIR_METRICS                true: GET /metrics for Prometheus (false)
  KASIR_METRICS_TOKEN          with metrics on, GET /metrics needs Authorization: Bearer <token>
  KASIR_LOG_LEVEL              log lines on stdout from this level: trace, debug, info, warn, error, fatal, silent
                               (info; readable on a terminal, JSON otherwise); one line per webhook attempt

With DATABASE_URL, any number of copies (each its own PROVIDER_PORT and KASIR_DATA_DIR) serve one service.
SIGTERM or SIGINT stops gracefully: no new connections, requests and webhook deliveries in flight finish (up to 5 s).`;

/** A problem the user can fix: printed as one line, exit 1. */
class UsageError extends Error {}

const COMMON = {
  'data-dir': { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

const COMMANDS = {
  start: { options: { ...COMMON, host: { type: 'string' } }, positionals: 0 },
  pay: {
    options: { ...COMMON, amount: { type: 'string' }, currency: { type: 'string' }, method: { type: 'string' } },
    positionals: 1,
  },
  expire: { options: COMMON, positionals: 1 },
  decline: { options: { ...COMMON, reason: { type: 'string' } }, positionals: 1 },
  deposits: { options: { ...COMMON, status: { type: 'string' }, limit: { type: 'string' } }, positionals: 0 },
  webhooks: {
    options: { ...COMMON, limit: { type: 'string' }, follow: { type: 'boolean', short: 'f' } },
    positionals: 0,
  },
  resend: { options: COMMON, positionals: 1 },
  env: { options: COMMON, positionals: 0 },
} as const;
type Command = keyof typeof COMMANDS;

function parse(argv: string[]) {
  // The command is the first word that is neither an option nor an option's value: `--data-dir D pay latest` pays.
  const at = commandIndex(argv);
  const first = argv[at];
  const command = (first ?? 'start') as Command;
  if (!Object.hasOwn(COMMANDS, command))
    throw new UsageError(
      `unknown command "${first}" (commands: ${Object.keys(COMMANDS).join(', ')}; kasir-sandbox --help)`,
    );
  const spec = COMMANDS[command];
  const args = withNegativeValues(
    at < argv.length ? [...argv.slice(0, at), ...argv.slice(at + 1)] : argv,
    spec.options,
  );
  let parsed;
  try {
    parsed = parseArgs({ args, options: spec.options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError(`${command}: ${(err as Error).message.split('\n')[0]} (kasir-sandbox --help)`);
  }
  const values = parsed.values as {
    'data-dir'?: string;
    json?: boolean;
    help?: boolean;
    host?: string;
    amount?: string;
    currency?: string;
    method?: string;
    reason?: string;
    status?: string;
    limit?: string;
    follow?: boolean;
  };
  if (!values.help && parsed.positionals.length !== spec.positionals) {
    throw new UsageError(
      spec.positionals === 0
        ? `${command}: unexpected argument "${parsed.positionals[0]}" (kasir-sandbox --help)`
        : `${command}: give ${command === 'resend' ? 'a depositId' : 'a depositId, a checkout id or latest'} (kasir-sandbox ${command} <id>)`,
    );
  }
  return { command, values, id: parsed.positionals[0] };
}

/** Whether `arg` names an option that takes a value (`--amount`, not `--amount=5`) in any command. */
function takesValue(arg: string): boolean {
  if (arg.includes('=')) return false;
  return Object.values(COMMANDS).some(({ options }) =>
    Object.entries(options).some(
      ([name, option]) =>
        option.type === 'string' && (arg === `--${name}` || ('short' in option && arg === `-${option.short}`)),
    ),
  );
}

/** Where the command word is (argv.length when there is none: start). */
function commandIndex(argv: string[]): number {
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    if (arg === '--') return i + 1;
    if (!arg.startsWith('-')) return i;
    if (takesValue(arg)) i += 1;
  }
  return argv.length;
}

/**
 * `--amount -5` as `--amount=-5`: parseArgs refuses a value that starts with a dash as ambiguous, and the option's own
 * rule should say what is wrong with it.
 */
function withNegativeValues(args: string[], options: ParseArgsConfig['options']): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i]!;
    const next = args[i + 1];
    const name = arg.startsWith('--') ? arg.slice(2) : undefined;
    if (name && options?.[name]?.type === 'string' && next !== undefined && /^-\d/.test(next)) {
      out.push(`${arg}=${next}`);
      i += 1;
    } else {
      out.push(arg);
    }
  }
  return out;
}

/** --limit as a number, within bounds. */
function limitOf(value: string | undefined, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > max)
    throw new UsageError(`--limit: must be a whole number from 1 to ${max}, not "${value}"`);
  return Number(value);
}

function credentialsIn(dataDir: string): SandboxCredentials {
  const file = join(dataDir, 'sandbox.json');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new UsageError(
      `No sandbox.json in ${dataDir}: start the sandbox first (kasir-sandbox start, or npm start), or give --data-dir`,
    );
  }
  try {
    const creds = JSON.parse(text) as SandboxCredentials;
    if (
      typeof creds.baseUrl === 'string' &&
      typeof creds.clientId === 'string' &&
      typeof creds.clientSecret === 'string'
    )
      return creds;
  } catch {
    /* said below */
  }
  throw new UsageError(`${file} is not a sandbox.json written by kasir-sandbox (no baseUrl, clientId or clientSecret)`);
}

/** A table of rows under a header, columns as wide as their widest cell. */
function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]))).join('  ');
  return [line(header), ...rows.map(line)].join('\n');
}

const methodOf = (d: DepositView) => d.paymentFiat.bankCode ?? d.paymentCrypto.network ?? d.depositType;
const amountOf = (d: DepositView) => `${d.inputAmount} ${d.inputCurrency}`;

function attemptStatus(a: WebhookAttempt): string {
  if (a.status === 401 || a.status === 403)
    return `${a.status} (signature refused: the receiver must use this sandbox's webhook secret)`;
  if (a.status !== null) return String(a.status);
  return `failed: ${a.error ?? 'unknown'}`;
}
const attemptRow = (a: WebhookAttempt) => [a.time, a.event, a.depositId, a.url ?? '(none)', attemptStatus(a)];
const ATTEMPT_HEADER = ['TIME', 'EVENT', 'DEPOSIT', 'URL', 'STATUS'];

async function runCommand(
  command: Exclude<Command, 'start'>,
  values: ReturnType<typeof parse>['values'],
  id: string | undefined,
): Promise<void> {
  const dataDir = resolve(values['data-dir'] ?? (process.env.KASIR_DATA_DIR || '.kasir'));
  const creds = credentialsIn(dataDir);
  const client = new SandboxClient(creds);
  const json = values.json === true;
  const print = (data: unknown, text: string) => console.log(json ? JSON.stringify(data, null, 2) : text);

  switch (command) {
    case 'env': {
      const settings = {
        KASIR_BASE_URL: creds.baseUrl,
        KASIR_CHECKOUT_URL: creds.checkoutUrl,
        KASIR_CLIENT_ID: creds.clientId,
        KASIR_CLIENT_SECRET: creds.clientSecret,
        KASIR_ACCESS_TOKEN: creds.accessToken,
        KASIR_WEBHOOK_SECRET: creds.webhookSecret,
        // A sandbox's settings: the backend's sandbox routes on (kasir-merchant check fails it against a remote service).
        KASIR_SANDBOX: 'true',
      };
      print(
        settings,
        Object.entries(settings)
          .map(([k, v]) => `${k}=${v}`)
          .join('\n'),
      );
      return;
    }
    case 'pay': {
      if (values.amount !== undefined && !/^\d+(\.\d+)?$/.test(values.amount))
        throw new UsageError(`--amount: must be a positive decimal number like 150000 or 12.5, not "${values.amount}"`);
      const d = await client.pay(id!, { amount: values.amount, currency: values.currency, method: values.method });
      print(
        d,
        `${d.depositId}: paid ${values.amount ?? 'what was due'} (${amountOf(d)}, ${methodOf(d)}); status ${d.status}`,
      );
      return;
    }
    case 'expire': {
      const d = await client.expire(id!);
      print(d, `${d.depositId}: expired (${amountOf(d)}, ${methodOf(d)})`);
      return;
    }
    case 'decline': {
      const reason = values.reason ?? 'declined';
      if (!['declined', 'insufficient_balance', 'timeout'].includes(reason))
        throw new UsageError(`--reason: must be declined, insufficient_balance or timeout, not "${reason}"`);
      const d = await client.decline(id!, { reason });
      print(d, `${d.depositId}: payment failed (${reason}; ${amountOf(d)}, ${methodOf(d)}); status ${d.status}`);
      return;
    }
    case 'deposits': {
      const status = values.status;
      if (status !== undefined && !['pending', 'completed', 'expired'].includes(status))
        throw new UsageError(`--status: must be pending, completed or expired, not "${status}"`);
      const list = await client.deposits({
        status: status as DepositView['status'] | undefined,
        limit: limitOf(values.limit, 100),
      });
      print(
        list,
        list.length === 0
          ? 'No deposits.'
          : table(
              ['CREATED', 'DEPOSIT', 'METHOD', 'AMOUNT', 'STATUS'],
              list.map((d) => [d.createdAt, d.depositId, methodOf(d), amountOf(d), d.status]),
            ),
      );
      return;
    }
    case 'resend': {
      const queued = await client.resend(id!);
      print(queued, `${id}: its last webhook (${queued.resendOf}) is queued again as ${queued.id}`);
      return;
    }
    case 'webhooks': {
      const attempts = await client.webhooks({ limit: limitOf(values.limit, 1000) });
      if (!values.follow) {
        print(
          attempts,
          attempts.length === 0 ? 'No webhook attempts yet.' : table(ATTEMPT_HEADER, attempts.map(attemptRow)),
        );
        return;
      }
      // Following: what there is, newest first, then each new attempt as a line of its own (oldest of a poll first).
      if (json) for (const a of attempts) console.log(JSON.stringify(a));
      else
        console.log(
          attempts.length === 0
            ? `${ATTEMPT_HEADER.join('  ')}\n(waiting for webhook attempts; Ctrl-C stops)`
            : table(ATTEMPT_HEADER, attempts.map(attemptRow)),
        );
      let after = attempts.reduce((max, a) => Math.max(max, a.id), 0);
      process.once('SIGINT', () => process.exit(0));
      process.once('SIGTERM', () => process.exit(0));
      for (;;) {
        await new Promise((r) => setTimeout(r, 500));
        const fresh = await client.webhooks({ after, limit: 1000 });
        for (const a of fresh.reverse()) {
          console.log(json ? JSON.stringify(a) : attemptRow(a).join('  '));
          after = Math.max(after, a.id);
        }
      }
    }
  }
}

async function start(values: ReturnType<typeof parse>['values']): Promise<void> {
  // Signals are handled from the start: one during startup stops the service as soon as it is up.
  let sandbox: RunningSandbox | undefined;
  let stopping: NodeJS.Signals | undefined;
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1); // a second Ctrl-C does not wait
    stopping = signal;
    if (!sandbox) return;
    console.log(`[kasir-sandbox] ${signal}: stopping`);
    sandbox.stop().then(
      () => process.exit(0),
      (err) => {
        console.error(`[kasir-sandbox] stop failed: ${err instanceof Error ? err.message : err}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);

  const { resolveProviderConfig, SandboxConfigError } = await import('./instance/config.js');
  const options = {
    ...(values.host !== undefined ? { host: values.host } : {}),
    ...(values['data-dir'] !== undefined ? { dataDir: values['data-dir'] } : {}),
  };
  try {
    // The environment is checked before the service's modules load, so a bad variable is reported at once.
    resolveProviderConfig(options);
    const { startSandbox } = await import('./process/main.js');
    // The command logs at info unless KASIR_LOG_LEVEL says otherwise (startSandbox alone is silent by default).
    sandbox = await startSandbox({ ...options, logLevel: process.env.KASIR_LOG_LEVEL ? undefined : 'info' });
  } catch (err) {
    // Configuration and environment problems (a bad variable, a port in use, a data dir in use, a database that
    // cannot be reached) are one line; anything else is a bug and keeps its stack.
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
  } else if (values.json) {
    console.log(
      JSON.stringify({
        url: sandbox.url,
        dashboardUrl: `${sandbox.url}/dashboard`,
        docsUrl: `${sandbox.url}/docs`,
        credentials: join(sandbox.dataDir, 'sandbox.json'),
      }),
    );
  } else {
    console.log(
      `[kasir-sandbox] payment service sandbox on ${sandbox.url} (dashboard ${sandbox.url}/dashboard, docs ${sandbox.url}/docs)`,
    );
    console.log(
      `[kasir-sandbox] credentials in ${join(sandbox.dataDir, 'sandbox.json')} (kasir-sandbox env prints them as a .env)`,
    );
  }
}

try {
  const { command, values, id } = parse(process.argv.slice(2));
  if (values.help) {
    console.log(USAGE);
  } else if (command === 'start') {
    await start(values);
  } else {
    await runCommand(command, values, id);
  }
} catch (err) {
  const known = err instanceof UsageError || (err as Error | undefined)?.name === 'SandboxRequestError';
  const message = known
    ? (err as Error).message
    : `unexpected error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`;
  console.error(`kasir-sandbox: ${message.split('\n')[0]}`);
  process.exit(1);
}
