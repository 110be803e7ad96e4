// The merchant backend's options: what a shop passes to createKasirApi (KasirApiOptions), checked once into the
// settings the backend runs on (MerchantConfig), and the same read from the environment (docs/design.md, "Running it")
// by the kasir-merchant command. Every problem names the option (or the variable) it is about, before the first
// request.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { ConfigError, nearestName } from '../common/config.js';
import type { Logger } from '../common/log.js';
import { WEBHOOK_SECRET_FORMAT } from '../common/standard-webhooks.js';
import type { MerchantHooks } from './hooks.js';
import {
  CONNECTION_VARIABLES,
  ENV_SETTINGS,
  readEnvironment,
  variableOf,
  type ConnectionName,
  type EnvName,
  type EnvSetting,
} from './env.js';
import type { RequestSigner } from './client/signing.js';
import { FEE_KINDS, QRIS_NEVER_SURCHARGED, type FeesPaidByOption } from '../common/fee-policy.js';

/**
 * What `createKasirApi` takes (docs/design.md, "Packages"): its options as their schema below reads them, and the
 * merchant's hooks. Only the connection to the payment service is required. An option is one entry of the schema.
 */
export type KasirApiOptions = MerchantHooks & Partial<Omit<z.output<typeof optionsSchema>, keyof MerchantHooks>>;

/** The checked settings the backend runs on: every option present, URLs without a trailing slash. */
export interface MerchantConfig {
  readonly baseUrl: string;
  readonly checkoutUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly accessToken: string;
  readonly webhookSecret: string;
  readonly allowedOrigins: readonly string[];
  /** As given: one answer for every kind, or one per kind (a kind left out the merchant's; QRIS always the merchant's). */
  readonly feesPaidBy: FeesPaidByOption;
  readonly returnUrl?: string;
  readonly orderSecret?: string;
  readonly sandbox: boolean;
  readonly allowClientAmounts: boolean;
  readonly currencies: readonly string[];
  readonly checkoutRateLimit: number;
  readonly unknownCheckoutRateLimit: number;
  readonly transferRateLimit: number;
  readonly statusRefreshMs: number;
  readonly webhookToleranceSeconds: number;
  readonly trustProxy: boolean;
  readonly redisUrl?: string;
  readonly redisPrefix: string;
  readonly redisTimeoutMs: number;
  /** Where the state is kept without Redis; false: in memory only. */
  readonly dataDir: string | false;
  readonly followMs: number;
  readonly sseMaxPerAddress: number;
  readonly sseMaxTotal: number;
  readonly metrics: boolean;
  readonly metricsToken?: string;
}

/** Two sets of names that are the same: `true`, else `never`. */
type SameNames<A, B> = [Exclude<A, B> | Exclude<B, A>] extends [never] ? true : never;
// Every setting but the connection has its variable in env.ts (ENV_SETTINGS), and every variable there is a setting:
// a setting added here without its variable, or a variable left behind, fails to compile.
true satisfies SameNames<EnvSetting, Exclude<keyof MerchantConfig, ConnectionName>>;

/** The kasir-merchant command's options: the API's, and where to listen. */
export interface MerchantServerOptions extends KasirApiOptions {
  /** Port to listen on (default 3000; 0 picks a free one). */
  port?: number;
  /** Interface to listen on (default all). */
  host?: string;
}

export { ConfigError };

/** Where a reader of a ConfigError learns every option and variable. */
const SEE_README = 'See the @kasir/merchant README, "Options and environment".';

/** The connection to the payment service: read from the environment at the first request when not passed. */
const CONNECTION = Object.keys(CONNECTION_VARIABLES) as ConnectionName[];
type MerchantConnection = Pick<MerchantConfig, ConnectionName>;
const REQUIRED: readonly ConnectionName[] = ['baseUrl', 'clientId', 'clientSecret', 'accessToken', 'webhookSecret'];

/** The hooks a shop may pass: every key of MerchantHooks (this record fails to compile until a new hook has its line). */
const HOOK_NAMES: Record<keyof MerchantHooks, true> = {
  priceOrder: true,
  onCheckoutCreated: true,
  onDepositCompleted: true,
  onDepositExpired: true,
  onDepositPartiallyPaid: true,
  onDepositPaidLate: true,
  onPaymentFailed: true,
  onRefundRequested: true,
};
const HOOKS = Object.keys(HOOK_NAMES) as Array<keyof MerchantHooks>;

