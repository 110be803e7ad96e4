// The widget API (widget/WIDGET-API.md) for the hosted page's own <kasir-checkout endpoint="/checkout/api">:
// the same shape the merchant backend serves, here over the service's own checkouts. Mounted at /checkout/api.
import type { Context } from 'hono';
import { z } from '@hono/zod-openapi';
import { checkoutDeposit, chooseMethod, requireCheckout, type CheckoutRow } from '../deposits/checkout.js';
import { DepositNotFound, DepositNotPending, transitionDeposit, type TransitionKind } from '../deposits/service.js';
import { depositEtag, widgetCheckout, widgetDeposit } from '../deposits/widget-view.js';
import { ApiError, createRouter, describeZodError } from '../http/errors.js';
import type { ProviderDeps } from '../http/env.js';

/** The hosted widget API, for mounting at /checkout/api. */
export function hostedWidgetApi(deps: ProviderDeps) {
  const router = createRouter();
  const base = () => deps.config.baseUrl;

  const widgetDepositOf = async (checkout: CheckoutRow) => {
    const found = await checkoutDeposit(deps, checkout);
    if (!found) throw new ApiError(404, 'Deposit not found');
    return found.row;
  };

  router.get('/checkouts/:id', async (c) => {
    const checkout = await requireCheckout(deps, c.req.param('id'));
    const deposit = await checkoutDeposit(deps, checkout);
    c.header('Cache-Control', 'no-store');
    return c.json({ statusCode: 200, message: 'Checkout retrieved successfully', data: widgetCheckout(base(), checkout, deposit?.row, deps.now()) }, 200);
  });

  const MethodBody = z.object({ method: z.string({ error: 'must be a string' }).min(1).max(32) });
  router.post('/checkouts/:id/deposit', async (c) => {
    const checkout = await requireCheckout(deps, c.req.param('id'));
    const parsed = MethodBody.safeParse(await jsonBody(c));
    if (!parsed.success) throw new ApiError(400, describeZodError(parsed.error));
    const { created } = await chooseMethod(deps, checkout, parsed.data.method);
    const row = await widgetDepositOf(checkout);
    return c.json({ statusCode: created ? 201 : 200, message: 'Deposit created successfully', data: widgetDeposit(base(), checkout, row, deps.now()) }, created ? 201 : 200);
  });

  router.get('/checkouts/:id/deposit', async (c) => {
    const checkout = await requireCheckout(deps, c.req.param('id'));
    const row = await widgetDepositOf(checkout);
    const etag = depositEtag(row);
    c.header('ETag', etag);
    c.header('Cache-Control', 'no-cache');
    const match = c.req.header('if-none-match');
    if (match && (match.trim() === '*' || match.split(',').map((t) => t.trim().replace(/^W\//, '')).includes(etag))) return c.body(null, 304);
    return c.json({ statusCode: 200, message: 'Deposit retrieved successfully', data: widgetDeposit(base(), checkout, row, deps.now()) }, 200);
  });

  const move = (kind: Exclude<TransitionKind, 'expired'>, sandboxOnly: boolean) => async (c: Context) => {
    if (sandboxOnly && !deps.config.sandbox) throw new ApiError(403, 'Available in sandbox mode only');
    const checkout = await requireCheckout(deps, c.req.param('id')!);
    await widgetDepositOf(checkout);
    try {
      await transitionDeposit(deps, checkout.id, kind);
    } catch (err) {
      if (err instanceof DepositNotFound) throw new ApiError(404, 'Deposit not found');
      if (err instanceof DepositNotPending) throw new ApiError(400, `Deposit is ${err.status}: only a pending deposit can change`);
      throw err;
    }
    return c.json({ statusCode: 200, message: 'Deposit updated successfully', data: widgetDeposit(base(), checkout, await widgetDepositOf(checkout), deps.now()) }, 200);
  };
  router.post('/checkouts/:id/cancel', move('cancelled', false));
  router.post('/sandbox/checkouts/:id/pay', move('sandbox-completed', true));
  router.post('/sandbox/checkouts/:id/expire', move('sandbox-expired', true));

  return router;
}

/** A JSON body, {} when there is none; malformed JSON is a 400 envelope. */
async function jsonBody(c: Context): Promise<unknown> {
  const text = await c.req.text();
  if (!text.trim()) return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError(400, 'Malformed JSON in request body');
  }
}
