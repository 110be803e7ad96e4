// The widget API (widget/WIDGET-API.md) for the hosted page's own <kasir-checkout endpoint="/checkout/api">: the
// shared routes of server/common/widget-api.ts (the ones the merchant backend serves) over the service's own
// checkouts and deposits. Mounted at /checkout/api.
import { Hono } from 'hono';
import { checkoutIdParam, ok, widgetApiRoutes, type WidgetBackend } from '../../common/widget-api.js';
import { checkoutDeposit, chooseMethod, requireCheckout, type CheckoutRow } from '../deposits/checkout.js';
import type { TransitionKind } from '../deposits/service.js';
import { checkoutAmount, depositEtag, widgetCheckout, widgetDeposit } from '../deposits/widget-view.js';
import { paymentOrAnswer, transitionOrAnswer } from '../deposits/route-answers.js';
import { ApiError } from '../http/errors.js';
import type { ProviderDeps } from '../instance/deps.js';

/** Whether `url` is the service's own hosted page of checkout `id` (`{baseUrl}/checkout/{id}`, any query). */
export function isHostedPage(baseUrl: string, id: string, url: URL): boolean {
  const page = new URL(`/checkout/${encodeURIComponent(id)}`, baseUrl);
  return url.origin === page.origin && url.pathname === page.pathname;
}

/** The hosted widget API, for mounting at /checkout/api. */
export function hostedWidgetApi(deps: ProviderDeps): Hono {
  const base = () => deps.config.baseUrl;

  const depositOf = async (checkout: CheckoutRow) => {
    const found = await checkoutDeposit(deps, checkout);
    if (!found) throw new ApiError(404, 'Deposit not found');
    return found;
  };
  const viewOf = async (checkout: CheckoutRow) =>
    widgetDeposit(base(), checkout, (await depositOf(checkout)).view, checkoutAmount(checkout, deps.config.rates));

  const wording = {
    notFound: { status: 404 as const },
    notPending: (status: string) => `Deposit is ${status}: only a pending deposit can change`,
  };
  const move = async (id: string, kind: Exclude<TransitionKind, 'expired'>) => {
    const checkout = await requireCheckout(deps, id);
    await depositOf(checkout);
    await transitionOrAnswer(deps, checkout.id, kind, wording);
    return viewOf(checkout);
  };

  // A payment of any amount (docs/design.md, "Payments that do not go as planned"): what is still due by default; after
  // expiry it arrives late.
  const pay = async (id: string, amount?: string) => {
    const checkout = await requireCheckout(deps, id);
    await depositOf(checkout);
    await paymentOrAnswer(deps, checkout.id, { amount }, wording);
    return viewOf(checkout);
  };

  const backend: WidgetBackend = {
    // The service's public routes send a shopper back only to its own hosted page of the checkout.
    isReturnPage: (url, id) => isHostedPage(base(), id, url),
    async getCheckout(id) {
      const checkout = await requireCheckout(deps, id);
      const deposit = await checkoutDeposit(deps, checkout);
      return widgetCheckout(base(), checkout, deposit, deps.now(), deps.config.rates);
    },
    async chooseMethod(id, method, wallet) {
      const checkout = await requireCheckout(deps, id);
      const { choice } = await chooseMethod(deps, checkout, method, wallet);
      return { deposit: await viewOf(checkout), choice };
    },
    async readDeposit(id) {
      const checkout = await requireCheckout(deps, id);
      const { row, view } = await depositOf(checkout);
      return {
        deposit: widgetDeposit(base(), checkout, view, checkoutAmount(checkout, deps.config.rates)),
        etag: depositEtag(row),
      };
    },
    // The hosted page's key is the checkout id, which a shopper may share: it pays and chooses, never ends a payment.
    // The shop cancels (PATCH /v1/deposit/:depositId/cancel, bearer; or its backend's route, with the order's token).
    async cancel() {
      throw new ApiError(403, 'A checkout is cancelled by the shop: PATCH /v1/deposit/:depositId/cancel');
    },
    // Outside sandbox mode the routes exist and refuse, as the service's own sandbox endpoint does.
    async sandboxSet(id, status) {
      if (!deps.config.sandbox) throw new ApiError(403, 'Available in sandbox mode only');
      return status === 'completed' ? pay(id) : move(id, 'sandbox-expired');
    },
    async sandboxPay(id, amount) {
      if (!deps.config.sandbox) throw new ApiError(403, 'Available in sandbox mode only');
      return pay(id, amount);
    },
  };

  const app = new Hono();
  // Nothing the hosted page's element reads may be cached (the deposit read sets its own no-cache + ETag).
  app.use('*', async (c, next) => {
    c.header('Cache-Control', 'no-store');
    await next();
  });
  app.route(
    '/',
    widgetApiRoutes(backend, () => deps.now().getTime()),
  );
  // Refund claims are the shop's to take (its backend runs onRefundRequested; docs/refunds.md): this page takes none,
  // so its element keeps saying that the shop will refund and offers no form.
  app.get('/checkouts/:id/refund-claim', async (c) => {
    await requireCheckout(deps, checkoutIdParam(c));
    return ok(c, { accepted: false });
  });
  return app;
}
