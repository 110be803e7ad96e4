import { createHash } from 'node:crypto';
import type { Context } from 'hono';
import { html, raw } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import { findPaymentMethod } from '../catalog/index.js';
import { organizationNameOf } from '../accounts/merchants.js';
import { lastDeliveryOf, recentAttempts } from '../webhooks/history.js';
import { logoUrl } from '../catalog/logos.js';
import { DepositNotPending, readDepositById, recordPayment } from '../deposits/service.js';
import { recordFailedAttempt, type FailureReason } from '../deposits/attempts.js';
import { paymentFiatOf } from '../deposits/view.js';
import { METHOD_KINDS } from '../deposits/method-kinds.js';
import { bearerOrSignature } from '../auth/bearer.js';
import { ApiError, createRouter } from '../http/errors.js';
import { htmlPage } from '../http/page.js';
import type { ProviderDeps } from '../instance/deps.js';
import { signatureAuth } from '../auth/signature.js';
import { money, toText } from '../deposits/money.js';
import { resendDelivery } from '../webhooks/resend.js';

const CSS = `:root{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#111827;background:#f3f4f6}
body{margin:0;display:flex;justify-content:center}main{max-width:400px;width:100%;margin:40px 16px;background:#fff;border-radius:14px;padding:24px;box-shadow:0 1px 3px rgba(0,0,0,.12)}
img{height:40px}h1{font-size:1.15rem;margin:12px 0}.amount{font-size:1.8rem;font-weight:700;margin:8px 0 16px}.muted{color:#6b7280;font-size:.9rem}
form{display:inline}button{font:inherit;border:0;border-radius:8px;padding:10px 18px;margin:12px 8px 0 0;cursor:pointer}
.approve{background:#059669;color:#fff}.decline{background:#e5e7eb;color:#111827}.badge{display:inline-block;padding:4px 10px;border-radius:999px;background:#eef2ff}`;
const CSS_HASH = createHash('sha256').update(CSS).digest('base64');
/** The pages' policy; a redirect wallet's forms may also lead back to the shop's page (`back`: its origin). */
const csp = (back = '') =>
  `default-src 'none'; style-src 'sha256-${CSS_HASH}'; img-src 'self'; form-action 'self'${back && ` ${back}`}; base-uri 'none'; frame-ancestors 'none'`;

function formatIdr(amount: string, currency: string): string {
  const [int, frac] = money(amount).toFixed().split('.');
  const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, '.');
  return `${currency === 'IDR' ? 'Rp' : currency} ${grouped}${frac ? ',' + frac : ''}`;
}

/** A page of the e-wallet simulator in the shell: its style and `content` in <main>. */
function simulatorPage(
  c: Context,
  status: 200 | 403 | 404,
  title: string,
  content: HtmlEscapedString | Promise<HtmlEscapedString>,
  back?: string,
) {
  c.header('Content-Security-Policy', csp(back));
  c.header('Cache-Control', 'no-store');
  c.header('Referrer-Policy', 'no-referrer');
  return c.html(
    htmlPage({
      title,
      head: html`<style>${raw(CSS)}</style>`,
      body: html`<main>
${content}
</main>`,
    }),
    status,
  );
}

const NOT_AVAILABLE = html`<h1>Not available</h1><p>The e-wallet simulator exists in sandbox mode only.</p>`;
const NOT_FOUND = html`<h1>Payment not found</h1><p class="muted">There is no e-wallet payment with this link.</p>`;

/** A whole number from a query parameter, within bounds: a 400 naming the parameter otherwise. */
function queryInteger(value: string | undefined, name: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,15}$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new ApiError(400, `${name}: must be a whole number from ${min} to ${max}`);
  }
  return Number(value);
}

/**
 * The sandbox's own pages and endpoints: the e-wallet approval page (where an e-wallet deposit's checkoutUrl leads;
 * plain forms, no script), and for `kasir-sandbox` and startSandbox (A or S, sandbox mode only) the webhook attempts
 * and a resend of a deposit's last webhook.
 */
