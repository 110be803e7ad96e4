// Idempotency-Key on the creates of both servers (docs/idempotency.md), with Stripe's semantics: the same key with the
// same request (method, path and body, for the same caller) within the key's lifetime gets the first answer again,
// marked `Idempotent-Replayed: true`, and changes nothing; the same key with another request is a 422; a request whose
// key is still held by one in progress is a 409 (retry shortly). One middleware for both servers; where the keys are
// kept is an IdempotencyStore (the sandbox: its database; the merchant backend: its SharedState).
import { createHash } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { ApiError } from './errors.js';

/** The answer kept for a key: what a replay sends back. */
export interface IdempotentAnswer {
  status: number;
  /** The answer's Content-Type, if it had one. */
  contentType?: string;
  body: string;
}

/** What a store says when a request with a key arrives. */
export type IdempotencyClaim =
  /** The key is this request's now: run it, then `save` its answer or `release` the key. */
  | { state: 'claimed'; token: string }
  /** The same request was answered before: send that answer again. */
  | { state: 'replay'; answer: IdempotentAnswer }
  /** The key was used with another request (another body, method or path). */
  | { state: 'mismatch' }
  /** A request with the key is still in progress (here or on another copy). */
  | { state: 'in-flight' };

/**
 * Where keys are kept, shared by every copy of a server. `scope` is whose key it is (a merchant account; the shop for
 * the widget API): keys of two scopes never meet. A claimed key that is neither saved nor released (a copy that
 * crashed) is free again after `leaseMs`.
 */
export interface IdempotencyStore {
  claim(
    scope: string,
    key: string,
    fingerprint: string,
    times: { leaseMs: number; ttlMs: number },
  ): Promise<IdempotencyClaim>;
  /** Keeps the answer for `ttlMs` from now, if the key is still held with `token`. */
  save(scope: string, key: string, token: string, answer: IdempotentAnswer, ttlMs: number): Promise<void>;
  /** Frees the key (its request changed nothing), if it is still held with `token`. */
  release(scope: string, key: string, token: string): Promise<void>;
}

export interface IdempotencyOptions {
  /** Where the keys are kept (a function: asked per request, e.g. a store reached through the request's deps). */
  store: IdempotencyStore | ((c: Context) => IdempotencyStore);
  /** Whose key it is (default: one scope for all). Runs after authentication, so it may read the caller. */
  scope?: (c: Context) => string;
  /** How long an answer is kept and replayed (default 24 h). */
  ttlMs?: number;
  /** How long a request holds its key before another may take it over, when it never finishes (default 60 s). */
  leaseMs?: number;
}

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';
const DAY_MS = 24 * 60 * 60 * 1000;
/** 1 to 255 visible ASCII characters (no space, no control character). */
const VALID_KEY = /^[\x21-\x7e]{1,255}$/;

/** Whether an answer is kept for replay: what the route answered, but not a transient refusal (a retry may pass). */
const keeps = (status: number) => status < 500 && status !== 408 && status !== 429;

/**
 * The Idempotency-Key middleware: put it after authentication and before the route's validation and handler. A request
 * without the header passes through untouched.
 */
export function idempotency(options: IdempotencyOptions): MiddlewareHandler {
  const ttlMs = options.ttlMs ?? DAY_MS;
  const leaseMs = options.leaseMs ?? 60_000;
  return async (c, next) => {
    const key = c.req.header(IDEMPOTENCY_HEADER);
    if (key === undefined) return next();
    if (!VALID_KEY.test(key))
      throw new ApiError(400, `${IDEMPOTENCY_HEADER}: send 1 to 255 visible ASCII characters (a UUID, say)`);
    const store = typeof options.store === 'function' ? options.store(c) : options.store;
    const scope = options.scope?.(c) ?? '';
    const claim = await store.claim(scope, key, await fingerprintOf(c), { leaseMs, ttlMs });
    switch (claim.state) {
      case 'replay': {
        const { answer } = claim;
        c.header(REPLAYED_HEADER, 'true');
        if (answer.contentType) c.header('Content-Type', answer.contentType);
        return c.body(answer.body, answer.status as ContentfulStatusCode);
      }
      case 'mismatch':
        throw new ApiError(422, `${IDEMPOTENCY_HEADER} reused with another request`);
      case 'in-flight':
        c.header('Retry-After', '1');
        throw new ApiError(409, `${IDEMPOTENCY_HEADER} is in use by a request still in progress: retry it shortly`);
    }
    let answered = false;
    try {
      await next();
      // Hono has shaped a thrown error into c.res by now (the app's onError): an expected refusal is an answer too.
      const res = c.res;
      if (keeps(res.status)) {
        const answer = {
          status: res.status,
          contentType: res.headers.get('content-type') ?? undefined,
          body: await res.clone().text(),
        };
        await store.save(scope, key, claim.token, answer, ttlMs);
        answered = true;
      }
    } finally {
      // Failed inside (a 5xx: its transaction rolled back) or transient: the key is free for the retry.
      if (!answered) await store.release(scope, key, claim.token).catch(() => undefined);
    }
  };
}

/** What makes two requests "the same": method, path and query, and the body's bytes. */
async function fingerprintOf(c: Context): Promise<string> {
  const url = new URL(c.req.url);
  const hash = createHash('sha256').update(`${c.req.method} ${url.pathname}${url.search}\n`);
  if (c.req.method !== 'GET' && c.req.method !== 'HEAD') hash.update(new Uint8Array(await c.req.arrayBuffer()));
  return hash.digest('hex');
}
