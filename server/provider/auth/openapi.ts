import { z } from '@hono/zod-openapi';

/** The error envelope (interface section 7), for the OpenAPI document of the accounts routes. */
export const ErrorSchema = z.object({
  statusCode: z.number().int(),
  error: z.string(),
  message: z.string(),
}).openapi('Error');

/** An application/json response entry of a createRoute() `responses` map. */
export const jsonResponse = <T extends z.ZodType>(schema: T, description: string) => ({ content: { 'application/json': { schema } }, description });

/** zod error option for a string field: "is required" when absent, "must be a string" otherwise. */
export const stringError = { error: (issue: { input?: unknown }) => (issue.input === undefined ? 'is required' : 'must be a string') };