/** The hooks among a shop's options: each hook the options checked above let through, none copied by hand. */
export const hooksOf = (options: MerchantHooks): MerchantHooks =>
  Object.fromEntries(HOOKS.map((name) => [name, options[name]])) as MerchantHooks;

/** Default of the `followMs` option: the interval at which an open checkout is read again, in ms. */
const FOLLOW_MS = 20_000;

/** Where the state is kept without Redis unless told (the command's and createKasirApi's alike). */
export const DEFAULT_DATA_DIR = './.kasir';

/** Default of the `redisTimeoutMs` option: the longest wait for one Redis call, in ms. */
export const REDIS_TIMEOUT_MS = 300;

/** The least length of an order secret, in bytes (UTF-8): what HMAC-SHA256 needs to be unguessable. */
export const ORDER_SECRET_MIN_BYTES = 32;

type Label = (option: string) => string;

// ---- The options' schema: zod, strict, so a misspelled option is refused (with the nearest known name) ----

const got = (input: unknown) => `(got ${JSON.stringify(input)})`;
/** '' and null are "not set": a `process.env.X` that is empty falls back like a missing one. */
const unset = (v: unknown) => (v === '' || v === null ? undefined : v);
const text = z.string({ error: 'must be a non-empty string' }).trim().min(1, { error: 'must be a non-empty string' });
const isHttpUrl = (value: string) => {
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
};
const httpUrl = z
  .string({ error: (iss) => `must be an http(s) URL ${got(iss.input)}` })
  .trim()
  .refine(isHttpUrl, { error: (iss) => `must be an http(s) URL ${got(iss.input)}` })
  .transform((value) => value.replace(/\/+$/, ''));
const int = (min: number) =>
  z
    .int({ error: (iss) => `must be an integer >= ${min} ${got(iss.input)}` })
    .min(min, { error: (iss) => `must be an integer >= ${min} ${got(iss.input)}` });
const flag = z.boolean({ error: (iss) => `must be true or false ${got(iss.input)}` });
const strings = z
  .array(z.string({ error: 'must be a list of strings' }), { error: 'must be a list of strings' })
  .transform((list) => list.map((v) => v.trim()).filter(Boolean));
/** A function option, typed as it is called. */
const fn = <F extends (...args: never[]) => unknown = (...args: never[]) => unknown>() =>
  z.custom<F>((v) => typeof v === 'function', { error: 'must be a function' });
const origin = (value: string) => {
  try {
    const u = new URL(value);
    return u.origin !== 'null' && u.origin === value.replace(/\/+$/, '') ? u.origin : undefined;
  } catch {
    return undefined;
  }
};

const optional = <T extends z.ZodType>(schema: T) => z.preprocess(unset, schema.optional());

/**
 * The connection settings, as options and as the same read from the environment. Each one not passed (or passed
 * empty) is read from its environment variable at the first request, so creating the API reads no secret (a build
 * with no settings present passes).
 */
const connectionSchema = z.object({
  /** The payment service's origin, e.g. `https://sandbox.example` (default `KASIR_BASE_URL`). */
  baseUrl: optional(
    // Every path of the interface starts with /v1: a base URL ending in it would call /v1/v1/... and answer 404s.
    httpUrl.refine((url) => !/\/v1$/i.test(url), {
      error: (iss) => `must be the service's address without /v1 (its paths start with /v1) ${got(iss.input)}`,
    }),
  ),
  /** The hosted checkout page address (default `KASIR_CHECKOUT_URL`, else `${baseUrl}/checkout`). */
  checkoutUrl: optional(httpUrl),
  /** Default `KASIR_CLIENT_ID`. */
  clientId: optional(text),
  /** Default `KASIR_CLIENT_SECRET`. */
  clientSecret: optional(text),
  /** Default `KASIR_ACCESS_TOKEN`. */
  accessToken: optional(text),
  /** Standard Webhooks secret, `whsec_...`, for the receiver at `/webhooks/kasir` (default `KASIR_WEBHOOK_SECRET`). */
  webhookSecret: optional(text.regex(WEBHOOK_SECRET_FORMAT, { error: 'must look like whsec_<base64>' })),
});

const feePayer = z.enum(['merchant', 'shopper'], { error: (iss) => `must be merchant or shopper ${got(iss.input)}` });
const feePayerPerKind = Object.fromEntries(FEE_KINDS.map((kind) => [kind, feePayer.optional()])) as Record<
  (typeof FEE_KINDS)[number],
  z.ZodOptional<typeof feePayer>
