// Probes for a load balancer or an orchestrator, wherever the API is mounted (/api/healthz, /api/readyz); the
// merchant server mounts the same routes at its root too (server.ts).
import { Hono } from 'hono';
import type { Logger } from '../../common/log.js';
import { errorBody } from '../http.js';

/** GET /healthz (the process answers) and GET /readyz (it can serve: `ready` resolves), in the envelope. */
export function healthRoutes(ready: () => Promise<void>, log: Logger): Hono {
  const app = new Hono();
  app.get('/healthz', (c) => c.json({ statusCode: 200, message: 'OK' }, 200));
  app.get('/readyz', async (c) => {
    try {
      await ready();
      return c.json({ statusCode: 200, message: 'Ready' }, 200);
    } catch (err) {
      const message = err instanceof Error ? err.message : 'Not ready';
      log.warn({ reason: message }, 'not ready');
      return c.json(errorBody(503, message), 503);
    }
  });
  return app;
}
