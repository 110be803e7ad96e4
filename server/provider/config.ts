// The sandbox's configuration: startSandbox's options, each backed by the environment variable the kasir-sandbox
// bin reads (README, Configuration). An option given in code wins over its variable; a variable wins over the
// default. A bad value is an error naming the option or the variable it came from, raised before anything listens.
import { accessSync, constants, mkdirSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { LogLevel } from '../common/log.js';
import { DEFAULT_PRICES_IDR, type RateTable } from './catalog/rates.js';

/** Deposit validity per payment kind, in seconds. */
export interface ExpirySeconds {
  /** Virtual accounts (default 86400: 24 h). */
  va: number;
  /** Bank transfer (default 86400: 24 h). */
  bank: number;
  /** QRIS (default 1800: 30 min). */
  qris: number;
  /** E-wallets (default 900: 15 min). */
  ewallet: number;
  /** Crypto (default 3600: 60 min). */
  crypto: number;
}

/** Options of `startSandbox`. Every one is optional; an unset one comes from the environment variable named, then the default. */
export interface SandboxOptions {
  /** Port to listen on. `PROVIDER_PORT`, else 4010; 0 picks a free port (read it from `RunningSandbox.port`). */
  port?: number;
  /**
   * Interface to listen on. `PROVIDER_HOST`, else loopback only (`127.0.0.1`): a sandbox takes any sign-up and sends
   * webhooks to loopback, so it is not for other machines unless asked (`0.0.0.0`, `kasir-sandbox start --host 0.0.0.0`).
   */
  host?: string;
  /** The service's public origin, written to sandbox.json as `baseUrl`. `KASIR_PROVIDER_PUBLIC_URL`, else `http://localhost:<port>`. */
  baseUrl?: string;
  /** Where the SQLite file, the token key and sandbox.json live. `KASIR_DATA_DIR`, else `./.kasir`. Created when missing. */
  dataDir?: string;
  /** `postgres://...` keeps the state in PostgreSQL instead of the SQLite file. `DATABASE_URL`, else none. */
  databaseUrl?: string;
  /**
   * The seeded merchant's webhook URL, set on every start. `KASIR_WEBHOOK_URL`, else the merchant backend's receiver
   * (`http://localhost:<PORT or 3000>/api/webhooks/kasir`, which then leaves a URL set in the dashboard alone).
   */
  webhookUrl?: string;
  /** Sandbox-only endpoints (status update, mailbox, e-wallet approval page). `KASIR_SANDBOX` (`true`/`false`), else true. */
  sandbox?: boolean;
  /** Send OTP mail through SMTP (`smtp://` or `smtps://`). `SMTP_URL`, else the sandbox mailbox. */
  smtpUrl?: string;
  /** scrypt cost N for passwords, a power of two. `KASIR_SCRYPT_N`, else 131072; a test suite wants 1024. */
  scryptN?: number;
  /** Deposit validity per kind, in seconds. `KASIR_EXPIRY_{VA,BANK,QRIS,EWALLET,CRYPTO}_SECONDS`. */
  expirySeconds?: Partial<ExpirySeconds>;
  /** How often overdue deposits are expired, in ms. `KASIR_SWEEP_INTERVAL_MS`, else 5000. */
  sweepIntervalMs?: number;
  /**
   * Prices in IDR laid over the built-in rate table, e.g. `{ USD: '16500' }` (decimal strings or numbers, positive).
   * `KASIR_SANDBOX_RATES` (the same as JSON), else the built-in table alone.
   */
  rates?: Record<string, string | number>;
  /** Per-attempt timeout of a webhook POST, in ms. `KASIR_WEBHOOK_TIMEOUT_MS`, else 10000. */
  webhookTimeoutMs?: number;
  /**
   * The seeded merchant's underpayment tolerance, a percentage of the amount due from 0 to 100 (DESIGN.md 10): a payment
   * short by no more completes the deposit. Set on every start when given; `KASIR_UNDERPAYMENT_TOLERANCE`, else the
   * dashboard's setting (0 at first).
   */
  underpaymentTolerance?: number | string;
  /**
   * Deliver webhooks from the start (default true). With false, deliveries wait (in the outbox) until
   * `RunningSandbox.startDelivery()`: a process that starts the sandbox before the merchant backend it delivers to
   * (`npm start`) calls it once that backend listens, so the first webhooks do not go to retry.
   */
  deliverWebhooks?: boolean;
  /**
   * Log lines on stdout from this level (`trace` to `fatal`, or `silent`). `KASIR_LOG_LEVEL`, else `silent` but for
   * the one line per webhook delivery attempt: a library in a shop's test suite shows its deliveries and nothing
   * else (the kasir-sandbox command logs at `info`). Readable lines on a terminal, JSON otherwise.
   */
  logLevel?: LogLevel;
  /** The service's clock (deposit expiry, signed-request timestamps, tokens). Default: the system clock. */
  now?: () => Date;
  /** Where unset options are read from. Default `process.env`; pass `{}` to ignore the environment. */
  env?: Record<string, string | undefined>;
}

/** The resolved configuration every part of the service reads (as `deps.config`). */
export interface ProviderConfig {
  port: number;
  host: string;
  dataDir: string;
  /** Public origin of the service, e.g. http://localhost:4010 (the interface's {base_url}). */
  baseUrl: string;
  /** True in the sandbox: enables PATCH /v1/deposit/:id, the mailbox and the e-wallet approval page. */
  sandbox: boolean;
  /** When set (postgres://...), the service uses PostgreSQL instead of the embedded SQLite file. */
  databaseUrl?: string;
  /** The seeded merchant's webhook URL (DESIGN.md section 2). */
  webhookUrl: string;
  /** True when webhookUrl was given (option or KASIR_WEBHOOK_URL): it then replaces one set in the dashboard. */
  webhookUrlExplicit: boolean;
  /** scrypt cost parameter N (2^17 in production; tests lower it). */
  scryptN: number;
  expirySeconds: ExpirySeconds;
  /** How often the expiry sweeper runs, in ms. */
  sweepIntervalMs: number;
  /** The rate table: each currency's price in IDR (the built-in table with the `rates` overrides). */
  rates: RateTable;
  smtpUrl?: string;
  webhookTimeoutMs: number;
  logLevel: LogLevel;
  /** The level of the webhook delivery lines: logLevel when one was given, else info (they show by default). */
  deliveryLogLevel: LogLevel;
  /** The seeded merchant's underpayment tolerance (percent, decimal text), when given. */
  underpaymentTolerance?: string;
}

/** A bad option or environment variable; `setting` is its name as the caller wrote it (`port`, `PROVIDER_PORT`). */
export class SandboxConfigError extends Error {
  override name = 'SandboxConfigError';
  constructor(readonly setting: string, problem: string, value?: unknown) {
    super(`Invalid ${setting}: ${problem}${value === undefined ? '' : `; got ${JSON.stringify(value) ?? String(value)}`}`);
  }
}

const OPTION_NAMES: ReadonlySet<string> = new Set<keyof SandboxOptions>([
  'port', 'host', 'baseUrl', 'dataDir', 'databaseUrl', 'webhookUrl', 'sandbox', 'smtpUrl', 'scryptN', 'expirySeconds',
  'sweepIntervalMs', 'rates', 'webhookTimeoutMs', 'deliverWebhooks', 'logLevel', 'now', 'env', 'underpaymentTolerance',
]);
const LOG_LEVELS: readonly string[] = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];
const EXPIRY_KINDS = ['va', 'bank', 'qris', 'ewallet', 'crypto'] as const;
const DEFAULT_EXPIRY: ExpirySeconds = { va: 24 * 3600, bank: 24 * 3600, qris: 30 * 60, ewallet: 15 * 60, crypto: 60 * 60 };

