// The merchant backend's options: what a shop passes to createKasirApi (KasirApiOptions), checked once into the
// settings the backend runs on (MerchantConfig), and the same read from the environment (DESIGN.md section 2) by the
// kasir-merchant command. Every problem names the option (or the variable) it is about, before the first request.
import type { Logger } from '../common/log.js';
import type { MerchantHooks } from './service.js';

export type FeesPaidBy = 'merchant' | 'shopper';

/** What `createKasirApi` takes (DESIGN.md section 7). Only the connection to the payment service is required. */
export interface KasirApiOptions extends MerchantHooks {
  /** The payment service's origin, e.g. `https://sandbox.example` (its `/v1/...` paths are relative to it). */
  baseUrl: string;
  /** The hosted checkout page address (default `${baseUrl}/checkout`). */
  checkoutUrl?: string;
  clientId: string;
  clientSecret: string;
  accessToken: string;
  /** Standard Webhooks secret, `whsec_...`, for the receiver at `/webhooks/kasir`. */
  webhookSecret: string;
  /** Storefront origins allowed to call the API cross-origin (`scheme://host[:port]`); the API's own origin always is. */
  allowedOrigins?: readonly string[];
  /** Who bears the payment method's fee (default `merchant`: the checkout's inputAmount is the order amount). */
  feesPaidBy?: FeesPaidBy;
  /** Enables `/sandbox/checkouts/:id/pay` and `/expire` (default false). */
  sandbox?: boolean;
  /** Currencies a shopper may create a checkout in (default `['IDR']`). */
  currencies?: readonly string[];
  /** Checkout creations allowed per client address per minute (default 60). */
  checkoutRateLimit?: number;
  /**
   * Bank transfers a client address may choose per hour (default 10): each holds one of the shop's unique codes while
   * pending, so one anonymous shopper cannot hold them all.
   */
  transferRateLimit?: number;
  /** Least time between two reads of one deposit from the payment service, in ms (default 2000). */
  statusRefreshMs?: number;
  /** Largest age of a webhook accepted, in seconds (default 300). */
  webhookToleranceSeconds?: number;
  /** Take the client address from `X-Forwarded-For` (behind a reverse proxy; default false). */
  trustProxy?: boolean;
  /** The fetch the payment-service client uses (default the global fetch; tests count calls with it). */
  fetch?: typeof fetch;
  /** The backend's clock in ms (default Date.now). */
  now?: () => number;
  /** SSE heartbeat interval in ms (default 15 s); each heartbeat also re-reads the status (bounded). */
  heartbeatMs?: number;
  /** Longest life of one SSE connection in ms (default 10 min); EventSource reconnects by itself. */
  maxStreamMs?: number;
  /**
   * Redis (`redis://...`) shared by every copy of the backend: webhook dedupe, the once-per-deposit hooks, the orders
   * of created checkouts, the status cache, event fan-out and rate limits. Without it the backend is one process.
   */
  redisUrl?: string;
  /** Prefix of the backend's Redis keys and channel (default `kasir:`), e.g. one per shop on a shared Redis. */
  redisPrefix?: string;
  /**
   * Without Redis: the directory where webhook dedupe, the once-per-deposit hook markers and created checkouts'
   * orders are kept (`merchant-state.jsonl`), so they survive a restart. Without either, they live in memory only.
   */
  dataDir?: string;
  /** Open event streams allowed per client address, per copy of the backend (default 10). */
  sseMaxPerAddress?: number;
  /** Open event streams allowed in all, per copy of the backend (default 10,000). */
  sseMaxTotal?: number;
  /** Where the backend logs (pino; default: nothing unless KASIR_LOG_LEVEL is set). */
  logger?: Logger;
}

/** The checked settings the backend runs on: every option present, URLs without a trailing slash. */
export interface MerchantConfig {
  baseUrl: string;
  checkoutUrl: string;
  clientId: string;
  clientSecret: string;
  accessToken: string;
  webhookSecret: string;
  allowedOrigins: string[];
  feesPaidBy: FeesPaidBy;
  sandbox: boolean;
  currencies: string[];
  checkoutRateLimit: number;
  transferRateLimit: number;
  statusRefreshMs: number;
  webhookToleranceSeconds: number;
  trustProxy: boolean;
  redisUrl?: string;
  redisPrefix: string;
  dataDir?: string;
  sseMaxPerAddress: number;
  sseMaxTotal: number;
}