export function sandboxRoutes(deps: ProviderDeps) {
  const router = createRouter();
  const either = bearerOrSignature(deps, signatureAuth(deps));
  const sandboxOnly = (what: string) => {
    if (!deps.config.sandbox) throw new ApiError(403, `${what} is available in sandbox mode only`);
  };

  // Newest first: the last `limit` (20 by default), or with `after` those after that attempt (a follower's poll).
  router.get('/sandbox/webhooks', either, async (c) => {
    sandboxOnly('The webhook attempt list');
    const limit = queryInteger(c.req.query('limit'), 'limit', 1, 1000) ?? 20;
    const after = queryInteger(c.req.query('after'), 'after', 0, Number.MAX_SAFE_INTEGER);
    const depositId = c.req.query('depositId');
    if (depositId !== undefined && (depositId.length === 0 || depositId.length > 128))
      throw new ApiError(400, 'depositId: must be 1 to 128 characters');
    const data = await recentAttempts(deps.db, c.get('merchant').merchantId, {
      limit,
      after,
      depositIds: depositId === undefined ? undefined : [depositId],
    });
    return c.json({ statusCode: 200, message: 'Webhook attempts', data }, 200);
  });

  router.post('/sandbox/deposits/:depositId/resend', either, async (c) => {
    sandboxOnly('Resending a webhook');
    const depositId = c.req.param('depositId');
    const { merchantId } = c.get('merchant');
    const last = depositId.length <= 128 ? await lastDeliveryOf(deps.db, merchantId, depositId) : undefined;
    if (!last) throw new ApiError(404, `No webhook was sent for deposit ${depositId}`);
    const id = (await resendDelivery(deps, merchantId, last))!;
    return c.json({ statusCode: 200, message: 'Queued to be sent again', data: { id, resendOf: last } }, 200);
  });

  router.get('/sandbox/ewallet/:depositId', async (c) => {
    if (!deps.config.sandbox) return simulatorPage(c, 403, 'Not available', NOT_AVAILABLE);
    const id = c.req.param('depositId');
    const found = id.length <= 128 ? await readDepositById(deps, id) : undefined;
    const method = found && findPaymentMethod(found.row.method_code ?? '');
    if (!found || !method || !METHOD_KINDS[method.kind].approvalPage) {
      return simulatorPage(c, 404, 'Payment not found', NOT_FOUND);
    }
    const { row } = found;
    const orgName = await organizationNameOf(deps.db, row.merchant_id);
    const back = row.checkout_id ? html`<p><a href="/checkout/${row.checkout_id}">Back to the checkout</a></p>` : '';
    const head = html`<img src="${logoUrl('', method.logo)}" alt="${method.name}">
<h1>${method.name} payment to ${orgName ?? 'the merchant'}</h1>
<div class="amount">${formatIdr(row.status === 'pending' ? toText(money(found.view.remainingAmount)) : row.input_amount, row.input_currency)}</div>`;
    if (row.status === 'completed')
      return simulatorPage(
        c,
        200,
        'Payment approved',
        html`${head}<p class="badge" data-status="completed">Payment approved</p>${back}`,
      );
    if (row.status === 'expired')
      return simulatorPage(
        c,
        200,
        'Payment closed',
        html`${head}<p class="badge" data-status="expired">This payment is no longer pending.</p>${back}`,
      );
    const wallet = paymentFiatOf(row);
    if (wallet.flow === 'push' && !(wallet.pushExpiresAt && wallet.pushExpiresAt > deps.now().toISOString())) {
      return simulatorPage(
        c,
        200,
        'No payment request',
        html`${head}<p class="badge" data-status="no-request">No payment request awaits approval: send a new one from the checkout.</p>${back}`,
      );
    }
    const flowNote =
      wallet.flow === 'push'
        ? html`<p class="muted" data-flow="push">A payment request sent to ${wallet.mobileNumber ?? 'the phone'}: approve it before ${wallet.pushExpiresAt}.</p>`
        : wallet.flow === 'redirect' && wallet.returnUrl
          ? html`<p class="muted" data-flow="redirect">You go back to the shop after approving or declining.</p>`
          : '';
    return simulatorPage(
      c,
      200,
      `Approve ${method.name} payment`,
      html`${head}${flowNote}
<p class="muted">Sandbox e-wallet: approve to pay, decline to refuse. Expires ${row.expired_at}.</p>
${found.view.lastFailure ? html`<p class="badge" data-status="failed">Last attempt failed: ${found.view.lastFailure.reason.replace('_', ' ')}</p>` : ''}
<form method="post" action="/sandbox/ewallet/${row.deposit_id}/approve"><button class="approve" type="submit">Approve</button></form>
<form method="post" action="/sandbox/ewallet/${row.deposit_id}/decline"><button class="decline" type="submit">Decline</button></form>
<form method="post" action="/sandbox/ewallet/${row.deposit_id}/insufficient-balance"><button class="decline" type="submit">Insufficient balance</button></form>`,
      // The form's answer sends a redirect wallet's shopper back to the shop: its origin is a form target too.
      wallet.flow === 'redirect' && wallet.returnUrl ? new URL(wallet.returnUrl).origin : undefined,
    );
  });

  const decide = (kind: 'paid' | FailureReason) => async (c: Context) => {
    if (!deps.config.sandbox) return simulatorPage(c, 403, 'Not available', NOT_AVAILABLE);
    const id = c.req.param('depositId')!;
    const found = id.length <= 128 ? await readDepositById(deps, id) : undefined;
    const method = found && findPaymentMethod(found.row.method_code ?? '');
    if (!found || !method || !METHOD_KINDS[method.kind].approvalPage) {
      return simulatorPage(c, 404, 'Payment not found', NOT_FOUND);
    }
    const wallet = paymentFiatOf(found.row);
    // A push is approved or declined while it awaits (docs/indonesian-payments.md); after its window the checkout sends another.
    const awaits =
      wallet.flow !== 'push' || (!!wallet.pushExpiresAt && wallet.pushExpiresAt > deps.now().toISOString());
    try {
      // Approving pays exactly what is due (docs/design.md, "Payments that do not go as planned"). Declining is a
      // failed attempt: the deposit stays pending, the shopper may try again (docs/indonesian-payments.md).
      if (awaits && kind === 'paid') await recordPayment(deps, id, { pendingOnly: true });
      else if (awaits && kind !== 'paid') await recordFailedAttempt(deps, id, { reason: kind });
    } catch (err) {
      if (!(err instanceof DepositNotPending)) throw err;
    }
    // A redirect wallet sends the shopper back to the shop's page, where the checkout resumes.
    if (wallet.flow === 'redirect' && wallet.returnUrl) return c.redirect(wallet.returnUrl, 303);
    // Post/redirect/get: the page shows the outcome, a reload does not post again.
    return c.redirect(`/sandbox/ewallet/${encodeURIComponent(id)}`, 303);
  };
  router.post('/sandbox/ewallet/:depositId/approve', decide('paid'));
  router.post('/sandbox/ewallet/:depositId/decline', decide('declined'));
  router.post('/sandbox/ewallet/:depositId/insufficient-balance', decide('insufficient_balance'));

  return router;
}
