// The settings createKasirApi reads from the environment beside its options, the same variables the kasir-merchant
// command reads (docs/configuration.md): one configuration path, options winning. The connection (KASIR_BASE_URL and
// the credentials) is read at the first request instead (config.ts), so creating the API reads no secret.
import type { MerchantConfig } from './config.js';

type Kind = 'string' | 'int' | 'bool' | 'list' | 'fees';

/** Each setting's variable and how its text is read; the compiler keeps it complete (every setting but the connection). */
export const ENV_SETTINGS = {
  allowedOrigins: ['KASIR_ALLOWED_ORIGINS', 'list'],
  feesPaidBy: ['KASIR_FEES_PAID_BY', 'fees'],
  returnUrl: ['KASIR_RETURN_URL', 'string'],
  sandbox: ['KASIR_SANDBOX', 'bool'],
  allowClientAmounts: ['KASIR_ALLOW_CLIENT_AMOUNTS', 'bool'],
  currencies: ['KASIR_CURRENCIES', 'list'],
  checkoutRateLimit: ['KASIR_CHECKOUT_RATE_LIMIT', 'int'],
  unknownCheckoutRateLimit: ['KASIR_UNKNOWN_CHECKOUT_RATE_LIMIT', 'int'],
  transferRateLimit: ['KASIR_TRANSFER_RATE_LIMIT', 'int'],
  statusRefreshMs: ['KASIR_STATUS_REFRESH_MS', 'int'],
  webhookToleranceSeconds: ['KASIR_WEBHOOK_TOLERANCE_SECONDS', 'int'],
  trustProxy: ['KASIR_TRUST_PROXY', 'bool'],
  redisUrl: ['REDIS_URL', 'string'],
  redisPrefix: ['KASIR_REDIS_PREFIX', 'string'],
  redisTimeoutMs: ['KASIR_REDIS_TIMEOUT_MS', 'int'],
  dataDir: ['KASIR_DATA_DIR', 'string'],
  sseMaxPerAddress: ['KASIR_SSE_MAX_PER_ADDRESS', 'int'],
  sseMaxTotal: ['KASIR_SSE_MAX_TOTAL', 'int'],
} as const satisfies Record<
  Exclude<
    keyof MerchantConfig,
    'baseUrl' | 'checkoutUrl' | 'clientId' | 'clientSecret' | 'accessToken' | 'webhookSecret'
  >,
  readonly [string, Kind]
>;

export type EnvSetting = keyof typeof ENV_SETTINGS;

/**
 * The settings set in `env` (an empty variable is unset), as option values for the options' own checks, and a
 * problem naming the variable for each value that is not even of its kind (a number, true or false).
 */
export function settingsFromEnv(env: NodeJS.ProcessEnv): {
  values: Partial<Record<EnvSetting, unknown>>;
  problems: string[];
} {
  const values: Partial<Record<EnvSetting, unknown>> = {};
  const problems: string[] = [];
  for (const [name, [variable, kind]] of Object.entries(ENV_SETTINGS) as Array<[EnvSetting, readonly [string, Kind]]>) {
    const raw = env[variable]?.trim();
    if (!raw) continue;
    if (kind === 'string') values[name] = raw;
    // `merchant`, `shopper`, or one per kind: `va:shopper,ewallet:shopper` (docs/indonesian-payments.md).
    else if (kind === 'fees')
      values[name] = raw.includes(':')
        ? Object.fromEntries(raw.split(',').map((pair) => pair.split(':').map((part) => part.trim())))
        : raw;
    else if (kind === 'list')
      values[name] = raw
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean);
    else if (kind === 'int') {
      const n = Number(raw);
      if (/^\d+$/.test(raw) && Number.isSafeInteger(n)) values[name] = n;
      else problems.push(`${variable} must be an integer (got "${raw}")`);
    } else {
      const word = raw.toLowerCase();
      if (['true', '1', 'yes'].includes(word)) values[name] = true;
      else if (['false', '0', 'no'].includes(word)) values[name] = false;
      else problems.push(`${variable} must be true or false (got "${raw}")`);
    }
  }
  return { values, problems };
}
