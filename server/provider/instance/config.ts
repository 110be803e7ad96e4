// The sandbox's configuration: startSandbox's options, each backed by the environment variable the kasir-sandbox
// bin reads (README, Configuration), checked by zod schemas as the merchant's options are (server/merchant/config.ts).
// An option given in code wins over its variable (which is then not read); a variable wins over the default. Every bad
// value, each named by the option or the variable it came from, is told in one SandboxConfigError before anything listens.
import { accessSync, constants, mkdirSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { ConfigError, nearestName } from '../../common/config.js';
import type { LogLevel } from '../../common/log.js';
import { DEFAULT_EXPIRY_SECONDS, DEFAULT_PRICES_IDR, KINDS, type MethodKind, type RateTable } from './defaults.js';

/**
 * Deposit validity per kind of method (va, bank, qris, ewallet, crypto), in seconds; each kind's default is in the
 * README's Configuration table.
 */
export type ExpirySeconds = Record<MethodKind, number>;

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
   * The seeded merchant's underpayment tolerance, a percentage of the amount due from 0 to 100 (docs/design.md,
   * "Payments that do not go as planned"): a payment short by no more completes the deposit. Set on every start when
   * given; `KASIR_UNDERPAYMENT_TOLERANCE`, else the dashboard's setting (0 at first).
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
  /** Serves Prometheus metrics at `GET /metrics` (docs/observability.md). `KASIR_METRICS`, else false. */
  metrics?: boolean;
  /** With metrics on, `GET /metrics` answers only `Authorization: Bearer <token>`. `KASIR_METRICS_TOKEN`, else none. */
  metricsToken?: string;
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
  /** The seeded merchant's webhook URL (docs/design.md, "Running it"). */
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
  /** GET /metrics is served (docs/observability.md). */
  metrics: boolean;
  /** When set, GET /metrics needs `Authorization: Bearer <metricsToken>`. */
  metricsToken?: string;
}

/** One bad setting: its name as the caller wrote it (`port`, `expirySeconds.qris`, `PROVIDER_PORT`), and why. */
export interface ConfigProblem {
  setting: string;
  problem: string;
  value?: unknown;
}

/** Every bad option or environment variable of one start, each named (`Invalid port: ...; got -1`), on one line. */
export class SandboxConfigError extends ConfigError {
  override readonly name: string = 'SandboxConfigError';
  /** The first bad setting's name. */
  readonly setting: string;
  constructor(readonly problems: readonly ConfigProblem[]) {
    super(
      problems
        .map(
          ({ setting, problem, value }) =>
            `Invalid ${setting}: ${problem}${value === undefined ? '' : `; got ${JSON.stringify(value) ?? String(value)}`}`,
        )
        .join('; '),
    );
    this.setting = problems[0]?.setting ?? 'options';
  }
}

const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;

// ---- The values' schemas: each takes an option's value; a variable's text is turned into that first (fromEnv) ----

const integer = (min: number, max: number, problem: string) =>
  z.int({ error: problem }).min(min, { error: problem }).max(max, { error: problem });
const text = z.string({ error: 'must be a non-empty string' }).trim().min(1, { error: 'must be a non-empty string' });
const url = (protocols: readonly string[], problem: string) =>
  text.refine(
    (value) => {
      try {
        const parsed = new URL(value);
        return protocols.includes(parsed.protocol) && !!parsed.host;
      } catch {
        return false;
      }
    },
    { error: problem },
  );
