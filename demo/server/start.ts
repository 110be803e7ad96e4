// `npm start`: the payment-service sandbox and the demo shop (the merchant backend with its pages) in one process,
// on the embedded defaults (docs/design.md, "Running it").
import { loadMerchantConfig, type RunningMerchant } from '@kasir/merchant';
import { startSandbox } from '@kasir/sandbox';
import { listenStorefront } from './listen.js';

// Webhooks wait in the outbox until the shop's receiver listens (startDelivery below), so the first ones are not
// sent to a closed port and put off to the 5-second retry. JSON logs at info unless KASIR_LOG_LEVEL says otherwise.
const sandbox = await startSandbox({
  deliverWebhooks: false,
  logLevel: process.env.KASIR_LOG_LEVEL ? undefined : 'info',
});
console.log(`[provider] payment service sandbox on ${sandbox.url}`);

let merchant: RunningMerchant | undefined;
try {
  const { credentials } = sandbox;
  // The sandbox's credentials win over stale KASIR_* variables; the rest of the configuration comes from env.
  const env = {
    ...process.env,
    KASIR_BASE_URL: undefined,
    KASIR_CHECKOUT_URL: undefined,
    KASIR_CLIENT_ID: undefined,
    KASIR_CLIENT_SECRET: undefined,
    KASIR_ACCESS_TOKEN: undefined,
    KASIR_WEBHOOK_SECRET: undefined,
  };
  merchant = await listenStorefront(
    loadMerchantConfig(env, {
      baseUrl: credentials.baseUrl,
      checkoutUrl: credentials.checkoutUrl,
      clientId: credentials.clientId,
      clientSecret: credentials.clientSecret,
      accessToken: credentials.accessToken,
      webhookSecret: credentials.webhookSecret,
      sandbox: true,
      // The shop's own site, configured (a wallet's page sends the shopper back only to an allowed origin).
      allowedOrigins: [`http://localhost:${process.env.PORT || 3000}`, `http://127.0.0.1:${process.env.PORT || 3000}`],
    }),
  );
} catch (err) {
  console.error('[merchant] not started:', err instanceof Error ? err.message : err);
} finally {
  // Also when the shop did not start: a receiver configured elsewhere (KASIR_WEBHOOK_URL) still gets its webhooks.
  sandbox.startDelivery();
}

// Both stop accepting at once and finish what is in flight: the shop's requests to the sandbox, the sandbox's
// webhooks to the shop.
const shutdown = async () => {
  await Promise.all([merchant?.stop().catch(() => {}), sandbox.stop().catch(() => {})]);
  process.exit(0);
};
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
