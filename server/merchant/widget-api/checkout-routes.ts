// The widget API's own checkout routes, beside those it shares with the hosted checkout page (server/common/widget-api.ts):
// creating a checkout, the bounds in front of choosing a method, and the shared routes over this backend's service.
import { Hono, type MiddlewareHandler } from 'hono';
import {
  isCheckoutId,
  jsonBody,
  ok,
  stateChanging,
  widgetApiRoutes,
  type WidgetBackend,
} from '../../common/widget-api.js';
import type { MerchantConfig } from '../config.js';
import type { AddressLimiter } from './guards.js';
import type { MerchantService } from './service.js';

type MethodChosen = Awaited<ReturnType<MerchantService['chooseMethod']>>;

interface CheckoutRouteOptions {
  config: MerchantConfig;
  limiter: AddressLimiter;
  /** Idempotency-Key on the creates (docs/idempotency.md), kept in the shared state. */
  idempotent: MiddlewareHandler;
}

/** POST /checkouts: a checkout for an order the page names, bounded per client address. */
export function createCheckoutRoute(
  service: MerchantService,
  { config, limiter, idempotent }: CheckoutRouteOptions,
): Hono {
  const checkoutLimit = limiter(
    'checkouts',
    60_000,
    config.checkoutRateLimit,
    'Too many checkouts from this address; try again in a minute',
  );
  const app = new Hono();
  // Every POST of the widget API (here and in widgetApiRoutes) is application/json, so a cross-site one is preflighted.
  app.post('/checkouts', stateChanging, checkoutLimit, idempotent, async (c) =>
    ok(c, await service.createCheckout(await jsonBody(c), c.req.raw), 201, 'Checkout created'),
  );
  return app;
}

/**
 * In front of POST /checkouts/:id/deposit (choosing a method): a pending bank transfer holds one of the shop's unique
 * codes until it is paid or expires, so a bound per client address keeps one anonymous shopper from holding them all
 * (when none is left the service answers 409, "choose another method", which passes through). Refused choices do not
 * count. Then its Idempotency-Key.
 */
export function chooseMethodGuards(
  service: MerchantService,
  { config, limiter, idempotent }: CheckoutRouteOptions,
): Hono {
  const transferLimit = limiter(
    'transfers',
    3600_000,
    config.transferRateLimit,
    'Too many bank transfers from this address; choose another method',
    {
      skip: async (c) => {
        const id = c.req.param('id') ?? '';
        const body = (await c.req.json().catch(() => null)) as { method?: unknown } | null;
        return (
          !isCheckoutId(id) || typeof body?.method !== 'string' || !(await service.isBankTransfer(id, body.method))
        );
      },
      skipFailedRequests: true,
    },
  );
  const app = new Hono();
  app.post('/checkouts/:id/deposit', transferLimit, idempotent);
  return app;
}

/**
 * The routes the hosted checkout page serves too, over this backend's service: reading a checkout, choosing and
 * cancelling its method, reading its deposit, and in sandbox mode POST /sandbox/checkouts/:id/pay and /expire.
 * `counted` is where each choice is counted (kasir_method_choices_total, when metrics are on).
 */
export function sharedCheckoutRoutes(
  service: MerchantService,
  config: MerchantConfig,
  counted: (chosen: MethodChosen) => MethodChosen,
  now: () => number,
): Hono {
  const backend: WidgetBackend = {
    getCheckout: (id) => service.getCheckout(id),
    chooseMethod: async (id, method, wallet) => counted(await service.chooseMethod(id, method, wallet)),
    // A page of an allowed origin or of the shop's own return page's (which then wins: widget-api/service.ts).
    isReturnPage: (url) =>
      config.allowedOrigins.includes(url.origin) ||
      (config.returnUrl !== undefined && new URL(config.returnUrl).origin === url.origin),
    readDeposit: (id) => service.readDeposit(id),
    depositNow: (id) => service.depositNow(id),
    cancel: (id) => service.cancel(id),
    sandboxSet: config.sandbox ? (id, status) => service.sandboxSet(id, status) : undefined,
    sandboxPay: config.sandbox ? (id, amount) => service.sandboxPay(id, amount) : undefined,
  };
  return widgetApiRoutes(backend, now);
}
