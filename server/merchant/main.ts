// Starts the merchant backend: `npm run start:merchant` (configured by env, DESIGN.md section 2), or
// `startMerchantFromSandbox(credentials)` from `npm start` (configured by the sandbox's sandbox.json).
import { listen } from '../common/http-server.js';
import { createMerchantApp, type MerchantApp, type MerchantAppOptions } from './app.js';
import { ConfigError, loadMerchantConfig, type MerchantConfig } from './config.js';

export { createMerchantApp, type MerchantAppOptions } from './app.js';
export { PaymentServiceClient } from './client/client.js';
export { PaymentServiceError, PaymentServiceUnavailableError } from './client/errors.js';
export { ConfigError, loadMerchantConfig, type MerchantConfig } from './config.js';

/** What the backend needs from the sandbox's credentials (the shape of sandbox.json; no import of its code). */
export type ServiceCredentials = Pick<MerchantConfig, 'baseUrl' | 'checkoutUrl' | 'clientId' | 'clientSecret' | 'accessToken' | 'webhookSecret'>;

export interface RunningMerchant {
  app: MerchantApp;
  config: MerchantConfig;
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** The default completion hook of the commands: a log line (a real shop marks its order paid here). */
const logCompletion: MerchantAppOptions['onDepositCompleted'] = ({ checkoutId, orderId, deposit }) => {
  console.log(`[merchant] deposit ${checkoutId}${orderId ? ` (order ${orderId})` : ''} completed: ${deposit.inputAmount} ${deposit.inputCurrency}`);
};

export async function startMerchant(config: MerchantConfig, options: Omit<MerchantAppOptions, 'config'> = {}): Promise<RunningMerchant> {
  const app = createMerchantApp({ ...options, config });
  const { port, close } = await listen(app.fetch, config.port, config.host);
  return {
    app, config, port,
    url: `http://localhost:${port}`,
    stop: close,
  };
}

/** `npm start`: the backend against the embedded sandbox; the rest of the configuration still comes from env. */
export async function startMerchantFromSandbox(credentials: ServiceCredentials, options: Omit<MerchantAppOptions, 'config'> = {}, env: NodeJS.ProcessEnv = process.env) {
  const config = loadMerchantConfig(env, {
    baseUrl: credentials.baseUrl,
    checkoutUrl: credentials.checkoutUrl,
    clientId: credentials.clientId,
    clientSecret: credentials.clientSecret,
    accessToken: credentials.accessToken,
    webhookSecret: credentials.webhookSecret,
    sandbox: true,
  });
  // The sandbox's credentials win over stale KASIR_* variables in the environment.
  Object.assign(config, {
    baseUrl: credentials.baseUrl.replace(/\/+$/, ''), checkoutUrl: credentials.checkoutUrl.replace(/\/+$/, ''),
    clientId: credentials.clientId, clientSecret: credentials.clientSecret, accessToken: credentials.accessToken, webhookSecret: credentials.webhookSecret,
  });
  return startMerchant(config, { onDepositCompleted: logCompletion, ...options });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  let config: MerchantConfig;
  try {
    config = loadMerchantConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`[merchant] ${err.message}`);
      process.exit(1);
    }
    throw err;
  }
  const merchant = await startMerchant(config, { onDepositCompleted: logCompletion });
  console.log(`[merchant] storefront and widget API on ${merchant.url} (payment service ${config.baseUrl}${config.sandbox ? ', sandbox routes on' : ''})`);
  const shutdown = () => merchant.stop().finally(() => process.exit(0));
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}
