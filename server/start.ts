// `npm start`: the payment-service sandbox and the merchant backend (with the demo) in one process.
import { loadProviderConfig } from './provider/config';
import { startProvider } from './provider/main';

const provider = await startProvider(loadProviderConfig());
console.log(`[provider] payment service sandbox on ${provider.url}`);
console.log(`[provider] credentials in ${provider.deps.config.dataDir}/sandbox.json`);

const stops: Array<() => Promise<void>> = [() => provider.stop()];
try {
  const { startMerchantFromSandbox } = await import('./merchant/main');
  const merchant = await startMerchantFromSandbox(provider.credentials);
  stops.unshift(() => merchant.stop());
  console.log(`[merchant] storefront and widget API on ${merchant.url}`);
} catch (err) {
  console.error('[merchant] not started:', err instanceof Error ? err.message : err);
}

const shutdown = async () => {
  for (const stop of stops) await stop().catch(() => {});
  process.exit(0);
};
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
