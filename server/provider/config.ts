import { resolve } from 'node:path';

/** Everything the payment-service sandbox reads from its environment, parsed once. */
export interface ProviderConfig {
  port: number;
  dataDir: string;
  /** Public origin of the service, e.g. http://localhost:4010 (the interface's {base_url}). */
  baseUrl: string;
  /** True in the sandbox: enables PATCH /v1/deposit/:id, the mailbox and the e-wallet approval page. */
  sandbox: boolean;
  /** When set (postgres://...), the service uses PostgreSQL instead of the embedded SQLite file. */
  databaseUrl?: string;
  /** Where the seeded merchant's webhooks go (DESIGN.md section 2). */
  seedWebhookUrl: string;
  /** scrypt cost parameter N (2^17 in production; tests lower it). */
  scryptN: number;
  /** Deposit validity per payment kind, in seconds. */
  expirySeconds: { va: number; bank: number; qris: number; ewallet: number; crypto: number };
  /** How often the expiry sweeper runs, in ms. */
  sweepIntervalMs: number;
  smtpUrl?: string;
}

const int = (v: string | undefined, fallback: number) => {
  const n = Number(v);
  return Number.isFinite(n) && v !== undefined && v !== '' ? n : fallback;
};

export function loadProviderConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<ProviderConfig> = {}): ProviderConfig {
  const port = int(env.PROVIDER_PORT, 4010);
  const merchantPort = int(env.PORT, 3000);
  return {
    port,
    dataDir: resolve(env.KASIR_DATA_DIR || '.kasir'),
    baseUrl: (env.KASIR_PROVIDER_PUBLIC_URL || `http://localhost:${port}`).replace(/\/$/, ''),
    sandbox: env.KASIR_SANDBOX !== 'false',
    databaseUrl: env.DATABASE_URL || undefined,
    seedWebhookUrl: env.KASIR_WEBHOOK_URL || `http://localhost:${merchantPort}/api/webhooks/kasir`,
    scryptN: int(env.KASIR_SCRYPT_N, 2 ** 17),
    expirySeconds: {
      va: int(env.KASIR_EXPIRY_VA_SECONDS, 24 * 3600),
      bank: int(env.KASIR_EXPIRY_BANK_SECONDS, 24 * 3600),
      qris: int(env.KASIR_EXPIRY_QRIS_SECONDS, 30 * 60),
      ewallet: int(env.KASIR_EXPIRY_EWALLET_SECONDS, 15 * 60),
      crypto: int(env.KASIR_EXPIRY_CRYPTO_SECONDS, 60 * 60),
    },
    sweepIntervalMs: int(env.KASIR_SWEEP_INTERVAL_MS, 5_000),
    smtpUrl: env.SMTP_URL || undefined,
    ...overrides,
  };
}
