// toNodeHandler: createKasirApi as a Node (req, res) handler, with a body parser before it (as express.json() does:
// the stream read to its end, `req.body` the parsed object) or without one. Express itself is in the recipes test.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { createKasirApi, toNodeHandler } from '../../server/merchant/index';
import { startUpstream, type Upstream } from './support';

/** A server whose requests pass through `parse` (or not) and then the handler, mounted at /api as a framework does. */
function serve(
  handler: (req: IncomingMessage, res: ServerResponse) => unknown,
  parse: boolean,
): Promise<{ url: string; server: Server }> {
  const server = createServer(async (req: IncomingMessage & { body?: unknown }, res) => {
    if (parse && req.headers['content-type']?.startsWith('application/json')) {
      let text = '';
      for await (const chunk of req) text += chunk;
      req.body = JSON.parse(text);
    }
    req.url = req.url!.replace(/^\/api/, '') || '/';
    await handler(req, res);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, server }),
    ),
  );
}

describe('toNodeHandler', () => {
  let up: Upstream;
  before(async () => {
    up = await startUpstream();
  });
  after(async () => {
    await up.close();
  });

  for (const parse of [false, true]) {
    it(`creates a checkout ${parse ? 'after a JSON body parser consumed the body' : 'reading the body itself'}`, async () => {
      const { url, server } = await serve(toNodeHandler(createKasirApi(up.config())), parse);
      try {
        const res = await fetch(`${url}/api/checkouts`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ amount: '150000', currency: 'IDR' }),
        });
        const text = await res.text();
        assert.equal(res.status, 201, text);
        assert.equal(JSON.parse(text).data.amount, '150000');
        const missing = await fetch(`${url}/api/no-such-route`);
        assert.equal(missing.status, 404);
      } finally {
        server.close();
      }
    });
  }
});
