import { createRouter } from '../http/errors';
import type { ProviderDeps } from '../http/env';

export function dashboardRoutes(_deps: ProviderDeps) {
  const router = createRouter();
  return router;
}
