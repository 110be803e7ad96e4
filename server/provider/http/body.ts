// The request body, limited in size and read once for every middleware and route that wants it (the signature check,
// the NUL guard, the routes' JSON validation), and on the /v1 API read only as JSON.
import type { Context, MiddlewareHandler, Next } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { ApiError } from './errors.js';
import { isBodiless, rawHeader } from './request-target.js';

/**
 * Hono's own body limit (413 beyond `maxBytes`, by Content-Length or, without one, while the body streams in), then the
 * body read once through Hono's request (`c.req.arrayBuffer()`, which Hono keeps for its `text()`, `json()` and the
 * validators): the same code under @hono/node-server and under app.request(). A body cut off before its end is a 400.
 */
export function limitedBody(maxBytes: number): MiddlewareHandler {
  const limit = bodyLimit({ maxSize: maxBytes, onError: () => { throw new ApiError(413, `Request body is larger than ${maxBytes / 1024} KB`); } });
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

/** `application/json` or a `+json` type, with or without parameters. */
const JSON_TYPE = /^\s*application\/([\w.-]+\+)?json\s*(;|$)/i;

/**
 * The /v1 API reads a body only as JSON: a write that carries a body with another type, or none, is refused (415)
 * rather than read as if it were absent (a payment's `{"amount":1000}` sent without a type would otherwise be taken as
 * "pay what is due"). A write with an empty body needs no type.
 */
export const jsonBodiesOnly: MiddlewareHandler = async (c, next) => {
  const read = c.req.method === 'GET' || c.req.method === 'HEAD';
  if (read || isBodiless(c) || JSON_TYPE.test(rawHeader(c, 'content-type') ?? '')) return next();
  const length = rawHeader(c, 'content-length');
  const empty = length !== undefined ? Number(length) === 0 : (await c.req.arrayBuffer()).byteLength === 0;
  if (!empty) throw new ApiError(415, 'Send the body as application/json (Content-Type: application/json)');
  await next();
};
