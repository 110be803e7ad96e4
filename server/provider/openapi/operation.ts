// The OpenAPI building blocks the routes and the domain's schemas share: the envelope, the error body, the pagination
// envelope of the list endpoints, JSON request/response entries and the two security schemes. No web framework here:
// the domain's schema files import it (the Hono-specific answer of cached JSON text is http/json-text.ts).
import { createRoute, z, type RouteConfig } from '@hono/zod-openapi';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { IDEMPOTENCY_HEADER } from '../../common/idempotency.js';

/** S endpoints: the three signature headers together. A endpoints: a bearer token. PUBLIC: no credentials. */
export const SIGNED = [{ ClientId: [], Timestamp: [], Signature: [] }];
export const BEARER = [{ Bearer: [] }];
export const PUBLIC: Array<Record<string, string[]>> = [];

/** The largest request body (process/app.ts answers 413 above it). */
export const MAX_BODY_BYTES = 64 * 1024;

/** An ISO 8601 UTC timestamp (the interface: "Timestamps are ISO 8601 date-time strings"). */
export const TIMESTAMP = z.string().openapi({ format: 'date-time', example: '2026-11-22T01:02:03.456Z' });

/** The error envelope (the interface's error table). */
export const ErrorSchema = z
  .object({
    statusCode: z.number().int(),
    error: z.string(),
    message: z.string(),
  })
  .openapi('Error');

/** An application/json response entry of a createRoute() `responses` map. */
export const json = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});

type ErrorResponse = ReturnType<typeof json<typeof ErrorSchema>>;

/** Error entries of a `responses` map, one per status, keyed by the literal statuses given. */
export const errorResponses = <C extends ContentfulStatusCode>(...codes: C[]) =>
  Object.fromEntries(codes.map((code) => [code, json(ErrorSchema, `Error (${code})`)])) as { [K in C]: ErrorResponse };

/** The success envelope around `data`. */
export const envelope = <T extends z.ZodType>(data: T) =>
  z.object({ statusCode: z.number().int(), message: z.string(), data });

/** The pagination envelope of the list endpoints around a list of `item`. */
export const pagination = <T extends z.ZodType>(item: T) =>
  z.object({
    docs: z.array(item),
    totalDocs: z.number().int(),
    offset: z.number().int(),
    limit: z.number().int(),
    totalPages: z.number().int(),
    page: z.number().int(),
    pagingCounter: z.number().int(),
    hasPrevPage: z.boolean(),
    hasNextPage: z.boolean(),
    prevPage: z.number().int().nullable(),
    nextPage: z.number().int().nullable(),
  });

/** A required application/json request body. */
export const body = <T extends z.ZodType>(schema: T) => ({
  required: true,
  content: { 'application/json': { schema } },
});

/** zod error option for a string field: "is required" when absent, "must be a string" otherwise. */
export const stringError = {
  error: (issue: { input?: unknown }) => (issue.input === undefined ? 'is required' : 'must be a string'),
};

/**
 * createRoute for every documented operation: it must name its operationId and its security (PUBLIC when none), and it
 * gets the answers any operation can give besides its own: 400 (a NUL byte in a parameter, header or body, refused
 * before any route: common/nul-guard.ts) and, with a request body, 413 (over the body limit, process/app.ts) and 415 (not
 * application/json). The route's own entries win.
 */
export const operation = <
  P extends string,
  R extends Omit<RouteConfig, 'path'> & { path: P; operationId: string; security: Array<Record<string, string[]>> },
>(
  config: R,
) =>
  createRoute({
    ...config,
    responses: {
      400: json(ErrorSchema, 'Bad request: a field fails its schema, or a NUL byte in a parameter, header or body'),
      ...(config.request?.body
        ? {
            413: json(ErrorSchema, `The request body is larger than ${MAX_BODY_BYTES / 1024} KB`),
            415: json(ErrorSchema, 'The request body is not application/json'),
          }
        : {}),
      ...config.responses,
    },
  });

/** The Idempotency-Key header parameter and the answers it adds (http/idempotency.ts), for an operation's `parameters` and `responses`. */
export const IDEMPOTENCY_PARAMETER = {
  name: IDEMPOTENCY_HEADER,
  in: 'header' as const,
  required: false,
  schema: { type: 'string' as const, minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
  description:
    'Optional; 1 to 255 visible ASCII characters, e.g. a UUID. The same key with the same request (method, path, body) within 24 h ' +
    'gets the first answer again (same status and body, header Idempotent-Replayed: true) and changes nothing; with another request: 422. ' +
    'While the first request with the key is still in progress: 409 with Retry-After. Keys are per merchant.',
};

export const IDEMPOTENCY_RESPONSES = {
  409: json(
    ErrorSchema,
    "Conflict: the Idempotency-Key is in use by a request still in progress (retry after Retry-After), or the operation's own conflict",
  ),
  422: json(ErrorSchema, 'Idempotency-Key reused with another request'),
};
