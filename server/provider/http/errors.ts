import { OpenAPIHono } from '@hono/zod-openapi';
import type { Context, ErrorHandler, NotFoundHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ZodError } from 'zod';
import type { ProviderEnv } from './env.js';

const LABELS: Record<number, string> = {
  400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed',
  409: 'Conflict', 413: 'Payload Too Large', 415: 'Unsupported Media Type', 422: 'Unprocessable Entity',
  429: 'Too Many Requests', 500: 'Internal Server Error', 503: 'Service Unavailable',
};

/**
 * An expected failure. `label` is the envelope's `error` field; it is usually the status text, but the
 * interface's error table pairs some statuses with other labels (400 "Not Found"), so it can be set.
 */
export class ApiError extends HTTPException {
  constructor(status: ContentfulStatusCode, message: string, readonly label: string = LABELS[status] ?? 'Error') {
    super(status, { message });
  }
}

export const badRequest = (message: string, label?: string) => new ApiError(400, message, label);
export const notFound = (message: string) => new ApiError(404, message);

export function errorBody(status: number, message: string, label?: string) {
  return { statusCode: status, error: label ?? LABELS[status] ?? 'Error', message };
}

/** Shapes every thrown error into the envelope, once, for the whole app. Never leaks a stack trace. */
export const onError: ErrorHandler<ProviderEnv> = (err, c) => {
  if (err instanceof ApiError) return c.json(errorBody(err.status, err.message, err.label), err.status);
  if (err instanceof HTTPException) {
    // Hono's own exceptions (malformed JSON from the validator, body limit, ...).
    const message = /malformed json/i.test(err.message) ? 'Malformed JSON in request body' : err.message || LABELS[err.status] || 'Error';
    return c.json(errorBody(err.status, message), err.status as ContentfulStatusCode);
  }
  console.error(`[provider] ${c.req.method} ${new URL(c.req.url).pathname} failed:`, err instanceof Error ? err.message : err);
  return c.json(errorBody(500, 'Internal server error'), 500);
};

export const onNotFound: NotFoundHandler = (c) =>
  c.json(errorBody(404, `Cannot ${c.req.method} ${new URL(c.req.url).pathname}`), 404);

/** Formats zod issues as one message that names each offending field. */
export function describeZodError(error: ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => {
      const field = issue.path.length ? issue.path.join('.') : 'body';
      return `${field}: ${issue.message}`;
    })
    .join('; ');
}

/** The validation hook every router uses: a 400 envelope naming the field, instead of zod's raw output. */
export function validationHook(result: { success: boolean; error?: unknown }, c: Context) {
  if (!result.success) {
    return c.json(errorBody(400, describeZodError(result.error as ZodError)), 400);
  }
}

/** A router whose request validation failures come out in the envelope. One per resource. */
export function createRouter() {
  return new OpenAPIHono<ProviderEnv>({ defaultHook: validationHook as never });
}
