// Idempotency-Key on the service's creates and sandbox payments (docs/idempotency.md): the middleware of
// server/common/idempotency.ts over this service's database, scoped to the authenticated merchant (what the OpenAPI
// document says of it: IDEMPOTENCY_PARAMETER and IDEMPOTENCY_RESPONSES in openapi/operation.ts).
import type { MiddlewareHandler } from 'hono';
import { idempotency } from '../../common/idempotency.js';
import type { ProviderDeps } from '../instance/deps.js';
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
