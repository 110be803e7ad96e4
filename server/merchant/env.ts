// The merchant backend's environment variables and the one function that reads them (docs/configuration.md):
// createKasirApi (config.ts), the kasir-merchant command (loadMerchantConfig in config.ts) and the check (check.ts:
// kasir.check() and kasir-merchant check) all read the environment through readEnvironment, options winning.
type Kind = 'string' | 'int' | 'bool' | 'list' | 'fees';

/** The connection to the payment service: createKasirApi reads these at the first request, so creating it reads no secret. */
export const CONNECTION_VARIABLES = {
  baseUrl: ['KASIR_BASE_URL', 'string'],
  checkoutUrl: ['KASIR_CHECKOUT_URL', 'string'],
  clientId: ['KASIR_CLIENT_ID', 'string'],
  clientSecret: ['KASIR_CLIENT_SECRET', 'string'],
  accessToken: ['KASIR_ACCESS_TOKEN', 'string'],
  webhookSecret: ['KASIR_WEBHOOK_SECRET', 'string'],
} as const;

export type ConnectionName = keyof typeof CONNECTION_VARIABLES;

/** Each other setting's variable and how its text is read; the compiler keeps it complete (every setting). */
export const ENV_SETTINGS = {
  allowedOrigins: ['KASIR_ALLOWED_ORIGINS', 'list'],
  feesPaidBy: ['KASIR_FEES_PAID_BY', 'fees'],
  returnUrl: ['KASIR_RETURN_URL', 'string'],
  orderSecret: ['KASIR_ORDER_SECRET', 'string'],
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
  metrics: ['KASIR_METRICS', 'bool'],
  metricsToken: ['KASIR_METRICS_TOKEN', 'string'],
  followMs: ['KASIR_FOLLOW_MS', 'int'],
} as const satisfies Record<string, readonly [string, Kind]>; // each a setting of MerchantConfig (config.ts checks)

export type EnvSetting = keyof typeof ENV_SETTINGS;

/** Where the kasir-merchant command listens: read by the command only. */
const SERVER_VARIABLES = {
  port: ['PORT', 'int'],
  host: ['HOST', 'string'],
} as const;

const ENV_VARIABLES = { ...CONNECTION_VARIABLES, ...ENV_SETTINGS, ...SERVER_VARIABLES } as const;

export type EnvName = keyof typeof ENV_VARIABLES;

/** A setting's variable, for messages. */
export const variableOf = (name: EnvName): string => ENV_VARIABLES[name][0];

export interface Environment {
  /** Each setting whose variable is set (an empty one is unset), as an option value for the options' own checks. */
  values: Partial<Record<EnvName, unknown>>;
  /** The settings whose variable is set, well formed or not. */
  set: ReadonlySet<EnvName>;
  /** A problem naming the variable, for each value that is not even of its kind (a number, true or false). */
  problems: Partial<Record<EnvName, string>>;
}

/** Reads every variable of the merchant backend from `env`: the one reader of the environment. */
export function readEnvironment(env: NodeJS.ProcessEnv): Environment {
  const values: Partial<Record<EnvName, unknown>> = {};
  const set = new Set<EnvName>();
  const problems: Partial<Record<EnvName, string>> = {};
  for (const [name, [variable, kind]] of Object.entries(ENV_VARIABLES) as Array<[EnvName, readonly [string, Kind]]>) {
    const raw = env[variable]?.trim();
    if (!raw) continue;
    set.add(name);
    if (kind === 'string') values[name] = raw;
    // `merchant`, `shopper`, or one per kind: `va:shopper,ewallet:shopper` (docs/indonesian-payments.md).
    else if (kind === 'fees') {
      const text = raw.toLowerCase();
      values[name] = text.includes(':')
        ? Object.fromEntries(text.split(',').map((pair) => pair.split(':').map((part) => part.trim())))
        : text;
    } else if (kind === 'list')
      values[name] = raw
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean);
    else if (kind === 'int') {
      const n = Number(raw);
      if (/^\d+$/.test(raw) && Number.isSafeInteger(n)) values[name] = n;
      else problems[name] = `${variable} must be an integer (got "${raw}")`;
    } else {
      const word = raw.toLowerCase();
      if (['true', '1', 'yes'].includes(word)) values[name] = true;
      else if (['false', '0', 'no'].includes(word)) values[name] = false;
      else problems[name] = `${variable} must be true or false (got "${raw}")`;
    }
  }
  return { values, set, problems };
}
