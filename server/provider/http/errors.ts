// Errors of the payment service's HTTP layer: the one onError that shapes every thrown error into the envelope,
// and the validation hook that answers a request failing its route's zod schema in the same envelope.
import { OpenAPIHono, type Hook } from '@hono/zod-openapi';
import type { ErrorHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ZodError } from 'zod';
import { ApiError, errorBody, expectedErrorBody } from '../../common/errors.js';
import type { ProviderEnv } from './env.js';

export { ApiError, onNotFound } from '../../common/errors.js';

/**
 * Shapes every thrown error into the envelope, once, for the whole app: the client never sees a stack trace. The
 * request log (requestLogging, first in the app) writes the unexpected error with its request id.
 */
export const onError: ErrorHandler<ProviderEnv> = (err, c) => {
  // The route validator's refusal of a body that is not JSON (or has no type), in words that say what to send.
  if (err instanceof HTTPException && !(err instanceof ApiError) && err.status === 415) {
    return c.json(errorBody(415, 'Send the body as application/json (Content-Type: application/json)'), 415);
  }
  const body = expectedErrorBody(err);
  if (body) return c.json(body, body.statusCode as ContentfulStatusCode);
  return c.json(errorBody(500, 'Internal server error'), 500);
};

/** Formats zod issues as one message that names each offending field. */
function describeZodError(error: ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => {
      const field = issue.path.length ? issue.path.join('.') : 'body';
      return `${field}: ${issue.message}`;
    })
    .join('; ');
}

/** The validation hook every router uses: a 400 envelope naming the field, instead of zod's raw output. */
const validationHook: Hook<unknown, ProviderEnv, string, Response | undefined> = (result, c) => {
  if (!result.success) return c.json(errorBody(400, describeZodError(result.error)), 400);
  return undefined;
};

/** A router whose request validation failures come out in the envelope. One per resource. */
export function createRouter() {
  return new OpenAPIHono<ProviderEnv>({ defaultHook: validationHook });
}
