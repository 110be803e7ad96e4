// Idempotency-Key on the service's creates and sandbox payments (docs/idempotency.md): the middleware of
// server/common/idempotency.ts over this service's database, scoped to the authenticated merchant, and what the
// OpenAPI document says of it.
import type { MiddlewareHandler } from 'hono';
import { IDEMPOTENCY_HEADER, idempotency } from '../../common/idempotency.js';
import type { ProviderDeps } from '../deps.js';
import { ErrorSchema, json } from '../openapi/operation.js';
import type { ProviderEnv } from './env.js';
import { databaseIdempotencyStore } from './idempotency-store.js';

const middlewares = new WeakMap<ProviderDeps['db'], MiddlewareHandler<ProviderEnv>>();

/** The Idempotency-Key middleware of one service instance (one store, one sweep, whichever route asks). */
export function idempotentWrites(deps: ProviderDeps): MiddlewareHandler<ProviderEnv> {
  let middleware = middlewares.get(deps.db);
  if (!middleware) {
    middleware = idempotency({
      store: databaseIdempotencyStore(deps),
      scope: (c) => (c.get('merchant') as ProviderEnv['Variables']['merchant']).merchantId,
    });
    middlewares.set(deps.db, middleware);
  }
  return middleware;
}

/** The header parameter and the answers it adds, for an operation's `parameters` and `responses`. */
export const IDEMPOTENCY_PARAMETER = {
  name: IDEMPOTENCY_HEADER,
  in: 'header' as const,
  required: false,
  schema: { type: 'string' as const, minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
  description:
    'Optional; 1 to 255 visible ASCII characters, e.g. a UUID. The same key with the same request (method, path, body) within 24 h ' +
    'gets the first answer again (same status and body, header Idempotent-Replayed: true) and changes nothing; with another request: 422. ' +
    'While the first request with the key is still in progress: 409 with Retry-After. Keys are per merchant.',
};

export const IDEMPOTENCY_RESPONSES = {
  409: json(
    ErrorSchema,
    "Conflict: the Idempotency-Key is in use by a request still in progress (retry after Retry-After), or the operation's own conflict",
  ),
  422: json(ErrorSchema, 'Idempotency-Key reused with another request'),
};
