// The merchant backend's settings for a sandbox, as `kasir-sandbox env` prints them (docs/testing.md), for the tests
// and benchmarks that start the merchant command or a recipe as a child process.
import type { SandboxCredentials } from '../../server/provider/sandbox/seed';

/** The merchant command's connection to a sandbox in sandbox mode: its credentials, the service at `baseUrl` (the
 * sandbox's own, or a proxy or balancer in front of it). */
export function sandboxConnectionEnv(credentials: SandboxCredentials, baseUrl = credentials.baseUrl) {
  return {
    KASIR_BASE_URL: baseUrl,
    KASIR_CHECKOUT_URL: credentials.checkoutUrl,
    KASIR_CLIENT_ID: credentials.clientId,
    KASIR_CLIENT_SECRET: credentials.clientSecret,
    KASIR_ACCESS_TOKEN: credentials.accessToken,
    KASIR_WEBHOOK_SECRET: credentials.webhookSecret,
    KASIR_SANDBOX: 'true',
  };
}
