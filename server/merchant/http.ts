// The one place the merchant backend's thrown errors are shaped into the envelope, payment-service failures included.
import type { ErrorHandler } from 'hono';
import { ApiError, errorBody, expectedErrorBody, STATUS_LABELS } from '../common/errors.js';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { PaymentServiceError, PaymentServiceUnavailableError } from './client/errors.js';

export { ApiError, errorBody, onNotFound } from '../common/errors.js';

/**
 * Turns a payment-service failure into what a shopper may read. Its 4xx messages are about the shopper's own
 * request ("Payment method not found") and pass through; a refusal of the shop's credentials or a failure of the
 * service itself is the shop's problem and says so without details (which go to the log).
 */
function fromUpstream(err: unknown): ApiError | undefined {
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
