import { readFileSync } from 'node:fs';
import type { Context } from 'hono';
import { html, raw } from 'hono/html';
import { z } from '@hono/zod-openapi';
import { BEARER, body, envelope, ErrorSchema, json, operation } from '../openapi/operation.js';
import {
  accountOf,
  rotateClientSecret,
  rotateWebhookSecret,
  secretsOf,
  updateMerchant,
} from '../accounts/merchants.js';
import { bearerAuth } from '../auth/bearer.js';
import { forgetCredentials } from '../auth/credentials.js';
import { listDeposits } from '../deposits/service.js';
import { paymentOrAnswer, transitionOrAnswer } from '../deposits/route-answers.js';
import { ApiError, createRouter } from '../http/errors.js';
import { htmlPage } from '../http/page.js';
import type { ProviderDeps } from '../instance/deps.js';
import { recentAttempts, recentDeliveries } from '../webhooks/history.js';
import { resendDelivery } from '../webhooks/resend.js';
import { assertPublicWebhookUrl, systemResolver } from '../webhooks/url-guard.js';
import {
  Account,
  CheckoutBody,
  ClientSecret,
  Delivery,
  DeliveryIdParam,
  DepositIdParam,
  DepositOutcome,
  DepositRow,
  LimitQuery,
  UnderpaymentToleranceBody,
  WebhookSecret,
  WebhookUrlBody,
} from './schemas.js';

const asset = (name: string) => readFileSync(new URL(`../dashboard/assets/${name}`, import.meta.url), 'utf8');

/** No inline script or style anywhere: the page works under this policy. */
const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const errors = {
  400: json(ErrorSchema, 'Invalid request'),
  401: json(ErrorSchema, 'Missing or invalid bearer token'),
};
/** Every dashboard operation: bearer-authenticated (the prefix's middleware below), hidden from the interface's document. */
const dashboard = { tags: ['Dashboard'], security: BEARER, hide: true as const };