>;
/** Every hook of MerchantHooks is an option too (typed by MerchantHooks, checked here as a function). */
const hookOptions = Object.fromEntries(HOOKS.map((name) => [name, optional(fn())])) as Record<
  keyof MerchantHooks,
  ReturnType<typeof optional<ReturnType<typeof fn>>>
>;

/** The fields of a sandbox's credentials that are no option: its dashboard's address and sign-in. */
const SANDBOX_ONLY = ['dashboardUrl', 'email', 'password'] as const;

/** createKasirApi's options: their checks, types and meaning (KasirApiOptions is read off this schema). */
const optionsSchema = z.strictObject({
  ...connectionSchema.shape,
  /** Storefront origins allowed to call the API cross-origin (`scheme://host[:port]`); the API's own origin always is. */
  allowedOrigins: optional(
    strings
      .superRefine((list, ctx) => {
        for (const value of list)
          if (!origin(value))
            ctx.addIssue({ code: 'custom', message: `: "${value}" is not an origin (scheme://host[:port], no path)` });
      })
      .readonly(),
  ),
  /**
   * Who bears the payment method's fee (default `merchant`: the checkout's inputAmount is the order amount), for every
   * kind or per kind (`{ va: 'shopper', ewallet: 'shopper' }`, a kind left out the merchant's). QRIS is never
   * surcharged (docs/indonesian-payments.md): `qris: 'shopper'` is refused.
   */
  feesPaidBy: optional(
    z
      .union([feePayer, z.strictObject(feePayerPerKind)], {
        error: (iss) => `must be merchant or shopper, or one per kind (${FEE_KINDS.join(', ')}) ${got(iss.input)}`,
      })
      .refine((v) => typeof v !== 'object' || v.qris !== 'shopper', { error: `.qris: ${QRIS_NEVER_SURCHARGED}` }),
  ),
  /**
   * Where a redirect e-wallet (DANA, LinkAja) sends the shopper back after its page (default `KASIR_RETURN_URL`, else
   * the page the element is on when its origin is allowed; docs/indonesian-payments.md): an http(s) URL of the shop.
   */
  returnUrl: optional(httpUrl),
  /**
   * The secret `kasir.orderToken(orderId)` signs order tokens with (default `KASIR_ORDER_SECRET`; at least 32 bytes,
   * e.g. `openssl rand -base64 32`): a page opens an order's checkout only with its token (docs/security.md). Needed
   * outside sandbox mode for `order-id`; `kasir-merchant check` fails without it.
   */
  orderSecret: optional(
    text.refine((value) => Buffer.byteLength(value) >= ORDER_SECRET_MIN_BYTES, {
      error: `must be at least ${ORDER_SECRET_MIN_BYTES} bytes (e.g. openssl rand -base64 32)`,
    }),
  ),
  /** Enables `/sandbox/checkouts/:id/pay` and `/expire` (default false). */
  sandbox: optional(flag),
  /**
   * Takes amounts set by the page (`POST /checkouts {amount, currency}`, the element's `amount`) outside sandbox mode
   * (default false: the shop's server prices orders, with priceOrder or createCheckout; docs/orders.md). A shopper
   * can then pay any amount they like: a warning is written at start.
   */
  allowClientAmounts: optional(flag),
  /** Currencies a shopper may create a checkout in (default `['IDR']`). */
  currencies: optional(
    strings
      .transform((list) => list.map((c) => c.toUpperCase()))
      .superRefine((list, ctx) => {
        for (const code of list)
          if (!/^[A-Z]{3}$/.test(code))
            ctx.addIssue({ code: 'custom', message: `: "${code}" is not a 3-letter currency code` });
      })
      .readonly(),
  ),
  /** Checkout creations allowed per client address per minute (default 60). */
  checkoutRateLimit: optional(int(1)),
  /**
   * Reads of checkout ids this backend does not know, per client address per minute (default 60): each may cost a
   * call to the payment service, so guessing ids is bounded (an unknown id is also remembered briefly).
   */
  unknownCheckoutRateLimit: optional(int(1)),
  /**
   * Bank transfers a client address may choose per hour (default 10): each holds one of the shop's unique codes while
   * pending, so one anonymous shopper cannot hold them all.
   */
  transferRateLimit: optional(int(1)),
  /** Least time between two reads of one deposit from the payment service, in ms (default 2000). */
  statusRefreshMs: optional(int(0)),
  /** Largest age of a webhook accepted, in seconds (default 300). */
  webhookToleranceSeconds: optional(int(1)),
  /** Take the client address from `X-Forwarded-For` (behind a reverse proxy; default false). */
  trustProxy: optional(flag),
  /** The fetch the payment-service client uses (default a keep-alive pool, client/pooled-fetch.ts; tests count calls with it). */
  fetch: optional(fn<typeof fetch>()),
  /** The backend's clock in ms (default Date.now). */
  now: optional(fn<() => number>()),
  /**
   * Signs the calls to the payment service another way than its default scheme (a service following SNAP BI, say):
   * gets `{method, path, body, timestamp, clientId, clientSecret}` and answers the headers to send (docs/configuration.md).
   */
  signRequest: optional(fn<RequestSigner>()),
  /** SSE heartbeat interval in ms (default 15 s); each heartbeat also re-reads the status (bounded). */
  heartbeatMs: optional(int(1)),
  /** Longest life of one SSE connection in ms (default 10 min); EventSource reconnects by itself. */
  maxStreamMs: optional(int(1)),
  /**
   * Redis (`redis://...`) shared by every copy of the backend: webhook dedupe, the once-per-deposit hooks, the orders
   * of created checkouts, the status cache, event fan-out and rate limits. Without it the backend is one process.
   */
  redisUrl: optional(text.regex(/^rediss?:\/\/\S+$/, { error: 'must be a redis:// or rediss:// URL' })),
  /** Prefix of the backend's Redis keys and channel (default `kasir:`), e.g. one per shop on a shared Redis. */
  redisPrefix: optional(text),
  /**
   * Without Redis: the directory where webhook dedupe, the once-per-deposit hook markers and created checkouts'
   * orders are kept (`merchant/merchant-state.jsonl`), so they survive a restart (default `./.kasir`, as the
   * kasir-merchant command's). `false` keeps them in memory only, lost on restart (tests).
   */
  dataDir: optional(z.union([text, z.literal(false)], { error: 'must be a directory, or false (memory only)' })),
  /**
   * How often every open checkout this backend made is read again from the payment service, in ms (default 20,000;
   * twice that for one more than an hour from expiry): a change whose webhook never came runs its hooks all the same
   * (docs/orders.md). Copies on Redis read each checkout once per interval in all.
   */
  followMs: optional(int(1)),
  /**
   * Longest wait for one Redis call, in ms (default 300): past it a status read is served from this copy, a webhook
   * is answered 503 (retried) and /readyz 503, instead of waiting on a stalled Redis.
   */
  redisTimeoutMs: optional(int(1)),
  /** Open event streams allowed per client address (an IPv6 client: per /64), per copy of the backend (default 10). */
  sseMaxPerAddress: optional(int(1)),
  /** Open event streams allowed in all, per copy of the backend (default 10,000). */
  sseMaxTotal: optional(int(1)),
  /** Serves Prometheus metrics at `GET /metrics` (default false; docs/observability.md). */
  metrics: optional(flag),
  /** With metrics on, `GET /metrics` answers only `Authorization: Bearer <metricsToken>` (401 otherwise). */
  metricsToken: optional(text),
  /** Where the backend logs (pino; default: warnings on stdout, or KASIR_LOG_LEVEL). */
  logger: optional(
    z.custom<Logger>((v) => typeof v === 'object' && v !== null && typeof (v as Logger).warn === 'function', {
      error: 'must be a pino logger',
    }),
  ),
  ...hookOptions,
  // A sandbox's credentials (`sandbox.credentials`, sandbox.json) spread in as they are: these three are the sandbox
  // account's dashboard sign-in, which the backend does not use; accepted and ignored (no other unknown name is).
  ...(Object.fromEntries(SANDBOX_ONLY.map((name) => [name, z.unknown().optional()])) as Record<
    (typeof SANDBOX_ONLY)[number],
    z.ZodOptional<z.ZodUnknown>
  >),
});
const KNOWN_OPTIONS = Object.keys(optionsSchema.shape);

