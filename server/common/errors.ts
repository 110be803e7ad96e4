// The one error type of both servers and the envelope it is answered in: `{statusCode, error, message}`.
// Each app shapes thrown errors into it once, in its onError.
import type { NotFoundHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

/** The envelope's `error` label of each status the servers answer with. */
export const STATUS_LABELS: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  410: 'Gone',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

export interface ErrorBody {
  statusCode: number;
  error: string;
  message: string;
}

/**
 * An expected failure, answered as `{statusCode, error, message}`. `label` is the envelope's `error`: the status
 * text unless given (the interface's error table pairs some statuses with other labels, e.g. 400 "Not Found").
 */
export class ApiError extends HTTPException {
  readonly label: string;
  constructor(status: ContentfulStatusCode, message: string, label: string = STATUS_LABELS[status] ?? 'Error') {
    super(status, { message });
    this.label = label;
  }
}

export function errorBody(status: number, message: string, label?: string): ErrorBody {
  return { statusCode: status, error: label ?? STATUS_LABELS[status] ?? 'Error', message };
}

/**
 * The envelope of any thrown error that is not an internal failure: ApiError as it says, Hono's own exceptions
 * (malformed JSON, body limit) with their status; undefined for anything else (the caller logs it and answers 500).
 */
export function expectedErrorBody(err: unknown): ErrorBody | undefined {
  if (err instanceof ApiError) return errorBody(err.status, err.message, err.label);
  if (err instanceof HTTPException) {
    const message = /malformed json/i.test(err.message)
      ? 'Malformed JSON in request body'
      : err.message || STATUS_LABELS[err.status] || 'Error';
    return errorBody(err.status, message);
  }
  return undefined;
}

/** Every unknown route, in the envelope. */
export const onNotFound: NotFoundHandler = (c) =>
  c.json(errorBody(404, `Cannot ${c.req.method} ${new URL(c.req.url).pathname}`), 404);
