// The request body, limited in size and read once for every middleware and route that wants it (the signature check,
// the NUL guard, the routes' JSON validation). A route's validation takes it only as application/json: with the body
// read through Hono, a body of another type or with none is a 415 there (a route's own refusal, after authentication).
import type { Context, MiddlewareHandler, Next } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { ApiError } from './errors.js';
import { isBodiless } from './request-target.js';

/**
 * Hono's own body limit (413 beyond `maxBytes`, by Content-Length or, without one, while the body streams in), then the
 * body read once through Hono's request (`c.req.arrayBuffer()`, which Hono keeps for its `text()`, `json()` and the
 * validators): the same code under @hono/node-server and under app.request(). A body cut off before its end is a 400.
 */
export function limitedBody(maxBytes: number): MiddlewareHandler {
  const limit = bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw new ApiError(413, `Request body is larger than ${maxBytes / 1024} KB`);
    },
  });
  const readOnce = async (c: Context, next: Next): Promise<void> => {
    try {
      await c.req.arrayBuffer();
    } catch {
      throw new ApiError(400, 'The request body was cut off before its end');
    }
    await next();
  };
  // A bodiless GET or HEAD has nothing to limit or read (and asking for its body would build a full Request).
  return async (c, next) => {
    if (isBodiless(c)) return next();
    await limit(c, () => readOnce(c, next));
  };
}
