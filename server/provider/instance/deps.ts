// What every part of the payment service is built from (ProviderDeps: made once in process/main.ts openProvider), and the
// caller an authentication resolved to. The domain (deposits/, auth/, webhooks/, recipients/, dashboard/) and the web
// layer (http/, each feature's routes.ts) both take it from here; the web layer's own Hono env stays in http/env.ts.
import type { LookupAddress } from 'node:dns';
import type { Logger } from '../../common/log.js';
import type { ExpiringCache } from './cache.js';
import type { ProviderConfig } from './config.js';
import type { Db } from '../db/database.js';
import type { Mailer } from '../mail/mailer.js';
import type { ChangeFeed } from './change-feed.js';
import type { SandboxTelemetry } from './telemetry.js';

/** What every part of the payment service is built from; route and middleware factories take it. */
export interface ProviderDeps {
  db: Db;
  config: ProviderConfig;
  /** HS256 key for access tokens, generated on first start and kept in the database (every copy shares it). */
  jwtSecret: string;
  /** The service's clock; tests move it to exercise expiry and timestamp windows. */
  now: () => Date;
  /** JSON logs of this instance (config.logLevel); never given a secret. */
  logger: Logger;
  /** How webhook hosts are resolved for the public-address check outside sandbox mode (default: the system's DNS). */
  resolveHost?: (hostname: string) => Promise<LookupAddress[]>; // a HostResolver (webhooks/url-guard.ts)
  /** Sends the service's mail (OTP codes): SMTP when configured, else the sandbox mailbox. */
  mailer: Mailer;
  /**
   * This instance's in-process caches, made in process/main.ts openProvider. They hang here, never off a module: two services
   * in one process (tests, a shop's own test suite) never share one.
   */
  caches: ProviderCaches;
  /** Every committed change of a deposit, this instance's and (PostgreSQL) other copies': the read cache and the dispatcher listen. */
  changes: ChangeFeed;
  /** This instance's metrics (config.metrics) and the traces its webhooks continue (instance/telemetry.ts). */
  telemetry?: SandboxTelemetry;
}

/**
 * The instance's caches of the layers at this level; the deposit core adds its own (deposits/service.ts, by declaration
 * merging), so this file names nothing above it.
 */
export interface ProviderCaches {
  /** Merchant credentials by client id, read by the signature check (auth/credentials.ts). */
  credentials: ExpiringCache<Credential>;
  /** The merchant of each access token recently verified, by token (auth/tokens.ts). */
  verifiedTokens: ExpiringCache<AuthenticatedMerchant>;
  /** Organization names by id: a deposit's accountName and QRIS merchant name (deposits/payment-plan.ts). */
  organizationNames: ExpiringCache<string>;
  /** The hash a login for an unknown email is checked against, made on first use (auth/accounts.ts). */
  dummyHash?: Promise<string>;
}

/** The merchant account a signed request or a bearer token resolved to. */
export interface AuthenticatedMerchant {
  merchantId: string;
  organizationId: string;
  userId: string;
  clientId: string;
}

/** A client's signing secret and the merchant account it signs for (auth/credentials.ts). */
export interface Credential {
  merchant: AuthenticatedMerchant;
  secret: string;
}
