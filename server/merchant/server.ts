// The merchant backend as its own process (the kasir-merchant command, and the demo shop built on it): the widget
// API and the webhook receiver under /api, and the widget's script at /kasir-checkout.js.
import { Hono } from 'hono';
import { listen } from '../common/http-server.js';
import { kasirRoutes, type KasirApi } from './api.js';
import type { MerchantServerOptions } from './config.js';
import { onError, onNotFound } from './http.js';
import { widgetScriptRoutes } from './widget-script.js';

export type MerchantApp = Hono & { api: KasirApi };

/** `/api` (createKasirApi) and `/kasir-checkout.js` in one app; a shop may add its own routes before serving it. */
export function createMerchantApp(options: MerchantServerOptions): MerchantApp {
  const api = kasirRoutes(options);
  const app = new Hono();
  app.onError(onError);
  app.notFound(onNotFound);
  app.route('/api', api);
  app.route('/', widgetScriptRoutes());
  return Object.assign(app, { api });
}

export interface RunningMerchant {
  app: MerchantApp;
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** Serves `app` (default: createMerchantApp(options)) on options.port (default 3000; 0 picks a free one). */
export async function startMerchant(options: MerchantServerOptions, app: MerchantApp = createMerchantApp(options)): Promise<RunningMerchant> {
  const { port, close } = await listen(app.fetch, options.port ?? 3000, options.host);
  return { app, port, url: `http://localhost:${port}`, stop: close };
}