/** One line per problem, each naming its option (`label` renames it, e.g. to its environment variable). */
function describeIssues(error: z.ZodError, label: Label): string[] {
  const problems: string[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const near = nearestName(key, KNOWN_OPTIONS);
        problems.push(`unknown option ${key}${near ? ` (did you mean ${near}?)` : ''}`);
      }
      continue;
    }
    const name = String(issue.path[0] ?? 'options');
    const line = `${label(name)}${/^[:.]/.test(issue.message) ? '' : ' '}${issue.message}`;
    if (!problems.includes(line)) problems.push(line);
  }
  return problems;
}

/** createKasirApi's settings: everything but the connection, which may wait for the first request. */
type MerchantSettings = Omit<MerchantConfig, ConnectionName>;

export interface CheckedOptions {
  settings: MerchantSettings;
  /**
   * The connection to the payment service: the options passed, the rest from the environment (`KASIR_BASE_URL`, ...)
   * when first asked (the first request), so a build with no settings present passes. Throws a ConfigError naming
   * every setting still missing; remembered once complete.
   */
  connection(): MerchantConnection;
}

/**
 * Checks createKasirApi's options at once: every unknown option (with the nearest known name), wrong type or
 * malformed value in one ConfigError. The settings not passed are read from `env` (./env.ts, the one reader of the
 * environment); the connection settings not passed are read by `connection()` when first needed, so creating the API
 * reads no secret. `connectionNow` resolves the connection at once instead, its problems told with the others.
 */
