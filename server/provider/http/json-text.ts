// A hot read's cached JSON answer, sent with the type c.json would have given it (so the route's schema still checks it).
import type { Context, TypedResponse } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { JSONParsed } from 'hono/utils/types';

/** JSON text known to be `JSON.stringify` of a T: made only by {@link jsonText}. */
export type JsonText<T> = string & { readonly __json: T };

export const jsonText = <T>(value: T): JsonText<T> => JSON.stringify(value) as JsonText<T>;

/**
 * Answers JSON serialised earlier (a hot read's cached answer) with the type `c.json(value, status)` would have, so
 * the route's response schema still checks the value that was serialised.
 */
export function sendJsonText<T, S extends ContentfulStatusCode>(
  c: Context,
  text: JsonText<T>,
  status: S,
): Response & TypedResponse<JSONParsed<T>, S, 'json'> {
  // The one assertion: `text` is JSON.stringify of a T (JsonText), which is what c.json's own type records.
  const response: Response = c.body(text, status, { 'Content-Type': 'application/json' });
  return response as Response & TypedResponse<JSONParsed<T>, S, 'json'>;
}
