// A Next.js (App Router) shop's `app/api/[...kasir]/route.ts`: @kasir/merchant's widget API and webhook receiver
// as route handlers. The element on any page then uses `endpoint="/api"`, and the payment service's webhook URL is
// https://your.shop/api/webhooks/kasir. (test/e2e/next-route.test.ts serves this very file and pays through it.)
import { createKasirApi } from '@kasir/merchant';
import { Hono } from 'hono';

let app: Hono | undefined;

/** Made on the first request, so `next build` needs none of the payment service's secrets in its environment. */
function kasir(): Hono {
  app ??= new Hono().route(
    '/api',
    createKasirApi({
      baseUrl: process.env.KASIR_BASE_URL ?? '',
      clientId: process.env.KASIR_CLIENT_ID ?? '',
      clientSecret: process.env.KASIR_CLIENT_SECRET ?? '',
      accessToken: process.env.KASIR_ACCESS_TOKEN ?? '',
      webhookSecret: process.env.KASIR_WEBHOOK_SECRET ?? '',
      sandbox: process.env.KASIR_SANDBOX === 'true',
      onDepositCompleted: async ({ checkoutId, orderId }) => {
        // Mark the order paid in the shop's database here: this runs once per deposit.
        console.log(`[next shop] checkout ${checkoutId}${orderId ? ` (order ${orderId})` : ''} paid`);
      },
    }),
  );
  return app;
}

const handle = (request: Request): Response | Promise<Response> => kasir().fetch(request);

export { handle as GET, handle as POST, handle as OPTIONS };
/** Node's crypto signs the payment service's requests; every answer is live. */
export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';
