// The merchant backend's configuration (DESIGN.md section 2), read once from the environment or built
// from the sandbox's credentials by `npm start`.

export type FeesPaidBy = 'merchant' | 'shopper';

export interface MerchantConfig {
  /** Port of the backend and the demo (PORT, default 3000; 0 picks a free one). */
  port: number;
  /** Interface to listen on (HOST, default all). */
  host?: string;
  /** The payment service's origin (KASIR_BASE_URL). */
  baseUrl: string;
  /** The hosted checkout page address (KASIR_CHECKOUT_URL, default `${baseUrl}/checkout`). */
  checkoutUrl: string;
  clientId: string;
  clientSecret: string;
  accessToken: string;
  /** Standard Webhooks secret, `whsec_...` (KASIR_WEBHOOK_SECRET). */
  webhookSecret: string;
  /** Storefront origins allowed to call /api cross-origin (KASIR_ALLOWED_ORIGINS, comma-separated). */
  allowedOrigins: string[];
  /** Who bears the payment method's fee (KASIR_FEES_PAID_BY, default merchant). */
  feesPaidBy: FeesPaidBy;
  /** Enables /api/sandbox/* (KASIR_SANDBOX). */
  sandbox: boolean;
  /** Currencies a shopper may create a checkout in (KASIR_CURRENCIES, default IDR). */
  currencies: string[];
  /** Checkout creations allowed per client address per minute (KASIR_CHECKOUT_RATE_LIMIT, default 60). */
  checkoutRateLimit: number;
  /** Least time between two reads of one deposit from the payment service, in ms (KASIR_STATUS_REFRESH_MS, default 2000). */
  statusRefreshMs: number;
  /** Largest age of a webhook accepted, in seconds (KASIR_WEBHOOK_TOLERANCE_SECONDS, default 300). */
  webhookToleranceSeconds: number;
  /** Trust X-Forwarded-For for the client address (KASIR_TRUST_PROXY=true, behind a reverse proxy). */
  trustProxy: boolean;
  /** Where the built widget and demo are (default ./dist). */
  distDir: string;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

const REQUIRED = ['KASIR_BASE_URL', 'KASIR_CLIENT_ID', 'KASIR_CLIENT_SECRET', 'KASIR_ACCESS_TOKEN', 'KASIR_WEBHOOK_SECRET'] as const;

/** Reads the backend's configuration from env; throws a ConfigError that names every missing or bad variable. */
export function loadMerchantConfig(env: NodeJS.ProcessEnv = process.env, defaults: Partial<MerchantConfig> = {}): MerchantConfig {
  const problems: string[] = [];
  const missing = REQUIRED.filter((name) => !env[name]?.trim() && !defaultFor(name, defaults));
  if (missing.length) problems.push(`missing ${missing.join(', ')}`);

  const url = (name: string, value: string | undefined) => {
    if (!value) return '';
    try {
      const u = new URL(value);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error();
      return value.replace(/\/+$/, '');
    } catch {
      problems.push(`${name} must be an http(s) URL (got "${value}")`);
      return '';
    }
  };
  const int = (name: string, fallback: number, min = 0) => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min) {
      problems.push(`${name} must be an integer >= ${min} (got "${raw}")`);
      return fallback;
    }
    return n;
  };
  const bool = (name: string, fallback: boolean) => {
    const raw = env[name]?.trim().toLowerCase();
    if (!raw) return fallback;
    if (['true', '1', 'yes'].includes(raw)) return true;
    if (['false', '0', 'no'].includes(raw)) return false;
    problems.push(`${name} must be true or false (got "${env[name]}")`);
    return fallback;
  };

  const baseUrl = url('KASIR_BASE_URL', env.KASIR_BASE_URL?.trim() || defaults.baseUrl);
  const checkoutUrl = url('KASIR_CHECKOUT_URL', env.KASIR_CHECKOUT_URL?.trim() || defaults.checkoutUrl) || (baseUrl ? `${baseUrl}/checkout` : '');

  const feesRaw = (env.KASIR_FEES_PAID_BY?.trim() || defaults.feesPaidBy || 'merchant').toLowerCase();
  if (feesRaw !== 'merchant' && feesRaw !== 'shopper') problems.push(`KASIR_FEES_PAID_BY must be merchant or shopper (got "${feesRaw}")`);

  const webhookSecret = env.KASIR_WEBHOOK_SECRET?.trim() || defaults.webhookSecret || '';
  if (webhookSecret && !/^whsec_[A-Za-z0-9+/=]+$/.test(webhookSecret)) problems.push('KASIR_WEBHOOK_SECRET must look like whsec_<base64>');

  const allowedOrigins: string[] = [];
  for (const origin of (env.KASIR_ALLOWED_ORIGINS ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
    try {
      const u = new URL(origin);
      if (u.origin === 'null' || u.origin !== origin.replace(/\/+$/, '')) throw new Error();
      allowedOrigins.push(u.origin);
    } catch {
      problems.push(`KASIR_ALLOWED_ORIGINS: "${origin}" is not an origin (scheme://host[:port], no path)`);
    }
  }
  allowedOrigins.push(...(defaults.allowedOrigins ?? []));

  const currencies = (env.KASIR_CURRENCIES || defaults.currencies?.join(',') || 'IDR').split(',').map((s) => s.trim().toUpperCase()).filter(Boolean);

  const config: MerchantConfig = {
    port: int('PORT', defaults.port ?? 3000),
    host: env.HOST || defaults.host,
    baseUrl,
    checkoutUrl,
    clientId: env.KASIR_CLIENT_ID?.trim() || defaults.clientId || '',
    clientSecret: env.KASIR_CLIENT_SECRET?.trim() || defaults.clientSecret || '',
    accessToken: env.KASIR_ACCESS_TOKEN?.trim() || defaults.accessToken || '',
    webhookSecret,
    allowedOrigins: [...new Set(allowedOrigins)],
    feesPaidBy: feesRaw === 'shopper' ? 'shopper' : 'merchant',
    sandbox: bool('KASIR_SANDBOX', defaults.sandbox ?? false),
    currencies,
    checkoutRateLimit: int('KASIR_CHECKOUT_RATE_LIMIT', defaults.checkoutRateLimit ?? 60, 1),
    statusRefreshMs: int('KASIR_STATUS_REFRESH_MS', defaults.statusRefreshMs ?? 2000),
    webhookToleranceSeconds: int('KASIR_WEBHOOK_TOLERANCE_SECONDS', defaults.webhookToleranceSeconds ?? 300, 1),
    trustProxy: bool('KASIR_TRUST_PROXY', defaults.trustProxy ?? false),
    distDir: env.KASIR_DIST_DIR || defaults.distDir || 'dist',
  };
  if (problems.length) {
    throw new ConfigError(`The merchant backend's configuration is incomplete: ${problems.join('; ')}. See README "Configuration".`);
  }
  return config;
}

function defaultFor(name: (typeof REQUIRED)[number], d: Partial<MerchantConfig>): string | undefined {
  switch (name) {
    case 'KASIR_BASE_URL': return d.baseUrl;
    case 'KASIR_CLIENT_ID': return d.clientId;
    case 'KASIR_CLIENT_SECRET': return d.clientSecret;
    case 'KASIR_ACCESS_TOKEN': return d.accessToken;
    case 'KASIR_WEBHOOK_SECRET': return d.webhookSecret;
  }
}
