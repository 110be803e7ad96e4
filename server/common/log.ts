// Structured JSON logs (pino) for both servers: one logger per process, one line per request with a request id.
// What a request line holds is chosen here (method, path without its query, status, ms), never headers or bodies,
// so a signature, a token, a password or an OTP cannot reach the log through it; the redact list below catches the
// same names when a caller logs an object of its own.
import type { MiddlewareHandler } from 'hono';
import { requestId } from 'hono/request-id';
import { pino, type DestinationStream, type Level, type Logger } from 'pino';

export type { Logger };
export type LogLevel = Level | 'silent';

/** Keys whose values never reach a log line, at the top level or one object down. */
const SECRET_KEYS = [
  'password', 'otp', 'otpCode', 'otp_code', 'token', 'accessToken', 'verificationToken', 'authorization',
  'clientSecret', 'client_secret', 'webhookSecret', 'secret', 'signature', 'x-signature', 'webhook-signature',
  'accountNumber', 'cookie',
];
const REDACT_PATHS = SECRET_KEYS.flatMap((key) => [key, `*.${key}`]);

export interface LoggerOptions {
  /** Default: KASIR_LOG_LEVEL, else `fallbackLevel`. */
  level?: LogLevel;
  /** The level when neither `level` nor KASIR_LOG_LEVEL says: `info` for the commands, `silent` for libraries. */
  fallbackLevel?: LogLevel;
  /** Where lines go; default stdout, written asynchronously so a request does not wait on the terminal. */
  destination?: DestinationStream;
}

export function createLogger(name: string, options: LoggerOptions = {}): Logger {
  const level = options.level ?? (process.env.KASIR_LOG_LEVEL as LogLevel | undefined) ?? options.fallbackLevel ?? 'info';
  return pino({
    name,
    level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
  }, options.destination ?? pino.destination({ dest: 1, sync: false }));
}

export interface RequestLoggingOptions {
  /** Paths logged at debug instead of info (health probes an orchestrator calls every few seconds). */
  quietPaths?: readonly string[];
}

/**
 * Gives each request an id (`X-Request-Id`, taken from the request when it sends a sane one) and logs one line per
 * request at info: `{reqId, method, path, status, ms}`; a request that ended in an unexpected error (5xx) is logged
 * at error with the error. Put it first, before the routes.
 */
export function requestLogging(logger: Logger, options: RequestLoggingOptions = {}): MiddlewareHandler {
  const assignId = requestId();
  const quiet = new Set(options.quietPaths);
  return (c, next) => assignId(c, async () => {
    const started = performance.now();
    await next();
    const status = c.res.status;
    const failed = status >= 500 && c.error !== undefined;
    const level = failed ? 'error' : quiet.has(c.req.path) ? 'debug' : 'info';
    if (!logger.isLevelEnabled(level)) return;
    const line = {
      reqId: c.get('requestId' as never) as string,
      method: c.req.method,
      path: c.req.path,
      status,
      ms: Math.round((performance.now() - started) * 10) / 10,
    };
    if (failed) logger.error({ ...line, err: c.error }, 'request failed');
    else logger[level](line, 'request');
  });
}
