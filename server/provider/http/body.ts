// The request body, limited in size and read once for every middleware and route that wants it (the signature check,
// the NUL guard, the routes' JSON validation). A route's validation takes it only as application/json: a body of
// another type or with none is a 415 there (a route's own refusal, after authentication).
import type { IncomingMessage } from 'node:http';
import type { HttpBindings } from '@hono/node-server';
import type { Context, MiddlewareHandler, Next } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { ApiError } from './errors.js';
import { isBodiless, rawHeader } from './request-target.js';

/**
 * The body, at most `maxBytes` (413 beyond, by Content-Length or while it streams in; a body cut off before its end is
 * a 400), read once into Hono's body cache, which `c.req.arrayBuffer()`, `text()`, `json()` and the validators answer
 * from. Served by @hono/node-server, a typed body is read off Node's request (`c.env.incoming`): asking Hono for it
 * there, as its bodyLimit does too, first builds a whole WHATWG Request around the socket (an AbortController, a web
 * stream over Node's, an undici body), and each later `text()` a Response, which cost a completion a large share of its
 * CPU. Under app.request() (no Node request) Hono's own bodyLimit and `c.req.arrayBuffer()` do the same job.
 */
export function limitedBody(maxBytes: number): MiddlewareHandler {
  const tooLarge = () => new ApiError(413, `Request body is larger than ${maxBytes / 1024} KB`);
  const cutOff = () => new ApiError(400, 'The request body was cut off before its end');
  const limit = bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw tooLarge();
    },
  });
  const readOnce = async (c: Context, next: Next): Promise<void> => {
    try {
      await c.req.arrayBuffer();
    } catch {
      throw cutOff();
    }
    await next();
  };
  // A bodiless GET or HEAD has nothing to limit or read (and asking for its body would build a full Request).
  return async (c, next) => {
    if (isBodiless(c)) return next();
    const { incoming } = (c.env ?? {}) as Partial<HttpBindings>;
    // A body without a type goes through Hono's Request too: the routes' media-type check (415) looks for it there.
    if (!incoming || !rawHeader(c, 'content-type')) return limit(c, () => readOnce(c, next));
    if (Number(rawHeader(c, 'content-length') ?? 0) > maxBytes) throw tooLarge();
    keepBody(c, await readAll(incoming, maxBytes, tooLarge, cutOff));
    await next();
  };
}

/** Node's request body, whole; rejects with `tooLarge()` past `maxBytes` (the rest is drained, not kept). */
function readAll(
  incoming: IncomingMessage,
  maxBytes: number,
  tooLarge: () => ApiError,
  cutOff: () => ApiError,
): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) chunks.push(chunk);
      else {
        stop();
        incoming.resume();
        reject(tooLarge());
      }
    };
    const onEnd = () => {
      stop();
      // A buffer of its own: a small Buffer.concat() result is a view into Node's shared pool.
      const bytes = new Uint8Array(size);
      let at = 0;
      for (const chunk of chunks) {
        bytes.set(chunk, at);
        at += chunk.length;
      }
      resolve(bytes);
    };
    const onCutOff = () => {
      stop();
      reject(cutOff());
    };
    const stop = () => {
      incoming.off('data', onData).off('end', onEnd).off('close', onCutOff).off('error', onCutOff);
    };
    // 'close' before 'end': the client went away mid-body.
    incoming.on('data', onData).once('end', onEnd).once('close', onCutOff).once('error', onCutOff);
  });
}

/** The body in Hono's cache as its own body methods would keep it: the bytes, and the text json() parses. */
function keepBody(c: Context, bytes: Uint8Array): void {
  // The cache holds the promises those methods answer (its type names the values they resolve to).
  const cache = c.req.bodyCache as { arrayBuffer?: Promise<ArrayBuffer>; text?: Promise<string> };
  cache.arrayBuffer = Promise.resolve(bytes.buffer as ArrayBuffer);
  // What Response.text() gives: UTF-8, a leading BOM dropped, malformed bytes as U+FFFD.
  cache.text = Promise.resolve(new TextDecoder().decode(bytes));
}