export function checkMerchantOptions(
  options: KasirApiOptions | undefined = {},
  {
    label = (name: string) => name,
    env = process.env,
    connectionNow = false,
  }: { label?: Label; env?: NodeJS.ProcessEnv | null; connectionNow?: boolean } = {},
): CheckedOptions {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new ConfigError(
      `createKasirApi takes an options object (got ${options === null ? 'null' : typeof options}). ${SEE_README}`,
    );
  }
  // The settings not passed come from their variables, each named by its variable when it is wrong.
  const fromEnv = env ? readEnvironment(env) : undefined;
  const envNames = (Object.keys(ENV_SETTINGS) as EnvSetting[]).filter(
    (name) => unset(options[name]) === undefined && fromEnv?.set.has(name),
  );
  const merged: Record<string, unknown> = { ...options };
  for (const name of envNames) merged[name] = fromEnv?.values[name];
  const labelOf: Label = (name) => (envNames.includes(name as EnvSetting) ? variableOf(name as EnvName) : label(name));
  const parsed = optionsSchema.safeParse(merged);
  const problems = [
    ...(parsed.success ? [] : describeIssues(parsed.error, labelOf)),
    ...envNames.flatMap((name) => fromEnv?.problems[name] ?? []),
  ];
  // The connection's problems are told with the others when it is resolved now (connectionNow), or when there is no
  // environment to fall back on at the first request.
  if (!parsed.success || problems.length || connectionNow) {
    const passed = parsed.success
      ? parsed.data
      : Object.fromEntries(CONNECTION.map((name) => [name, unset(options[name]) === undefined ? undefined : '?']));
    const connection = connectionNow || !env ? resolveConnection(passed, env, label).problems : [];
    // A malformed connection option is told once (by the options' schema), a missing one first.
    const all = [...connection.filter((line) => !problems.includes(line)), ...problems];
    if (all.length) throw new ConfigError(`kasir merchant backend: ${all.join('; ')}. ${SEE_README}`);
  }
  if (!parsed.success) throw new ConfigError(`kasir merchant backend: ${SEE_README}`); // unreachable: told above
  const o = parsed.data;
  const settings: MerchantSettings = {
    allowedOrigins: [...new Set((o.allowedOrigins ?? []).map((value) => origin(value) ?? value))],
    feesPaidBy: o.feesPaidBy ?? 'merchant',
    returnUrl: o.returnUrl,
    orderSecret: o.orderSecret,
    sandbox: o.sandbox ?? false,
    allowClientAmounts: o.allowClientAmounts ?? false,
    currencies: o.currencies?.length ? [...new Set(o.currencies)] : ['IDR'],
    checkoutRateLimit: o.checkoutRateLimit ?? 60,
    unknownCheckoutRateLimit: o.unknownCheckoutRateLimit ?? 60,
    transferRateLimit: o.transferRateLimit ?? 10,
    statusRefreshMs: o.statusRefreshMs ?? 2000,
    webhookToleranceSeconds: o.webhookToleranceSeconds ?? 300,
    trustProxy: o.trustProxy ?? false,
    redisUrl: o.redisUrl,
    redisPrefix: o.redisPrefix ?? 'kasir:',
    dataDir: o.dataDir ?? DEFAULT_DATA_DIR,
    followMs: o.followMs ?? FOLLOW_MS,
    redisTimeoutMs: o.redisTimeoutMs ?? REDIS_TIMEOUT_MS,
    sseMaxPerAddress: o.sseMaxPerAddress ?? 10,
    sseMaxTotal: o.sseMaxTotal ?? 10_000,
    metrics: o.metrics ?? false,
    metricsToken: o.metricsToken,
  };
  let connection: MerchantConnection | undefined;
  return {
    settings,
    connection: () => {
      if (connection) return connection;
      const resolved = resolveConnection(o, env, label);
      if (!resolved.value)
        throw new ConfigError(`kasir merchant backend: ${resolved.problems.join('; ')}. ${SEE_README}`);
      return (connection = Object.freeze(resolved.value));
    },
  };
}