/** A value as given: by an option (a JS value) or by an environment variable (a string). */
interface Setting {
  name: string;
  value: unknown;
  fromEnv: boolean;
}

function integer(s: Setting, min: number, max: number, problem: string): number {
  const n = s.fromEnv ? (/^\s*\d+\s*$/.test(s.value as string) ? Number(s.value) : NaN) : s.value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max) throw new SandboxConfigError(s.name, problem, s.value);
  return n;
}

function text(s: Setting): string {
  if (typeof s.value !== 'string' || !s.value.trim()) throw new SandboxConfigError(s.name, 'must be a non-empty string', s.value);
  return s.value.trim();
}

function url(s: Setting, protocols: readonly string[], problem: string): string {
  const raw = text(s);
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new SandboxConfigError(s.name, problem, s.value);
  }
  if (!protocols.includes(parsed.protocol) || !parsed.host) throw new SandboxConfigError(s.name, problem, s.value);
  return raw;
}

function boolean(s: Setting): boolean {
  if (!s.fromEnv) {
    if (typeof s.value !== 'boolean') throw new SandboxConfigError(s.name, 'must be true or false', s.value);
    return s.value;
  }
  const v = String(s.value).trim().toLowerCase();
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw new SandboxConfigError(s.name, 'must be true or false', s.value);
}