const HTTP_URL = url(['http:', 'https:'], 'must be an http:// or https:// URL');
const flag = z.boolean({ error: 'must be true or false' });
const port = integer(0, 65535, 'must be a port number from 0 to 65535 (0 picks a free port)');
const POWER_OF_TWO = 'must be a power of two from 2 to 1048576';
const scryptN = integer(2, 2 ** 20, POWER_OF_TWO).refine((n) => (n & (n - 1)) === 0, { error: POWER_OF_TWO });
const seconds = integer(1, 10 * 365 * 24 * 3600, 'must be a positive whole number of seconds');
const positive = integer(1, Number.MAX_SAFE_INTEGER, 'must be a positive integer');
const logLevel = z.preprocess(
  (v) => String(v).trim().toLowerCase(),
  z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(', ')}` }),
);
const PERCENTAGE = 'must be a percentage from 0 to 100 (at most 2 decimal places)';
/** A percentage from 0 to 100, at most 2 decimal places, as decimal text ("2.5"). */
const percentage = z.preprocess(
  (v) => (typeof v === 'number' && Number.isFinite(v) ? String(v) : v),
  z
    .string({ error: PERCENTAGE })
    .regex(/^\s*\d{1,3}(\.\d{1,2})?\s*$/, { error: PERCENTAGE })
    .refine((v) => Number(v) <= 100, { error: PERCENTAGE })
    .transform((v) => String(Number(v))),
);
const isPrice = (price: unknown) =>
  (typeof price === 'number' && price > 0 && Number.isFinite(price)) ||
  (typeof price === 'string' && /^\d+(\.\d+)?$/.test(price) && Number(price) > 0);
/** Prices in IDR by currency code, each a positive number or decimal text. */
const prices = (problem: string) =>
  z.custom<Record<string, string | number>>(
    (v) => !!v && typeof v === 'object' && !Array.isArray(v) && Object.values(v).every(isPrice),
    { error: problem },
  );

/** A variable's text as the option's value it stands for: whole numbers and booleans are read, the rest stays text. */
const wholeNumberText = (v: unknown) => (typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : v);
const booleanText = (v: unknown) => {
  const t = String(v).trim().toLowerCase();
  return t === 'true' || t === '1' ? true : t === 'false' || t === '0' ? false : v;
};
const jsonText = (v: unknown) => {
  try {
    return JSON.parse(String(v)) as unknown;
  } catch {
    return v;
  }
};

/** startSandbox's options: strict, so a misspelled one is refused with the nearest known name. */
const optionsSchema = z.strictObject({
  port: port.optional(),
  host: text.optional(),
  baseUrl: HTTP_URL.optional(),
  dataDir: text.optional(),
  databaseUrl: url(
    ['postgres:', 'postgresql:'],
    'must be a postgres:// or postgresql:// URL (leave it unset for the embedded SQLite file)',
  ).optional(),
  webhookUrl: HTTP_URL.optional(),
  sandbox: flag.optional(),
  smtpUrl: url(['smtp:', 'smtps:'], 'must be an smtp:// or smtps:// URL').optional(),
  scryptN: scryptN.optional(),
  expirySeconds: z
    .strictObject(
      Object.fromEntries(KINDS.map((kind) => [kind, seconds.optional()])) as Record<
        keyof ExpirySeconds,
        z.ZodOptional<typeof seconds>
      >,
      { error: `must be an object with any of ${KINDS.join(', ')}` },
    )
    .optional(),
  sweepIntervalMs: integer(1, 2 ** 31 - 1, 'must be a positive whole number of milliseconds').optional(),
  rates: prices("must be an object of positive prices in IDR, e.g. { USD: '16500' }").optional(),
  webhookTimeoutMs: integer(1, 10 * 60_000, 'must be a whole number of milliseconds from 1 to 600000').optional(),
  underpaymentTolerance: percentage.optional(),
  deliverWebhooks: flag.optional(),
  logLevel: logLevel.optional(),
  metrics: flag.optional(),
  metricsToken: text.optional(),
  now: z
    .custom<() => Date>((v) => typeof v === 'function', { error: 'must be a function returning a Date' })
    .optional(),
  env: z
    .custom<Record<string, string | undefined>>((v) => typeof v === 'object' && v !== null, {
      error: 'must be an object of environment variables',
    })
    .nullish(),
});
type CheckedOptions = z.infer<typeof optionsSchema>;
const KNOWN_OPTIONS = Object.keys(optionsSchema.shape);

/**
 * The variables, each read only when its option is not given; a variable set empty counts as unset. The ones of
 * auth/rate-limit.ts and the merchant's PORT (for the default webhook URL) are checked here too, so the bin refuses a
 * bad one at start instead of silently falling back to the default.
 */
const variables = {
  PROVIDER_PORT: { option: 'port', schema: z.preprocess(wholeNumberText, port) },
  PROVIDER_HOST: { option: 'host', schema: text },
  KASIR_PROVIDER_PUBLIC_URL: { option: 'baseUrl', schema: optionsSchema.shape.baseUrl.unwrap() },
  KASIR_DATA_DIR: { option: 'dataDir', schema: text },
  DATABASE_URL: { option: 'databaseUrl', schema: optionsSchema.shape.databaseUrl.unwrap() },
  KASIR_WEBHOOK_URL: { option: 'webhookUrl', schema: HTTP_URL },
  KASIR_SANDBOX: { option: 'sandbox', schema: z.preprocess(booleanText, flag) },
  SMTP_URL: { option: 'smtpUrl', schema: optionsSchema.shape.smtpUrl.unwrap() },
  KASIR_SCRYPT_N: { option: 'scryptN', schema: z.preprocess(wholeNumberText, scryptN) },
  ...Object.fromEntries(
    KINDS.map((kind) => [
      `KASIR_EXPIRY_${kind.toUpperCase()}_SECONDS`,
      { option: `expirySeconds.${kind}`, schema: z.preprocess(wholeNumberText, seconds) },
    ]),
  ),
  KASIR_SWEEP_INTERVAL_MS: {
    option: 'sweepIntervalMs',
    schema: z.preprocess(wholeNumberText, optionsSchema.shape.sweepIntervalMs.unwrap()),
  },
  KASIR_SANDBOX_RATES: {
    option: 'rates',
    schema: z.preprocess(jsonText, prices('must be a JSON object of positive prices in IDR, e.g. {"USD":"16500"}')),
  },
  KASIR_WEBHOOK_TIMEOUT_MS: {
    option: 'webhookTimeoutMs',
    schema: z.preprocess(wholeNumberText, optionsSchema.shape.webhookTimeoutMs.unwrap()),
  },
  KASIR_UNDERPAYMENT_TOLERANCE: { option: 'underpaymentTolerance', schema: percentage },
  KASIR_LOG_LEVEL: { option: 'logLevel', schema: logLevel },
  KASIR_METRICS: { option: 'metrics', schema: z.preprocess(booleanText, flag) },
  KASIR_METRICS_TOKEN: { option: 'metricsToken', schema: text },
  PORT: {
    option: 'webhookUrl',
    schema: z.preprocess(wholeNumberText, integer(1, 65535, 'must be a port number from 1 to 65535')),
  },
  KASIR_AUTH_RATE_WINDOW_SECONDS: { schema: z.preprocess(wholeNumberText, positive) },
  KASIR_AUTH_RATE_PER_EMAIL: { schema: z.preprocess(wholeNumberText, positive) },
  KASIR_AUTH_RATE_PER_ADDRESS: { schema: z.preprocess(wholeNumberText, positive) },
  KASIR_TRUST_PROXY: { schema: z.preprocess(booleanText, flag) },
} satisfies Record<string, { option?: string; schema: z.ZodType }>;
type Variable = keyof typeof variables;

/** The value a path of the options points at, for "got ..." in a message. */
function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  return path.reduce<unknown>(
    (v, key) => (v && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[key] : undefined),
    root,
  );
}

/** The problems of a parse, each named by its path (`port`, `expirySeconds.qris`, `PROVIDER_PORT`); an unknown option with the nearest known. */
function problemsOf(error: z.ZodError, root: unknown): ConfigProblem[] {
  const named = new Set<string>();
  return error.issues.flatMap((issue): ConfigProblem[] => {
    const setting = issue.path.map(String).join('.') || 'options';
    if (issue.code !== 'unrecognized_keys') {
      // One problem per setting: the first check it failed (an empty URL is not also told it is no URL).
      if (named.has(setting)) return [];
      named.add(setting);
      return [{ setting, problem: issue.message, value: valueAt(root, issue.path) }];
    }
    return issue.keys.map((key) => {
      if (setting === 'expirySeconds')
        return { setting, problem: `unknown kind "${key}" (known: ${KINDS.join(', ')})` };
      const near = nearestName(key, KNOWN_OPTIONS);
      return {
        setting,
        problem: `unknown option "${key}" (${near ? `did you mean ${near}?` : `known: ${KNOWN_OPTIONS.join(', ')}`})`,
      };
    });
  });
}

/** The given options and the variables they leave to the environment, every problem of both at once. */
function checkSettings(options: unknown): { options: CheckedOptions; env: Partial<Record<Variable, unknown>> } {
  if (options === null || typeof options !== 'object' || Array.isArray(options))
    throw new SandboxConfigError([{ setting: 'options', problem: 'must be an object', value: options }]);
  const parsed = optionsSchema.safeParse(options);
  const problems = parsed.success ? [] : problemsOf(parsed.error, options);
  const given = options as Record<string, unknown>;
  const env = given.env ?? process.env;
  const fromEnv: Partial<Record<Variable, unknown>> = {};
  if (typeof env === 'object' && env !== null) {
    const envValues = env as Record<string, unknown>;
    const isGiven = (option: string) => valueAt(given, option.split('.')) !== undefined;
    const read = Object.fromEntries(
      Object.entries(variables)
        .filter(
          ([name, v]) =>
            (!('option' in v) || !isGiven(v.option)) && envValues[name] !== undefined && envValues[name] !== '',
        )
        .map(([name]) => [name, envValues[name]]),
    );
    // PORT only makes the default webhook URL: not read when KASIR_WEBHOOK_URL gives one.
    if (read.KASIR_WEBHOOK_URL !== undefined) delete read.PORT;
    const envSchema = z.object(
      Object.fromEntries(Object.keys(read).map((name) => [name, variables[name as Variable].schema])),
    );
    const checked = envSchema.safeParse(read);
    if (checked.success) Object.assign(fromEnv, checked.data);
    else problems.push(...problemsOf(checked.error, read));
  }
  if (problems.length || !parsed.success) throw new SandboxConfigError(problems);
  return { options: parsed.data, env: fromEnv };
}

/** Creates the data directory when missing and checks it can be written, so a bad one fails before anything starts. */
function writableDir(setting: string, value: string): string {
  const dir = resolve(value);
  try {
    mkdirSync(dir, { recursive: true });
    if (!statSync(dir).isDirectory()) throw Object.assign(new Error('not a directory'), { code: 'ENOTDIR' });
    accessSync(dir, constants.W_OK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new SandboxConfigError([
      { setting, problem: `cannot create or write the directory ${dir}${code ? ` (${code})` : ''}` },
    ]);
  }
  return dir;
}

/**
 * Resolves startSandbox's options against the environment into the service's configuration. Throws a
 * SandboxConfigError naming every option (`port`) or variable (`PROVIDER_PORT`) whose value is bad. Creates the data
 * directory when it is missing; nothing else.
 */
export function resolveProviderConfig(options: SandboxOptions = {}): ProviderConfig {
  const { options: o, env } = checkSettings(options);
  /** The option when given, else its variable when set, else undefined. */
  const pick = <K extends keyof CheckedOptions, V extends Variable>(option: K, variable: V) =>
    (o[option] ?? env[variable]) as Exclude<CheckedOptions[K], undefined> | undefined;
  const portNumber = pick('port', 'PROVIDER_PORT') ?? 4010;
  const webhookUrl = pick('webhookUrl', 'KASIR_WEBHOOK_URL');
  const expirySeconds: ExpirySeconds = { ...DEFAULT_EXPIRY_SECONDS };
  for (const kind of KINDS) {
    const value = o.expirySeconds?.[kind] ?? env[`KASIR_EXPIRY_${kind.toUpperCase()}_SECONDS` as Variable];
    if (value !== undefined) expirySeconds[kind] = value as number;
  }
  const rates = pick('rates', 'KASIR_SANDBOX_RATES');
  const level = pick('logLevel', 'KASIR_LOG_LEVEL');
  // Last, once every value is known good: a bad option leaves no directory behind.
  const dataDir =
    o.dataDir !== undefined
      ? writableDir('dataDir', o.dataDir)
      : env.KASIR_DATA_DIR !== undefined
        ? writableDir('KASIR_DATA_DIR', env.KASIR_DATA_DIR as string)
        : writableDir('dataDir', '.kasir');

  return {
    port: portNumber,
    host: pick('host', 'PROVIDER_HOST') ?? '127.0.0.1',
    dataDir,
    // On port 0 the default base URL says :0 until the real port is known (startSandbox then fills it in).
    baseUrl: (pick('baseUrl', 'KASIR_PROVIDER_PUBLIC_URL') ?? `http://localhost:${portNumber}`).replace(/\/+$/, ''),
    sandbox: pick('sandbox', 'KASIR_SANDBOX') ?? true,
    databaseUrl: pick('databaseUrl', 'DATABASE_URL'),
    webhookUrl: webhookUrl ?? `http://localhost:${(env.PORT as number | undefined) ?? 3000}/api/webhooks/kasir`,
    webhookUrlExplicit: webhookUrl !== undefined,
    scryptN: pick('scryptN', 'KASIR_SCRYPT_N') ?? 2 ** 17,
    expirySeconds,
    sweepIntervalMs: pick('sweepIntervalMs', 'KASIR_SWEEP_INTERVAL_MS') ?? 5_000,
    rates: rates
      ? Object.freeze({
          ...DEFAULT_PRICES_IDR,
          ...Object.fromEntries(Object.entries(rates).map(([code, price]) => [code, String(price)])),
        })
      : DEFAULT_PRICES_IDR,
    smtpUrl: pick('smtpUrl', 'SMTP_URL'),
    webhookTimeoutMs: pick('webhookTimeoutMs', 'KASIR_WEBHOOK_TIMEOUT_MS') ?? 10_000,
    logLevel: level ?? 'silent',
    deliveryLogLevel: level ?? 'info',
    underpaymentTolerance: pick('underpaymentTolerance', 'KASIR_UNDERPAYMENT_TOLERANCE'),
    metrics: pick('metrics', 'KASIR_METRICS') ?? false,
    metricsToken: pick('metricsToken', 'KASIR_METRICS_TOKEN'),
  };
}