/** The merchant dashboard ({dashboard_url}): a small page with its JS and CSS, and its bearer-token API. */
export function dashboardRoutes(deps: ProviderDeps) {
  const router = createRouter();
  // The page's markup is a file of ours (raw); the shell holds its stylesheet and module script.
  const dashboardPage = htmlPage({
    title: 'kasir dashboard',
    head: html`<link rel="stylesheet" href="/dashboard/dashboard.css">
<script type="module" src="/dashboard/dashboard.js"></script>`,
    body: raw(asset('dashboard-body.html').trimEnd()),
  });
  const script = asset('dashboard.js');
  const style = asset('dashboard.css');

  const headers = (c: Context) => {
    c.header('Content-Security-Policy', DASHBOARD_CSP);
    c.header('Cache-Control', 'no-cache');
  };
  const serve = (body: string, type: string) => (c: Context) => {
    headers(c);
    return c.body(body, 200, { 'Content-Type': type });
  };
  const servePage = (c: Context) => {
    headers(c);
    return c.html(dashboardPage);
  };
  router.get('/dashboard', servePage);
  router.get('/dashboard/', servePage);
  router.get('/dashboard/dashboard.js', serve(script, 'text/javascript; charset=utf-8'));
  router.get('/dashboard/dashboard.css', serve(style, 'text/css; charset=utf-8'));

  // The API's middleware is its prefix's, not each operation's: every /dashboard/api path, known or not, asks for the
  // token first, and no answer of it is cached.
  router.use('/dashboard/api/*', bearerAuth(deps), async (c, next) => {
    await next();
    c.header('Cache-Control', 'no-store');
  });

  router.openapi(
    operation({
      ...dashboard,
      method: 'get',
      path: '/dashboard/api/account',
      operationId: 'readDashboardAccount',
      summary: 'The signed-in merchant account',
      responses: {
        200: json(envelope(Account), 'Account'),
        ...errors,
      },
    }),
    async (c) =>
      c.json(
        { statusCode: 200, message: 'Account', data: await accountOf(deps.db, c.get('merchant').merchantId) },
        200,
      ),
  );

  router.openapi(
    operation({
      ...dashboard,
      method: 'post',
      path: '/dashboard/api/client-secret/reveal',
      operationId: 'revealClientSecret',
      summary: 'Reveal the client secret',
      responses: { 200: json(envelope(ClientSecret), 'Client secret'), ...errors },
    }),
    async (c) => {
      const { client_secret } = await secretsOf(deps.db, c.get('merchant').merchantId);
      return c.json({ statusCode: 200, message: 'Client secret', data: { clientSecret: client_secret } }, 200);
    },
  );

  router.openapi(
    operation({
      ...dashboard,
      method: 'post',
      path: '/dashboard/api/client-secret/rotate',
      operationId: 'rotateClientSecret',
      summary: 'Replace the client secret (the old one stops working at once)',
      responses: { 200: json(envelope(ClientSecret), 'New client secret'), ...errors },
    }),
    async (c) => {
      const clientSecret = await rotateClientSecret(deps.db, c.get('merchant').merchantId, deps.now());
      forgetCredentials(deps);
      return c.json({ statusCode: 200, message: 'Client secret rotated', data: { clientSecret } }, 200);
    },
  );

  router.openapi(
    operation({
      ...dashboard,
      method: 'post',
      path: '/dashboard/api/webhook-secret/reveal',
      operationId: 'revealWebhookSecret',
      summary: 'Reveal the webhook signing secret',
      responses: { 200: json(envelope(WebhookSecret), 'Webhook secret'), ...errors },
    }),
    async (c) => {
      const { webhook_secret } = await secretsOf(deps.db, c.get('merchant').merchantId);
      return c.json({ statusCode: 200, message: 'Webhook secret', data: { webhookSecret: webhook_secret } }, 200);
    },
  );

  router.openapi(
    operation({
      ...dashboard,
      method: 'post',
      path: '/dashboard/api/webhook-secret/rotate',
      operationId: 'rotateWebhookSecret',
      summary: 'Replace the webhook signing secret',
      responses: { 200: json(envelope(WebhookSecret), 'New webhook secret'), ...errors },
    }),
    async (c) => {
      const webhookSecret = await rotateWebhookSecret(deps.db, c.get('merchant').merchantId, deps.now());
      return c.json({ statusCode: 200, message: 'Webhook secret rotated', data: { webhookSecret } }, 200);
    },
  );

  router.openapi(
    operation({
      ...dashboard,
      method: 'put',
      path: '/dashboard/api/webhook-url',
      operationId: 'setWebhookUrl',
      summary: 'Set (or clear, with null) the webhook URL',
      description:
        'The URL must resolve to public addresses only (no private, link-local, unique-local, CGNAT or metadata address; loopback in sandbox mode only): 400 otherwise.',
      request: { body: body(WebhookUrlBody) },
      responses: { 200: json(envelope(z.object({ webhookUrl: z.string().nullable() })), 'Saved'), ...errors },
    }),
    async (c) => {
      const { webhookUrl } = c.req.valid('json');
      const value = webhookUrl === null || webhookUrl === '' ? null : webhookUrl;
      // Never the service's own network; loopback in sandbox mode only (checked again at every send, against DNS rebinding).
      if (value)
        await assertPublicWebhookUrl(value, {
          resolve: deps.resolveHost ?? systemResolver,
          allowLoopback: deps.config.sandbox,
        });
      await updateMerchant(deps.db, c.get('merchant').merchantId, { webhook_url: value }, deps.now());
      return c.json({ statusCode: 200, message: 'Webhook URL saved', data: { webhookUrl: value } }, 200);
    },
  );

  router.openapi(
    operation({
      ...dashboard,
      method: 'put',
      path: '/dashboard/api/checkout',
      operationId: 'setCheckoutEnabled',
      summary: 'Switch hosted checkout on or off',
      request: { body: body(CheckoutBody) },
      responses: { 200: json(envelope(z.object({ checkoutEnabled: z.boolean() })), 'Saved'), ...errors },
    }),
    async (c) => {
      const { enabled } = c.req.valid('json');
      await updateMerchant(deps.db, c.get('merchant').merchantId, { checkout_enabled: enabled ? 1 : 0 }, deps.now());
      return c.json(
        {
          statusCode: 200,
          message: enabled ? 'Checkout enabled' : 'Checkout disabled',
          data: { checkoutEnabled: enabled },
        },
        200,
      );
    },
  );

  router.openapi(
    operation({
      ...dashboard,
      method: 'put',
      path: '/dashboard/api/underpayment-tolerance',
      operationId: 'setUnderpaymentTolerance',
      summary: 'Set the underpayment tolerance (docs/design.md, "Payments that do not go as planned")',
      description:
        'A percentage of the amount due, 0 to 100 with at most 2 decimal places: a payment short by no more than it completes the deposit.',
      request: { body: body(UnderpaymentToleranceBody) },
      responses: { 200: json(envelope(z.object({ underpaymentTolerance: z.number() })), 'Saved'), ...errors },
    }),
    async (c) => {
      const { underpaymentTolerance } = c.req.valid('json');
      await updateMerchant(
        deps.db,
        c.get('merchant').merchantId,
        { underpayment_tolerance: String(underpaymentTolerance) },
        deps.now(),
      );
      return c.json({ statusCode: 200, message: 'Underpayment tolerance saved', data: { underpaymentTolerance } }, 200);
    },
  );

  router.openapi(
    operation({
      ...dashboard,
      method: 'get',
      path: '/dashboard/api/webhooks',
      operationId: 'listWebhookDeliveries',
      summary: 'Recent webhook deliveries with their attempts',
      request: { query: LimitQuery },
      responses: { 200: json(envelope(z.array(Delivery)), 'Deliveries, newest first'), ...errors },
    }),
    async (c) => {
      const data = await recentDeliveries(deps.db, c.get('merchant').merchantId, c.req.valid('query').limit ?? 20);
      return c.json({ statusCode: 200, message: 'Webhook deliveries', data }, 200);
    },
  );

  router.openapi(
    operation({
      ...dashboard,
      method: 'post',
      path: '/dashboard/api/webhooks/{id}/resend',
      operationId: 'resendWebhookDelivery',
      summary: 'Send a delivery again (a new message with the same payload)',
      request: { params: DeliveryIdParam },
      responses: {
        200: json(envelope(z.object({ id: z.string(), resendOf: z.string() })), 'Queued'),
        404: json(ErrorSchema, 'No such delivery'),
        ...errors,
      },
    }),
    async (c) => {
      const original = c.req.valid('param').id;
      const id = await resendDelivery(deps, c.get('merchant').merchantId, original);
      if (!id) throw new ApiError(404, 'Webhook delivery not found');
      return c.json({ statusCode: 200, message: 'Queued to be sent again', data: { id, resendOf: original } }, 200);
    },
  );

  // ---- Deposits with their webhook attempts; in sandbox mode, pay or expire one ----
  // (docs/design.md, "Seeing and testing an integration")
  router.openapi(
    operation({
      ...dashboard,
      method: 'get',
      path: '/dashboard/api/deposits',
      operationId: 'listDashboardDeposits',
      summary: 'Recent deposits, newest first, each with its webhook attempts (newest first)',
      request: { query: LimitQuery },
      responses: {
        200: json(envelope(z.object({ sandbox: z.boolean(), deposits: z.array(DepositRow) })), 'Deposits'),
        ...errors,
      },
    }),
    async (c) => {
      const { merchantId } = c.get('merchant');
      const page = await listDeposits(deps, merchantId, {
        limit: c.req.valid('query').limit ?? 20,
        page: 1,
        sort: '-createdAt',
      });
      const attempts = await recentAttempts(deps.db, merchantId, {
        limit: 1000,
        depositIds: page.docs.map((d) => d.depositId),
      });
      const deposits = page.docs.map((d) => ({
        depositId: d.depositId,
        createdAt: d.createdAt,
        method: d.paymentFiat.bankName ?? d.paymentCrypto.network ?? d.depositType,
        amount: d.inputAmount,
        currency: d.inputCurrency,
        status: d.status,
        attempts: attempts
          .filter((a) => a.depositId === d.depositId)
          .map((a) => ({ time: a.time, event: a.event, status: a.status, error: a.error, durationMs: a.durationMs })),
      }));
      return c.json({ statusCode: 200, message: 'Deposits', data: { sandbox: deps.config.sandbox, deposits } }, 200);
    },
  );

  for (const [action, kind, done] of [
    ['pay', 'sandbox-completed', 'completed'],
    ['expire', 'sandbox-expired', 'expired'],
  ] as const) {
    router.openapi(
      operation({
        ...dashboard,
        method: 'post',
        path: `/dashboard/api/deposits/{depositId}/${action}`,
        operationId: action === 'pay' ? 'payDashboardDeposit' : 'expireDashboardDeposit',
        summary:
          action === 'pay' ? 'Sandbox: pay a pending deposit (what is due)' : 'Sandbox: expire a pending deposit',
        request: { params: DepositIdParam },
        responses: {
          200: json(envelope(DepositOutcome), 'Done'),
          403: json(ErrorSchema, 'Not in sandbox mode'),
          404: json(ErrorSchema, 'No such deposit'),
          ...errors,
        },
      }),
      async (c) => {
        if (!deps.config.sandbox)
          throw new ApiError(403, `Paying or expiring a deposit from the dashboard is available in sandbox mode only`);
        const { depositId } = c.req.valid('param');
        const { merchantId } = c.get('merchant');
        const wording = {
          notFound: { status: 404 as const },
          notPending: (current: string) => `Deposit is ${current}; only a pending deposit can become ${done}`,
        };
        // Paying is a payment of what is due (docs/design.md, "Payments that do not go as planned"), as the sandbox
        // status update is.
        const view =
          kind === 'sandbox-completed'
            ? await paymentOrAnswer(
                deps,
                depositId,
                { merchantId, pendingOnly: true, completedDescription: 'Completed from the dashboard' },
                wording,
              )
            : await transitionOrAnswer(deps, depositId, kind, wording, merchantId);
        return c.json(
          { statusCode: 200, message: `Deposit ${done}`, data: { depositId: view.depositId, status: view.status } },
          200,
        );
      },
    );
  }

  return router;
}
