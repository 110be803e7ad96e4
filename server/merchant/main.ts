import { serve } from '@hono/node-server';
import { serveStatic } from '@hono/node-server/serve-static';
import { Hono } from 'hono';
import type { AddressInfo } from 'node:net';

/** Placeholder until the merchant backend lands: serves the built widget. */
export async function startMerchantFromSandbox(_credentials: unknown) {
  const app = new Hono();
  app.get('/kasir-checkout.js', serveStatic({ path: './dist/widget/kasir-checkout.js' }));
  const server = serve({ fetch: app.fetch, port: Number(process.env.PORT || 3000) });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  return {
    url: `http://localhost:${(server.address() as AddressInfo).port}`,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
