// The payment service's Hono app: security headers for pages, the body limit, one sub-app per resource, the OpenAPI
// document at /v1/openapi.json, and the one error handler that answers every failure in the envelope.
import { secureHeaders } from 'hono/secure-headers';
import { requestLogging } from '../../common/log.js';
import { hostedPageRoutes } from '../checkout/page.js';
import { checkoutSessionRoutes } from '../checkout/session.js';
import { hostedWidgetApi } from '../checkout/widget-api.js';
import type { ProviderDeps } from '../instance/deps.js';
import { createRouter, onError, onNotFound } from '../http/errors.js';
import { refuseNulBytes } from '../../common/nul-guard.js';
import { healthRoutes } from '../http/health.js';
import { limitedBody } from '../http/body.js';
import { authRoutes } from '../auth/routes.js';
import { checkoutRoutes } from '../checkout/routes.js';
import { dashboardRoutes } from '../dashboard/routes.js';
import { depositsRoutes, registerDepositWebhooks } from '../deposits/routes.js';
import { docsRoutes } from '../openapi/routes.js';
import { mailboxRoutes } from '../sandbox/mailbox-routes.js';
import { recipientsRoutes } from '../recipients/routes.js';
import { referencesRoutes } from '../catalog/routes.js';
import { sandboxRoutes } from '../sandbox/routes.js';
import { MAX_BODY_BYTES } from '../openapi/operation.js';
import { metricsRoutes, requestSpans, tracerOf } from '../../common/observability.js';

/** Probed every few seconds: logged at debug, not info. */
const PROBES = ['/healthz', '/readyz'];

/** The payment-service sandbox as one Hono app: the interface's /v1 API plus its hosted pages. */
export function createProviderApp(deps: ProviderDeps) {
  const app = createRouter();
  // A span per request, continuing the trace a caller hands it (a merchant backend's traceparent).
  app.use('*', requestSpans(tracerOf('kasir-sandbox')));
  app.use('*', requestLogging(deps.logger, { quietPaths: PROBES }));
  // The browser-facing pages get the security headers; the /v1 JSON API is read by servers, and setting a
  // dozen headers there would make every hot read materialise a full Headers object.
  const pageHeaders = secureHeaders({ crossOriginResourcePolicy: 'cross-origin', contentSecurityPolicy: undefined });
  app.use('*', (c, next) => (c.req.path.startsWith('/v1/') ? next() : pageHeaders(c, next)));
  app.use('*', limitedBody(MAX_BODY_BYTES)); // read once, through Hono: 413 beyond the limit
  app.use('*', refuseNulBytes); // PostgreSQL cannot store one: a 400 on both engines alike

  // Each sub-app declares its full paths (grep finds a route by its URL); the order here is the order of the
  // OpenAPI document's paths. The hosted widget API is mounted under its endpoint, as a shop mounts it under /api.
  app.route('/', healthRoutes(deps)); // /healthz, /readyz
  const metrics = deps.telemetry?.registry;
  if (metrics) app.route('/', metricsRoutes(metrics, deps.config.metricsToken)); // /metrics (KASIR_METRICS)
  app.route('/', authRoutes(deps)); // /v1/auth/*
  app.route('/', depositsRoutes(deps)); // /v1/deposit*
  app.route('/', referencesRoutes(deps)); // /v1/reference/*, /static/logos/*
  app.route('/', checkoutRoutes(deps)); // POST /v1/checkout
  app.route('/', hostedPageRoutes(deps)); // /checkout/:id, /checkout/kasir-checkout.js
  app.route('/', checkoutSessionRoutes(deps)); // /checkout/:id/session, /checkout/:id/deposit
  app.route('/checkout/api', hostedWidgetApi(deps)); // the widget API for the hosted page's element
  app.route('/', recipientsRoutes(deps)); // /v1/recipient*
  app.route('/', dashboardRoutes(deps)); // /dashboard*
  app.route('/', sandboxRoutes(deps)); // /sandbox/ewallet/*
  app.route('/', mailboxRoutes(deps)); // /sandbox/mailbox
  app.route(
    '/',
    docsRoutes(() => app.getOpenAPI31Document(document)),
  ); // /docs: rendered from the document

  // Security schemes named by the routes: S = the three signature headers together, A = a bearer token.
  const registry = app.openAPIRegistry;
  registry.registerComponent('securitySchemes', 'ClientId', {
    type: 'apiKey',
    in: 'header',
    name: 'X-Client-ID',
    description: "The merchant's client id.",
  });
  registry.registerComponent('securitySchemes', 'Timestamp', {
    type: 'apiKey',
    in: 'header',
    name: 'X-Timestamp',
    description: 'ISO 8601 UTC with milliseconds; within 300 s of the server clock.',
  });
  registry.registerComponent('securitySchemes', 'Signature', {
    type: 'apiKey',
    in: 'header',
    name: 'X-Signature',
    description:
      'Lowercase hex HMAC-SHA256 with the client secret over METHOD:PATH:BODYHASH:TIMESTAMP (BODYHASH = hex SHA-256 of the raw body). A non-GET signature is accepted once.',
  });
  registerDepositWebhooks(registry);
  registry.registerComponent('securitySchemes', 'Bearer', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'The accessToken from POST /v1/auth/verify-login.',
  });

  const document = {
    openapi: '3.1.0',
    info: {
      title: 'kasir payment service (sandbox)',
      version: '1.0.0',
      description: 'The payment service interface, as implemented by the kasir sandbox.',
      license: { name: 'MIT', url: 'https://opensource.org/license/mit' },
    },
    servers: [{ url: deps.config.baseUrl }],
  };
  app.doc31('/v1/openapi.json', document);

  app.notFound(onNotFound);
  app.onError(onError);
  return app;
}

export type ProviderApp = ReturnType<typeof createProviderApp>;
