import type { Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { secureHeaders } from 'hono/secure-headers';
import { ApiError, createRouter, onError, onNotFound } from './http/errors.js';
import { rawHeader } from './http/request-target.js';
import type { ProviderDeps } from './http/env.js';
import { authRoutes } from './routes/auth.js';
import { hostedPageRoutes } from './checkout/page.js';
import { checkoutSessionRoutes } from './checkout/session.js';
import { hostedWidgetApi } from './checkout/widget-api.js';
import { checkoutRoutes } from './routes/checkout.js';
import { dashboardRoutes } from './routes/dashboard.js';
import { depositsRoutes } from './routes/deposits.js';
import { docsRoutes } from './routes/docs.js';
import { mailboxRoutes } from './routes/mailbox.js';
import { recipientsRoutes } from './routes/recipients.js';
import { referencesRoutes } from './routes/references.js';
import { sandboxRoutes } from './routes/sandbox.js';

export const MAX_BODY_BYTES = 64 * 1024;

/** The payment-service sandbox as one Hono app: the interface's /v1 API plus its hosted pages. */
export function createProviderApp(deps: ProviderDeps) {
  const app = createRouter();
  // The browser-facing pages get the security headers; the /v1 JSON API is read by servers, and setting a
  // dozen headers there would make every hot read materialise a full Headers object.
  const pageHeaders = secureHeaders({ crossOriginResourcePolicy: 'cross-origin', contentSecurityPolicy: undefined });
  app.use('*', (c, next) => (c.req.path.startsWith('/v1/') ? next() : pageHeaders(c, next)));
  const limitBody = bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: () => { throw new ApiError(413, `Request body is larger than ${MAX_BODY_BYTES / 1024} KB`); },
  });
  // A bodiless GET or HEAD has nothing to limit; skipping the limiter spares the hot read path a full Request copy.
  const bodiless = (c: Context) =>
    (c.req.method === 'GET' || c.req.method === 'HEAD') && !rawHeader(c, 'content-length') && !rawHeader(c, 'transfer-encoding');
  app.use('*', (c, next) => (bodiless(c) ? next() : limitBody(c, next)));

  app.route('/', authRoutes(deps));
  app.route('/', depositsRoutes(deps));
  app.route('/', referencesRoutes(deps));
  app.route('/', checkoutRoutes(deps));
  app.route('/', hostedPageRoutes(deps));
  app.route('/', checkoutSessionRoutes(deps));
  app.route('/checkout/api', hostedWidgetApi(deps));
  app.route('/', recipientsRoutes(deps));
  app.route('/', dashboardRoutes(deps));
  app.route('/', sandboxRoutes(deps));
  app.route('/', mailboxRoutes(deps));
  app.route('/', docsRoutes(deps));

  // Security schemes named by the routes: S = the three signature headers together, A = a bearer token.
  const registry = app.openAPIRegistry;
  registry.registerComponent('securitySchemes', 'ClientId', { type: 'apiKey', in: 'header', name: 'X-Client-ID', description: "The merchant's client id." });
  registry.registerComponent('securitySchemes', 'Timestamp', { type: 'apiKey', in: 'header', name: 'X-Timestamp', description: 'ISO 8601 UTC with milliseconds; within 300 s of the server clock.' });
  registry.registerComponent('securitySchemes', 'Signature', {
    type: 'apiKey', in: 'header', name: 'X-Signature',
    description: 'Lowercase hex HMAC-SHA256 with the client secret over METHOD:PATH:BODYHASH:TIMESTAMP (BODYHASH = hex SHA-256 of the raw body). A non-GET signature is accepted once.',
  });
  registry.registerComponent('securitySchemes', 'Bearer', { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'The accessToken from POST /v1/auth/verify-login.' });

  app.doc31('/v1/openapi.json', {
    openapi: '3.1.0',
    info: { title: 'kasir payment service (sandbox)', version: '1.0.0', description: 'The payment service interface, as implemented by the kasir sandbox.' },
    servers: [{ url: deps.config.baseUrl }],
  });

  app.notFound(onNotFound);
  app.onError(onError);
  return app;
}

export type ProviderApp = ReturnType<typeof createProviderApp>;
