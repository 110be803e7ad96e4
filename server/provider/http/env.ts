import type { AuthenticatedMerchant } from '../instance/deps.js';

/** Hono environment of the payment-service app: the caller, set by the auth middleware. */
export interface ProviderEnv {
  Variables: {
    merchant: AuthenticatedMerchant;
    /** How the caller authenticated. */
    auth: 'signature' | 'bearer';
  };
}
