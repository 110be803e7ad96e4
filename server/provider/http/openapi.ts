// The OpenAPI building blocks every route of the payment service shares: the envelope, the error body,
// the pagination envelope of interface 2.8, JSON request/response entries and the two security schemes.
import { z } from '@hono/zod-openapi';
import type { Context, TypedResponse } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { JSONParsed } from 'hono/utils/types';

/** S endpoints: the three signature headers together. A endpoints: a bearer token. */
export const SIGNED = [{ ClientId: [], Timestamp: [], Signature: [] }];
export const BEARER = [{ Bearer: [] }];

/** An ISO 8601 UTC timestamp (interface section 2: "Timestamps are ISO 8601 date-time strings"). */
export const TIMESTAMP = z.string().openapi({ format: 'date-time', example: '2026-11-22T01:02:03.456Z' });

/** The error envelope (interface section 7). */
export const ErrorSchema = z.object({
  statusCode: z.number().int(),
  error: z.string(),
  message: z.string(),
}).openapi('Error');

/** An application/json response entry of a createRoute() `responses` map. */
export const json = <T extends z.ZodType>(schema: T, description: string) => ({ description, content: { 'application/json': { schema } } });

type ErrorResponse = ReturnType<typeof json<typeof ErrorSchema>>;

/** Error entries of a `responses` map, one per status, keyed by the literal statuses given. */
export const errorResponses = <C extends ContentfulStatusCode>(...codes: C[]) =>
  Object.fromEntries(codes.map((code) => [code, json(ErrorSchema, `Error (${code})`)])) as { [K in C]: ErrorResponse };

/** The success envelope around `data`. */
export const envelope = <T extends z.ZodType>(data: T) => z.object({ statusCode: z.number().int(), message: z.string(), data });

/** The pagination envelope of interface 2.8 around a list of `item`. */
export const pagination = <T extends z.ZodType>(item: T) => z.object({
  docs: z.array(item), totalDocs: z.number().int(), offset: z.number().int(), limit: z.number().int(), totalPages: z.number().int(),
  page: z.number().int(), pagingCounter: z.number().int(), hasPrevPage: z.boolean(), hasNextPage: z.boolean(),
  prevPage: z.number().int().nullable(), nextPage: z.number().int().nullable(),
});

/** A required application/json request body. */
export const body = <T extends z.ZodType>(schema: T) => ({ required: true, content: { 'application/json': { schema } } });

/** zod error option for a string field: "is required" when absent, "must be a string" otherwise. */
export const stringError = { error: (issue: { input?: unknown }) => (issue.input === undefined ? 'is required' : 'must be a string') };

/** JSON text known to be `JSON.stringify` of a T: made only by {@link jsonText}. */
export type JsonText<T> = string & { readonly __json: T };

export const jsonText = <T>(value: T): JsonText<T> => JSON.stringify(value) as JsonText<T>;

/**
 * Answers JSON serialised earlier (a hot read's cached answer) with the type `c.json(value, status)` would have, so
 * the route's response schema still checks the value that was serialised.
 */
export function sendJsonText<T, S extends ContentfulStatusCode>(c: Context, text: JsonText<T>, status: S): Response & TypedResponse<JSONParsed<T>, S, 'json'> {
  // The one assertion: `text` is JSON.stringify of a T (JsonText), which is what c.json's own type records.
  const response: Response = c.body(text, status, { 'Content-Type': 'application/json' });
  return response as Response & TypedResponse<JSONParsed<T>, S, 'json'>;
}
