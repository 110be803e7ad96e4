// The request body, limited in size and read once for every middleware and route that wants it (the signature check,
// the NUL guard, the routes' JSON validation).
import type { IncomingMessage } from 'node:http';
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { ApiError } from './errors.js';
import { isBodiless, rawHeader } from './request-target.js';

/**
 * The body read straight off Node's IncomingMessage, at most `maxBytes` (413 beyond). Under @hono/node-server, asking
 * Hono for the body builds a WHATWG Request around the socket first (an AbortController, a web stream over the Node
 * stream, an undici body): about a tenth of a write's CPU (issue 22, the completion PATCH profile). The bytes go into
 * Hono's body cache, which `c.req.arrayBuffer()`, `text()` and `json()` answer from. Under app.request() (no
 * IncomingMessage) Hono's own body limit does the same job.
 */
export function limitedBody(maxBytes: number): MiddlewareHandler {
  const tooLarge = () => new ApiError(413, `Request body is larger than ${maxBytes / 1024} KB`);
  const viaRequest = bodyLimit({ maxSize: maxBytes, onError: () => { throw tooLarge(); } });
  return async (c, next) => {
    // A bodiless GET or HEAD has nothing to limit or read.
    if (isBodiless(c)) return next();
    const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
    if (!incoming) return viaRequest(c, next);
    if (Number(rawHeader(c, 'content-length') ?? 0) > maxBytes) throw tooLarge();
    const bytes = await readAll(incoming, maxBytes, tooLarge);
    cacheBody(c, bytes);
    await next();
  };
}

function readAll(incoming: IncomingMessage, maxBytes: number, tooLarge: () => ApiError): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const fail = (err: Error) => {
      incoming.off('data', onData);
      incoming.resume(); // the rest is drained, not kept
      reject(err);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) fail(tooLarge());
      else chunks.push(chunk);
    };
    incoming.on('data', onData);
    incoming.once('end', () => {
      // A buffer of its own: a small Buffer.concat() result is a view into Node's shared pool.
      const bytes = new Uint8Array(size);
      let at = 0;
      for (const chunk of chunks) { bytes.set(chunk, at); at += chunk.length; }
      resolve(bytes);
    });
    incoming.once('aborted', () => fail(new ApiError(400, 'The request body was cut off before its end')));
    incoming.once('error', (err) => fail(err));
  });
}

function cacheBody(c: Context, bytes: Uint8Array): void {
  // Hono stores the promises its body methods answer (its type names the values they resolve to).
  const cache = c.req.bodyCache as unknown as { arrayBuffer?: Promise<ArrayBuffer>; text?: Promise<string> };
  cache.arrayBuffer = Promise.resolve(bytes.buffer as ArrayBuffer);
  // What Response.text() gives: UTF-8, a leading BOM dropped, malformed bytes as U+FFFD. json() parses this text.
  cache.text = Promise.resolve(new TextDecoder().decode(bytes));
}
