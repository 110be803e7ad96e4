import type { ProviderConfig } from '../config.js';
import type { Db } from '../db/database.js';
import type { DepositCaches } from '../deposits/read-cache.js';

/** What every part of the payment service is built from; route and middleware factories take it. */
export interface ProviderDeps {
  db: Db;
  config: ProviderConfig;
  /** HS256 key for access tokens, generated on first start and kept in the data dir. */
  jwtSecret: string;
  /** The service's clock; tests move it to exercise expiry and timestamp windows. */
  now: () => Date;
  /**
   * This instance's in-process caches. They hang here, never off a module: two services in one process (tests,
   * a shop's own test suite) never share one.
   */
  caches: DepositCaches;
}

/** The merchant account a signed request or a bearer token resolved to. */
export interface AuthenticatedMerchant {
  merchantId: string;
  organizationId: string;
  userId: string;
  clientId: string;
}

/** Hono environment of the payment-service app: the caller, set by the auth middleware. */
export interface ProviderEnv {
  Variables: {
    merchant: AuthenticatedMerchant;
    /** How the caller authenticated. */
    auth: 'signature' | 'bearer';
  };
}
