// createKasirApi (or any fetch handler) as a Node (req, res) handler, for Express 5, Connect, Fastify's middie or a
// plain http.createServer: `app.use('/api', toNodeHandler(createKasirApi(...)))`. It works whether or not a body parser
// ran first: express.json(), express.text() or express.raw() consume the request's stream, so their result is handed
// on as the body instead (@hono/node-server reads `rawBody` when a request carries one).
import { getRequestListener, type HttpBindings } from '@hono/node-server';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** A request a framework may have decorated: a parsed `body`, and `rawBody` (bytes kept by a parser's `verify`). */
type NodeRequest = IncomingMessage & { body?: unknown; rawBody?: unknown };

/**
 * A Node handler for `app` (its `.fetch`). Mounted under a path (`app.use('/api', ...)`), the framework strips the path,
 * and the API sees its own routes at its root. A webhook's signature is checked over the bytes received: when a JSON
 * parser ran first, its object is encoded again, which is byte-for-byte what the payment service sends (compact JSON);
 * keep the bytes exactly with `express.json({ verify: (req, _res, buf) => { req.rawBody = buf } })` or mount kasir
 * before the parser.
 */
export function toNodeHandler(app: { fetch: (request: Request, env: HttpBindings) => Response | Promise<Response> }) {
  const listener = getRequestListener((request, env) => app.fetch(request, env as HttpBindings));
  return (req: NodeRequest, res: ServerResponse): Promise<void> => {
    if (!Buffer.isBuffer(req.rawBody) && req.readableEnded && req.body !== undefined) {
      const { body } = req;
      req.rawBody = Buffer.isBuffer(body) ? body : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
    }
    return listener(req, res);
  };
}