/** The kasir-merchant command's options: the API's, and where to listen. */
export interface MerchantServerOptions extends KasirApiOptions {
  /** Port to listen on (default 3000; 0 picks a free one). */
  port?: number;
  /** Interface to listen on (default all). */
  host?: string;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

const REQUIRED = ['baseUrl', 'clientId', 'clientSecret', 'accessToken', 'webhookSecret'] as const;

/** Each option's environment variable (DESIGN.md section 2), for messages about the environment. */
const ENV_NAMES: Record<keyof MerchantConfig | 'port' | 'host', string> = {
  baseUrl: 'KASIR_BASE_URL', checkoutUrl: 'KASIR_CHECKOUT_URL', clientId: 'KASIR_CLIENT_ID', clientSecret: 'KASIR_CLIENT_SECRET',
  accessToken: 'KASIR_ACCESS_TOKEN', webhookSecret: 'KASIR_WEBHOOK_SECRET', allowedOrigins: 'KASIR_ALLOWED_ORIGINS',
  feesPaidBy: 'KASIR_FEES_PAID_BY', sandbox: 'KASIR_SANDBOX', currencies: 'KASIR_CURRENCIES', checkoutRateLimit: 'KASIR_CHECKOUT_RATE_LIMIT',
  transferRateLimit: 'KASIR_TRANSFER_RATE_LIMIT',
  statusRefreshMs: 'KASIR_STATUS_REFRESH_MS', webhookToleranceSeconds: 'KASIR_WEBHOOK_TOLERANCE_SECONDS', trustProxy: 'KASIR_TRUST_PROXY',
  redisUrl: 'REDIS_URL', redisPrefix: 'KASIR_REDIS_PREFIX', dataDir: 'KASIR_DATA_DIR', sseMaxPerAddress: 'KASIR_SSE_MAX_PER_ADDRESS',
  sseMaxTotal: 'KASIR_SSE_MAX_TOTAL', port: 'PORT', host: 'HOST',
};

type Label = (option: keyof typeof ENV_NAMES) => string;

/**
 * Checks createKasirApi's options and fills the defaults. Throws one ConfigError listing every problem, each
 * naming its option (`label` renames them, e.g. to environment variables).
 */
export function resolveMerchantConfig(options: KasirApiOptions, label: Label = (name) => name): MerchantConfig {
  if (!options || typeof options !== 'object') {
    throw new ConfigError(`createKasirApi needs an options object with ${REQUIRED.join(', ')}`);
  }
  const problems: string[] = [];
  const missing = REQUIRED.filter((name) => options[name] === undefined || options[name] === null || options[name] === '');
  if (missing.length) problems.push(`missing ${missing.map(label).join(', ')}`);

  const text = (name: (typeof REQUIRED)[number]) => {
    const value = options[name];
    if (value === undefined || value === null || value === '') return '';
    if (typeof value !== 'string' || !value.trim()) {
      problems.push(`${label(name)} must be a non-empty string`);
      return '';
    }
    return value.trim();
  };
  const url = (name: 'baseUrl' | 'checkoutUrl', value: unknown) => {
    if (value === undefined || value === '') return '';
    try {
      if (typeof value !== 'string') throw new Error();
      const u = new URL(value);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error();
      return value.trim().replace(/\/+$/, '');
    } catch {
      problems.push(`${label(name)} must be an http(s) URL (got ${JSON.stringify(value)})`);
      return '';
    }
  };
  const int = (name: 'checkoutRateLimit' | 'transferRateLimit' | 'statusRefreshMs' | 'webhookToleranceSeconds' | 'sseMaxPerAddress' | 'sseMaxTotal', fallback: number, min: number) => {
    const value = options[name];
    if (value === undefined) return fallback;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
      problems.push(`${label(name)} must be an integer >= ${min} (got ${JSON.stringify(value)})`);
      return fallback;
    }
    return value;
  };
  const bool = (name: 'sandbox' | 'trustProxy') => {
    const value = options[name];
    if (value === undefined) return false;
    if (typeof value !== 'boolean') problems.push(`${label(name)} must be true or false (got ${JSON.stringify(value)})`);
    return value === true;
  };
  const list = (name: 'allowedOrigins' | 'currencies'): string[] => {
    const value = options[name];
    if (value === undefined) return [];
    if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
      problems.push(`${label(name)} must be a list of strings`);
      return [];
    }
    return value.map((v) => v.trim()).filter(Boolean);
  };
  const hook = (name: keyof MerchantHooks) => {
    if (options[name] !== undefined && typeof options[name] !== 'function') problems.push(`${name} must be a function`);
  };

  const baseUrl = url('baseUrl', text('baseUrl') || undefined);
  const checkoutUrl = url('checkoutUrl', options.checkoutUrl) || (baseUrl ? `${baseUrl}/checkout` : '');
  const clientId = text('clientId');
  const clientSecret = text('clientSecret');
  const accessToken = text('accessToken');
  const webhookSecret = text('webhookSecret');
  if (webhookSecret && !/^whsec_[A-Za-z0-9+/=]+$/.test(webhookSecret)) problems.push(`${label('webhookSecret')} must look like whsec_<base64>`);

  const feesPaidBy = options.feesPaidBy ?? 'merchant';
  if (feesPaidBy !== 'merchant' && feesPaidBy !== 'shopper') problems.push(`${label('feesPaidBy')} must be merchant or shopper (got ${JSON.stringify(feesPaidBy)})`);

  const allowedOrigins: string[] = [];
  for (const origin of list('allowedOrigins')) {
    try {
      const u = new URL(origin);
      if (u.origin === 'null' || u.origin !== origin.replace(/\/+$/, '')) throw new Error();
      allowedOrigins.push(u.origin);
    } catch {
      problems.push(`${label('allowedOrigins')}: "${origin}" is not an origin (scheme://host[:port], no path)`);
    }
  }
  const currencies = list('currencies').map((c) => c.toUpperCase());
  for (const code of currencies) if (!/^[A-Z]{3}$/.test(code)) problems.push(`${label('currencies')}: "${code}" is not a 3-letter currency code`);
  for (const name of ['priceOrder', 'onCheckoutCreated', 'onDepositCompleted', 'onDepositExpired'] as const) hook(name);
  if (options.fetch !== undefined && typeof options.fetch !== 'function') problems.push('fetch must be a function');
  const optionalText = (name: 'redisUrl' | 'redisPrefix' | 'dataDir') => {
    const value = options[name];
    if (value === undefined || value === '') return undefined;
    if (typeof value !== 'string' || !value.trim()) {
      problems.push(`${label(name)} must be a non-empty string`);
      return undefined;
    }
    return value.trim();
  };
  const redisUrl = optionalText('redisUrl');
  if (redisUrl && !/^rediss?:\/\/[^\s]+$/.test(redisUrl)) problems.push(`${label('redisUrl')} must be a redis:// or rediss:// URL`);

  const config: MerchantConfig = {
    baseUrl,
    checkoutUrl,
    clientId,
    clientSecret,
    accessToken,
    webhookSecret,
    allowedOrigins: [...new Set(allowedOrigins)],
    feesPaidBy: feesPaidBy === 'shopper' ? 'shopper' : 'merchant',
    sandbox: bool('sandbox'),
    currencies: currencies.length ? [...new Set(currencies)] : ['IDR'],
    checkoutRateLimit: int('checkoutRateLimit', 60, 1),
    transferRateLimit: int('transferRateLimit', 10, 1),
    statusRefreshMs: int('statusRefreshMs', 2000, 0),
    webhookToleranceSeconds: int('webhookToleranceSeconds', 300, 1),
    trustProxy: bool('trustProxy'),
    redisUrl,
    redisPrefix: optionalText('redisPrefix') ?? 'kasir:',
    dataDir: optionalText('dataDir'),
    sseMaxPerAddress: int('sseMaxPerAddress', 10, 1),
    sseMaxTotal: int('sseMaxTotal', 10_000, 1),
  };
  if (problems.length) throw new ConfigError(`kasir merchant backend: ${problems.join('; ')}.`);
  return config;
}