/** The connection: the options passed, the rest from `env` (null: none); every problem, or the connection. */
function resolveConnection(
  passed: Partial<Record<ConnectionName, string | undefined>>,
  env: NodeJS.ProcessEnv | null,
  label: Label,
): { value?: MerchantConnection; problems: string[] } {
  const read = env ? readEnvironment(env) : undefined;
  const fromEnv: Partial<Record<ConnectionName, unknown>> = {};
  for (const name of CONNECTION) if (passed[name] === undefined) fromEnv[name] = read?.values[name];
  const parsed = connectionSchema.safeParse(fromEnv);
  const problems = parsed.success ? [] : describeIssues(parsed.error, (name) => variableOf(name as ConnectionName));
  const merged: z.infer<typeof connectionSchema> = { ...(parsed.success ? parsed.data : {}) };
  for (const name of CONNECTION) if (passed[name] !== undefined) merged[name] = passed[name];
  const missing = REQUIRED.filter((name) => merged[name] === undefined && fromEnv[name] === undefined);
  const named = (name: ConnectionName) =>
    env && label(name) !== variableOf(name) ? `${label(name)} (or ${variableOf(name)})` : label(name);
  if (missing.length) problems.unshift(`missing ${missing.map(named).join(', ')}`);
  if (problems.length) return { problems };
  const { baseUrl = '', checkoutUrl, clientId = '', clientSecret = '', accessToken = '', webhookSecret = '' } = merged;
  return {
    value: {
      baseUrl,
      checkoutUrl: checkoutUrl ?? `${baseUrl}/checkout`,
      clientId,
      clientSecret,
      accessToken,
      webhookSecret,
    },
    problems,
  };
}

/**
 * Where the backend keeps its state without Redis: `dataDir/merchant/merchant-state.jsonl`, apart from a sandbox's
 * files when both use one data dir; a file left at `dataDir/merchant-state.jsonl` by an older version is kept using.
 */
export function merchantStateFile(dataDir: string): string {
  const old = join(dataDir, 'merchant-state.jsonl');
  return existsSync(old) ? old : join(dataDir, 'merchant', 'merchant-state.jsonl');
}

/**
 * The kasir-merchant command's options from the environment (docs/configuration.md), read and checked as
 * createKasirApi reads them (checkMerchantOptions, ./env.ts), the connection at once: one ConfigError names every
 * missing or malformed variable. `defaults` fill what the environment leaves out.
 */
export function loadMerchantConfig(
  env: NodeJS.ProcessEnv = process.env,
  defaults: Partial<MerchantServerOptions> = {},
): MerchantServerOptions & MerchantConfig & { port: number } {
  const read = readEnvironment(env);
  const { port: defaultPort, host: defaultHost, ...fallbacks } = defaults;
  // The environment wins over the defaults: a default counts only where its variable is unset.
  const options: KasirApiOptions = Object.fromEntries(
    Object.entries(fallbacks).filter(([name]) => !read.set.has(name as EnvName)),
  );
  const problems: string[] = read.problems.port ? [read.problems.port] : [];
  const port = (read.values.port as number | undefined) ?? defaultPort ?? 3000;
  if (port > 65535) problems.push(`PORT must be at most 65535 (got ${port})`);
  const host = (read.values.host as string | undefined) ?? defaultHost;
  let config: MerchantConfig | undefined;
  try {
    // What the environment lacks is named by its variable; a default passed in code by its option.
    const label = (name: string) => (name in options ? name : variableOf(name as EnvName));
    const { settings, connection } = checkMerchantOptions(options, { env, label, connectionNow: true });
    config = { ...connection(), ...settings };
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    problems.unshift(err.message.replace(/^kasir merchant backend: /, '').replace(/\. See .*$|\.$/, ''));
  }
  if (problems.length || !config) {
    throw new ConfigError(`The merchant backend's configuration is incomplete: ${problems.join('; ')}. ${SEE_README}`);
  }
  return { ...options, ...config, port, host };
}
