/**
 * An error envelope from the payment service, typed. `statusCode` is read from the body as the interface
 * requires (falling back to the HTTP status only when the body has none).
 */
export class PaymentServiceError extends Error {
  override readonly name = 'PaymentServiceError';
  constructor(
    /** The envelope's statusCode (or status, on login and verify-login). */
    readonly statusCode: number,
    /** The envelope's short label, e.g. "Bad Request" or "Not Found". */
    readonly label: string,
    message: string,
    /** The HTTP status of the response. */
    readonly httpStatus: number,
    /** METHOD and path of the call that failed (no query, no body, no secret). */
    readonly call: string,
    /** How the call authenticated: `S` signed with clientId/clientSecret, `A` the access token, `none`. */
    readonly auth: 'S' | 'A' | 'none' = 'none',
  ) {
    super(message);
  }

  /** A 409 saying the request with this Idempotency-Key is still in progress: the same call may be sent again shortly. */
  inProgress = false;

  /** The shop's settings a refusal of its credentials points at (none for other failures). */
  get settingsToCheck(): readonly string[] {
    if (!this.isAuth) return [];
    return this.auth === 'S'
      ? ['KASIR_CLIENT_ID', 'KASIR_CLIENT_SECRET']
      : this.auth === 'A'
        ? ['KASIR_ACCESS_TOKEN']
        : [];
  }

  get isAuth() {
    return this.statusCode === 401 || this.statusCode === 403;
  }
}

/** The service could not be reached, timed out, or answered something that is not the envelope. */
export class PaymentServiceUnavailableError extends Error {
  override readonly name = 'PaymentServiceUnavailableError';
  constructor(
    message: string,
    readonly call: string,
    options?: { cause?: unknown },
    /** The service's address the call went to (its origin and path prefix, never a query or a secret). */
    readonly url?: string,
  ) {
    super(message, options);
  }
}
