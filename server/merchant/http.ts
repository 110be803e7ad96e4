// The envelope of every /api answer, and the one place thrown errors are shaped into it.
import type { Context, ErrorHandler } from 'hono';
import { ApiError, errorBody, expectedErrorBody, STATUS_LABELS } from '../common/errors.js';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { PaymentServiceError, PaymentServiceUnavailableError } from './client/errors.js';

export { ApiError, errorBody, onNotFound } from '../common/errors.js';

export function ok<T>(c: Context, data: T, status: 200 | 201 = 200, message = 'Success'): Response {
  return c.json({ statusCode: status, message, data }, status);
}

/**
 * Turns a payment-service failure into what a shopper may read. Its 4xx messages are about the shopper's own
 * request ("Payment method not found") and pass through; a refusal of the shop's credentials or a failure of the
 * service itself is the shop's problem and says so without details (which go to the log).
 */
export function fromUpstream(err: unknown): ApiError | undefined {
  if (err instanceof PaymentServiceUnavailableError) {
    console.error(`[merchant] ${err.message}`);
    return new ApiError(503, 'The payment service is unavailable; please try again shortly');
  }
  if (err instanceof PaymentServiceError) {
    if (err.isAuth) {
      console.error(`[merchant] payment service refused the shop's credentials on ${err.call}: ${err.statusCode} ${err.message}`);
      return new ApiError(502, "The payment service refused this shop's request; the shop has been notified");
    }
    if (err.statusCode >= 500) {
      console.error(`[merchant] payment service failed on ${err.call}: ${err.statusCode} ${err.message}`);
      return new ApiError(502, 'The payment service failed; please try again shortly');
    }
    const status = (STATUS_LABELS[err.statusCode] ? err.statusCode : 400) as ContentfulStatusCode;
    return new ApiError(status, err.message.slice(0, 300));
  }
  return undefined;
}

export const onError: ErrorHandler = (err, c) => {
  const body = expectedErrorBody(fromUpstream(err) ?? err);
  if (body) return c.json(body, body.statusCode as ContentfulStatusCode);
  console.error(`[merchant] ${c.req.method} ${new URL(c.req.url).pathname} failed:`, err instanceof Error ? err.stack ?? err.message : err);
  return c.json(errorBody(500, 'Internal server error'), 500);
};

/** `application/json`, with or without parameters (`; charset=utf-8`). */
export const isJsonType = (type: string | undefined): boolean => !!type && /^\s*application\/json\s*(;|$)/i.test(type);

/**
 * Reads a JSON object body, or throws a 400/415 in the envelope. Only `application/json` is read: a type a
 * page can send cross-site without a CORS preflight (text/plain, forms) is refused.
 */
export async function jsonBody(c: Context): Promise<Record<string, unknown>> {
  if (!isJsonType(c.req.header('content-type'))) throw new ApiError(415, 'Send the body as application/json');
  const text = await c.req.text();
  if (!text.trim()) return {};
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ApiError(400, 'Malformed JSON in request body');
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new ApiError(400, 'The body must be a JSON object');
  return body as Record<string, unknown>;
}

const ID = /^[A-Za-z0-9_-]{1,128}$/;
export function checkoutIdParam(c: Context): string {
  const id = c.req.param('id') ?? '';
  if (!ID.test(id)) throw new ApiError(404, 'Checkout not found');
  return id;
}