/**
 * The kasir-merchant command's options from the environment (DESIGN.md section 2), every value checked: one
 * ConfigError names every missing or malformed variable. `defaults` fill what the environment leaves out.
 */
export function loadMerchantConfig(env: NodeJS.ProcessEnv = process.env, defaults: Partial<MerchantServerOptions> = {}): MerchantServerOptions & MerchantConfig & { port: number } {
  const problems: string[] = [];
  const str = (name: string) => env[name]?.trim() || undefined;
  const int = (name: string) => {
    const raw = str(name);
    if (raw === undefined) return undefined;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 0) {
      problems.push(`${name} must be an integer >= 0 (got "${raw}")`);
      return undefined;
    }
    return n;
  };
  const bool = (name: string) => {
    const raw = str(name)?.toLowerCase();
    if (raw === undefined) return undefined;
    if (['true', '1', 'yes'].includes(raw)) return true;
    if (['false', '0', 'no'].includes(raw)) return false;
    problems.push(`${name} must be true or false (got "${env[name]}")`);
    return undefined;
  };
  const csv = (name: string) => str(name)?.split(',').map((s) => s.trim()).filter(Boolean);
  const fees = str('KASIR_FEES_PAID_BY')?.toLowerCase();
  const port = int('PORT') ?? defaults.port ?? 3000;
  if (port > 65535) problems.push(`PORT must be at most 65535 (got ${port})`);

  const fromEnv: MerchantServerOptions = {
    ...defaults,
    baseUrl: str('KASIR_BASE_URL') ?? defaults.baseUrl ?? '',
    checkoutUrl: str('KASIR_CHECKOUT_URL') ?? defaults.checkoutUrl,
    clientId: str('KASIR_CLIENT_ID') ?? defaults.clientId ?? '',
    clientSecret: str('KASIR_CLIENT_SECRET') ?? defaults.clientSecret ?? '',
    accessToken: str('KASIR_ACCESS_TOKEN') ?? defaults.accessToken ?? '',
    webhookSecret: str('KASIR_WEBHOOK_SECRET') ?? defaults.webhookSecret ?? '',
    allowedOrigins: [...(csv('KASIR_ALLOWED_ORIGINS') ?? []), ...(defaults.allowedOrigins ?? [])],
    feesPaidBy: (fees ?? defaults.feesPaidBy) as FeesPaidBy | undefined,
    sandbox: bool('KASIR_SANDBOX') ?? defaults.sandbox,
    currencies: csv('KASIR_CURRENCIES') ?? defaults.currencies,
    checkoutRateLimit: int('KASIR_CHECKOUT_RATE_LIMIT') ?? defaults.checkoutRateLimit,
    transferRateLimit: int('KASIR_TRANSFER_RATE_LIMIT') ?? defaults.transferRateLimit,
    statusRefreshMs: int('KASIR_STATUS_REFRESH_MS') ?? defaults.statusRefreshMs,
    webhookToleranceSeconds: int('KASIR_WEBHOOK_TOLERANCE_SECONDS') ?? defaults.webhookToleranceSeconds,
    trustProxy: bool('KASIR_TRUST_PROXY') ?? defaults.trustProxy,
    redisUrl: str('REDIS_URL') ?? defaults.redisUrl,
    redisPrefix: str('KASIR_REDIS_PREFIX') ?? defaults.redisPrefix,
    // The command keeps its state beside the sandbox's (DESIGN.md section 2) unless Redis holds it.
    dataDir: str('KASIR_DATA_DIR') ?? defaults.dataDir ?? './.kasir',
    sseMaxPerAddress: int('KASIR_SSE_MAX_PER_ADDRESS') ?? defaults.sseMaxPerAddress,
    sseMaxTotal: int('KASIR_SSE_MAX_TOTAL') ?? defaults.sseMaxTotal,
    port,
    host: str('HOST') ?? defaults.host,
  };
  let config: MerchantConfig | undefined;
  try {
    config = resolveMerchantConfig(fromEnv, (name) => ENV_NAMES[name]);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    problems.unshift(err.message.replace(/^kasir merchant backend: /, '').replace(/\.$/, ''));
  }
  if (problems.length || !config) {
    throw new ConfigError(`The merchant backend's configuration is incomplete: ${problems.join('; ')}. See README "Configuration".`);
  }
  return { ...fromEnv, ...config, port };
}
