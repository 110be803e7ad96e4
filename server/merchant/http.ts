// The one place the merchant backend's thrown errors are shaped into the envelope, payment-service failures included.
import type { ErrorHandler } from 'hono';
import type { Logger } from '../common/log.js';
import { ApiError, errorBody, expectedErrorBody, STATUS_LABELS } from '../common/errors.js';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { PaymentServiceError, PaymentServiceUnavailableError } from './client/errors.js';
import { ConfigError } from './config.js';

export { ApiError, errorBody, onNotFound } from '../common/errors.js';

/**
 * Turns a payment-service failure into what a shopper may read, every word of it true. Its 4xx messages are about the
 * shopper's own request ("Payment method not found") and pass through; a refusal of the shop's credentials, settings
 * still missing, or a failure of the service itself is the shop's problem and says so without details. The shop is
 * told by the warnings (warnings.ts: the client reports each failure, at most once a minute per cause), so these
 * lines are only at debug.
 */
function fromUpstream(err: unknown, log: Logger): ApiError | undefined {
  if (err instanceof ConfigError) {
    return new ApiError(
      503,
      "This shop's payment settings are incomplete, so it cannot take payments yet; please contact the shop",
    );
  }
  if (err instanceof PaymentServiceUnavailableError) {
    log.debug({ err: err.message }, 'payment service unavailable');
    return new ApiError(503, 'The payment service is unavailable; please try again shortly');
  }
  if (err instanceof PaymentServiceError) {
    if (err.isAuth) {
      log.debug(
        { call: err.call, status: err.statusCode, err: err.message },
        "payment service refused the shop's credentials",
      );
      return new ApiError(
        502,
        "The payment service refused this shop's request, so it cannot take payments right now; please contact the shop or try again later",
      );
    }
    if (err.statusCode >= 500) {
      log.debug({ call: err.call, status: err.statusCode, err: err.message }, 'payment service failed');
      return new ApiError(502, 'The payment service failed; please try again shortly');
    }
    const status = (STATUS_LABELS[err.statusCode] ? err.statusCode : 400) as ContentfulStatusCode;
    return new ApiError(status, err.message.slice(0, 300));
  }
  return undefined;
}

/** The backend's error handler: the envelope for the client, the details (never a secret) for the log. */
export function errorHandler(log: Logger): ErrorHandler {
  return (err, c) => {
    const body = expectedErrorBody(fromUpstream(err, log) ?? err);
    if (body) return c.json(body, body.statusCode as ContentfulStatusCode);
    log.error({ method: c.req.method, path: c.req.path, err }, 'request failed');
    return c.json(errorBody(500, 'Internal server error'), 500);
  };
}
