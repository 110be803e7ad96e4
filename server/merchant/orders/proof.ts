// Acting on a checkout a page opened for an order (choosing, switching, cancelling, a refund claim) takes the order's
// token (docs/security.md): its header, or `orderToken` in the JSON body, checked before anything is done.
import { Hono } from 'hono';
import { isCheckoutId } from '../../common/widget-api.js';
import { ORDER_TOKEN_HEADER } from './order-token.js';

/** Every POST on a checkout, the sandbox's included, asks `checkProof` first (it throws the refusal). */
export function orderProofGuard(checkProof: (checkoutId: string, token: unknown) => Promise<void>): Hono {
  const app = new Hono();
  app.on('POST', ['/checkouts/:id/*', '/sandbox/checkouts/:id/*'], async (c, next) => {
    const id = c.req.param('id') ?? '';
    if (isCheckoutId(id)) {
      const body = (await c.req.json().catch(() => null)) as { orderToken?: unknown } | null;
      await checkProof(id, c.req.header(ORDER_TOKEN_HEADER) ?? body?.orderToken);
    }
    await next();
  });
  return app;
}
