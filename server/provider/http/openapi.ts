// The OpenAPI building blocks every route of the payment service shares: the envelope, the error body,
// the pagination envelope of interface 2.8, JSON request/response entries and the two security schemes.
import { z } from '@hono/zod-openapi';

/** S endpoints: the three signature headers together. A endpoints: a bearer token. */
export const SIGNED = [{ ClientId: [], Timestamp: [], Signature: [] }];
export const BEARER = [{ Bearer: [] }];

/** The error envelope (interface section 7). */
export const ErrorSchema = z.object({
  statusCode: z.number().int(),
  error: z.string(),
  message: z.string(),
}).openapi('Error');

/** Error entries of a `responses` map, one per status. */
export const errorResponses = (...codes: number[]) =>
  Object.fromEntries(codes.map((code) => [code, { description: `Error (${code})`, content: { 'application/json': { schema: ErrorSchema } } }]));

/** The success envelope around `data`. */
export const envelope = <T extends z.ZodTypeAny>(data: T) => z.object({ statusCode: z.number().int(), message: z.string(), data });

/** The pagination envelope of interface 2.8 around a list of `item`. */
export const pagination = <T extends z.ZodTypeAny>(item: T) => z.object({
  docs: z.array(item), totalDocs: z.number().int(), offset: z.number().int(), limit: z.number().int(), totalPages: z.number().int(),
  page: z.number().int(), pagingCounter: z.number().int(), hasPrevPage: z.boolean(), hasNextPage: z.boolean(),
  prevPage: z.number().int().nullable(), nextPage: z.number().int().nullable(),
});

/** An application/json response entry of a createRoute() `responses` map. */
export const json = <T extends z.ZodTypeAny>(schema: T, description: string) => ({ description, content: { 'application/json': { schema } } });

/** A required application/json request body. */
export const body = <T extends z.ZodTypeAny>(schema: T) => ({ required: true, content: { 'application/json': { schema } } });

/** zod error option for a string field: "is required" when absent, "must be a string" otherwise. */
export const stringError = { error: (issue: { input?: unknown }) => (issue.input === undefined ? 'is required' : 'must be a string') };
