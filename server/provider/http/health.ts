// Probes for an orchestrator or a load balancer: /healthz says the process answers (no database involved, so a
// database outage does not get every copy restarted); /readyz says this copy can serve (its database answers).
import { Hono } from 'hono';
import { sql } from 'kysely';
import { ApiError } from './errors.js';
import type { ProviderDeps } from '../instance/deps.js';

const READY_TIMEOUT_MS = 2_000;

export function healthRoutes(deps: ProviderDeps) {
  const app = new Hono();
  app.get('/healthz', (c) => c.json({ statusCode: 200, message: 'Alive' }, 200));
  app.get('/readyz', async (c) => {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        sql`select 1`.execute(deps.db),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('timed out')), READY_TIMEOUT_MS);
        }),
      ]);
    } catch (err) {
      deps.logger.warn({ err: (err as Error).message }, 'readiness check: the database does not answer');
      throw new ApiError(503, 'Not ready: the database does not answer');
    } finally {
      clearTimeout(timer);
    }
    return c.json({ statusCode: 200, message: 'Ready' }, 200);
  });
  return app;
}