/** A percentage from 0 to 100, at most 2 decimal places, as decimal text ("2.5"). */
function percentage(s: Setting): string {
  const raw = typeof s.value === 'number' && Number.isFinite(s.value) ? String(s.value) : s.value;
  if (typeof raw !== 'string' || !/^\s*\d{1,3}(\.\d{1,2})?\s*$/.test(raw) || Number(raw) > 100) {
    throw new SandboxConfigError(s.name, 'must be a percentage from 0 to 100 (at most 2 decimal places)', s.value);
  }
  return String(Number(raw));
}

const PORT_PROBLEM = 'must be a port number from 0 to 65535 (0 picks a free port)';
const HTTP = ['http:', 'https:'];

/** Creates the data directory when missing and checks it can be written, so a bad one fails before anything starts. */
function writableDir(s: Setting): string {
  const dir = resolve(text(s));
  try {
    mkdirSync(dir, { recursive: true });
    if (!statSync(dir).isDirectory()) throw Object.assign(new Error('not a directory'), { code: 'ENOTDIR' });
    accessSync(dir, constants.W_OK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new SandboxConfigError(s.name, `cannot create or write the directory ${dir}${code ? ` (${code})` : ''}`);
  }
  return dir;
}

/**
 * The variables the service reads outside this config (auth/rate-limit.ts) are checked here too, so the bin refuses
 * a bad one at start instead of silently falling back to the default.
 */
function checkOtherVariables(env: Record<string, string | undefined>): void {
  for (const name of ['KASIR_AUTH_RATE_WINDOW_SECONDS', 'KASIR_AUTH_RATE_PER_EMAIL', 'KASIR_AUTH_RATE_PER_ADDRESS']) {
    if (env[name]) integer({ name, value: env[name], fromEnv: true }, 1, Number.MAX_SAFE_INTEGER, 'must be a positive integer');
  }
  if (env.KASIR_TRUST_PROXY) boolean({ name: 'KASIR_TRUST_PROXY', value: env.KASIR_TRUST_PROXY, fromEnv: true });
}

/** The built-in rate table with the prices of the `rates` option (an object) or KASIR_SANDBOX_RATES (JSON) laid over it. */
function rateTable(s: Setting | undefined): RateTable {
  if (!s) return DEFAULT_PRICES_IDR;
  const problem = s.fromEnv ? 'must be a JSON object of positive prices in IDR, e.g. {"USD":"16500"}' : 'must be an object of positive prices in IDR, e.g. { USD: \'16500\' }';
  let parsed: unknown = s.value;
  if (s.fromEnv) {
    try {
      parsed = JSON.parse(String(s.value));
    } catch {
      throw new SandboxConfigError(s.name, problem, s.value);
    }
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new SandboxConfigError(s.name, problem, s.value);
  const prices = Object.entries(parsed);
  const ok = prices.every(([, price]) =>
    (typeof price === 'number' && price > 0 && Number.isFinite(price)) || (typeof price === 'string' && /^\d+(\.\d+)?$/.test(price) && Number(price) > 0));
  if (!ok) throw new SandboxConfigError(s.name, problem, s.value);
  return Object.freeze({ ...DEFAULT_PRICES_IDR, ...Object.fromEntries(prices.map(([code, price]) => [code, String(price)])) });
}

/**
 * Resolves startSandbox's options against the environment into the service's configuration. Throws a
 * SandboxConfigError naming the option (`port`) or the variable (`PROVIDER_PORT`) whose value is bad. Creates the
 * data directory when it is missing; nothing else.
 */
export function resolveProviderConfig(options: SandboxOptions = {}): ProviderConfig {
  if (options === null || typeof options !== 'object') throw new SandboxConfigError('options', 'must be an object', options);
  for (const key of Object.keys(options)) {
    if (!OPTION_NAMES.has(key)) throw new SandboxConfigError('options', `unknown option "${key}" (known: ${[...OPTION_NAMES].join(', ')})`);
  }
  const env = options.env ?? process.env;
  if (typeof env !== 'object' || env === null) throw new SandboxConfigError('env', 'must be an object of environment variables', env);
  const opts = options as Record<string, unknown>;
  /** The option when given, else the variable when set (an empty variable counts as unset), else undefined. */
  const pick = (option: string, variable: string, given: unknown = opts[option]): Setting | undefined =>
    given !== undefined ? { name: option, value: given, fromEnv: false }
      : env[variable] !== undefined && env[variable] !== '' ? { name: variable, value: env[variable], fromEnv: true }
        : undefined;

  const portSetting = pick('port', 'PROVIDER_PORT');
  const port = portSetting ? integer(portSetting, 0, 65535, PORT_PROBLEM) : 4010;
  const hostSetting = pick('host', 'PROVIDER_HOST');
  const host = hostSetting ? text(hostSetting) : '127.0.0.1';
  const baseSetting = pick('baseUrl', 'KASIR_PROVIDER_PUBLIC_URL');
  // On port 0 the default base URL says :0 until the real port is known (startSandbox then fills it in).
  const baseUrl = (baseSetting ? url(baseSetting, HTTP, 'must be an http:// or https:// URL') : `http://localhost:${port}`).replace(/\/+$/, '');
  const dataSetting = pick('dataDir', 'KASIR_DATA_DIR') ?? { name: 'dataDir', value: '.kasir', fromEnv: false };
  text(dataSetting);
  const dbSetting = pick('databaseUrl', 'DATABASE_URL');
  const databaseUrl = dbSetting
    ? url(dbSetting, ['postgres:', 'postgresql:'], 'must be a postgres:// or postgresql:// URL (leave it unset for the embedded SQLite file)')
    : undefined;
  const hookSetting = pick('webhookUrl', 'KASIR_WEBHOOK_URL');
  let webhookUrl: string;
  if (hookSetting) {
    webhookUrl = url(hookSetting, HTTP, 'must be an http:// or https:// URL');
  } else {
    const merchantPort = pick('', 'PORT', undefined);
    webhookUrl = `http://localhost:${merchantPort ? integer(merchantPort, 1, 65535, 'must be a port number from 1 to 65535') : 3000}/api/webhooks/kasir`;
  }
  const sandboxSetting = pick('sandbox', 'KASIR_SANDBOX');
  const smtpSetting = pick('smtpUrl', 'SMTP_URL');
  const scryptSetting = pick('scryptN', 'KASIR_SCRYPT_N');
  const scryptN = scryptSetting ? integer(scryptSetting, 2, 2 ** 20, 'must be a power of two from 2 to 1048576') : 2 ** 17;
  if ((scryptN & (scryptN - 1)) !== 0) throw new SandboxConfigError(scryptSetting!.name, 'must be a power of two from 2 to 1048576', scryptSetting!.value);

  const expiryOption = options.expirySeconds;
  if (expiryOption !== undefined && (expiryOption === null || typeof expiryOption !== 'object')) {
    throw new SandboxConfigError('expirySeconds', `must be an object with any of ${EXPIRY_KINDS.join(', ')}`, expiryOption);
  }
  for (const key of Object.keys(expiryOption ?? {})) {
    if (!(EXPIRY_KINDS as readonly string[]).includes(key)) throw new SandboxConfigError('expirySeconds', `unknown kind "${key}" (known: ${EXPIRY_KINDS.join(', ')})`);
  }
  const expirySeconds = { ...DEFAULT_EXPIRY };
  for (const kind of EXPIRY_KINDS) {
    const s = pick(`expirySeconds.${kind}`, `KASIR_EXPIRY_${kind.toUpperCase()}_SECONDS`, expiryOption?.[kind]);
    if (s) expirySeconds[kind] = integer(s, 1, 10 * 365 * 24 * 3600, 'must be a positive whole number of seconds');
  }
  const sweepSetting = pick('sweepIntervalMs', 'KASIR_SWEEP_INTERVAL_MS');
  const sweepIntervalMs = sweepSetting ? integer(sweepSetting, 1, 2 ** 31 - 1, 'must be a positive whole number of milliseconds') : 5_000;
  const webhookTimeoutSetting = pick('webhookTimeoutMs', 'KASIR_WEBHOOK_TIMEOUT_MS');
  const webhookTimeoutMs = webhookTimeoutSetting ? integer(webhookTimeoutSetting, 1, 10 * 60_000, 'must be a whole number of milliseconds from 1 to 600000') : 10_000;
  if (options.deliverWebhooks !== undefined) boolean({ name: 'deliverWebhooks', value: options.deliverWebhooks, fromEnv: false });
  const logSetting = pick('logLevel', 'KASIR_LOG_LEVEL');
  const logLevel = logSetting ? String(logSetting.value).trim().toLowerCase() : 'silent';
  if (!LOG_LEVELS.includes(logLevel)) throw new SandboxConfigError(logSetting!.name, `must be one of ${LOG_LEVELS.join(', ')}`, logSetting!.value);
  if (options.now !== undefined && typeof options.now !== 'function') throw new SandboxConfigError('now', 'must be a function returning a Date', options.now);
  checkOtherVariables(env);
  const rates = rateTable(pick('rates', 'KASIR_SANDBOX_RATES'));
  const toleranceSetting = pick('underpaymentTolerance', 'KASIR_UNDERPAYMENT_TOLERANCE');
  const underpaymentTolerance = toleranceSetting ? percentage(toleranceSetting) : undefined;
  // Last, once every value is known good: a bad option leaves no directory behind.
  const dataDir = writableDir(dataSetting);

  return {
    port,
    host,
    dataDir,
    baseUrl,
    sandbox: sandboxSetting ? boolean(sandboxSetting) : true,
    databaseUrl,
    webhookUrl,
    webhookUrlExplicit: !!hookSetting,
    scryptN,
    expirySeconds,
    sweepIntervalMs,
    rates,
    smtpUrl: smtpSetting ? url(smtpSetting, ['smtp:', 'smtps:'], 'must be an smtp:// or smtps:// URL') : undefined,
    webhookTimeoutMs,
    logLevel: logLevel as LogLevel,
    deliveryLogLevel: (logSetting ? logLevel : 'info') as LogLevel,
    underpaymentTolerance,
  };
}
