// Structured JSON logs (pino) for both servers: one logger per process, one line per request with a request id.
// What a request line holds is chosen here (method, path without its query, status, ms), never headers or bodies,
// so a signature, a token, a password or an OTP cannot reach the log through it; the redact list below catches the
// same names when a caller logs an object of its own.
import type { Context, MiddlewareHandler } from 'hono';
import { pino, type DestinationStream, type Level, type Logger } from 'pino';

export type { Logger };
export type LogLevel = Level | 'silent';

/**
 * Keys whose values never reach a log line: at the top level, and under the objects a caller is likely to log whole.
 * Named paths only: a wildcard (`*.password`) makes pino walk every logged object, which costs the hot path about a
 * fifth of its throughput once a line is written per request.
 */
const SECRET_KEYS = [
  'password',
  'otp',
  'otpCode',
  'otp_code',
  'token',
  'accessToken',
  'verificationToken',
  'authorization',
  'clientSecret',
  'client_secret',
  'webhookSecret',
  'webhook_secret',
  'secret',
  'signature',
  'accountNumber',
  'cookie',
];
const CONTAINERS = ['headers', 'body', 'account', 'credentials', 'merchant', 'user', 'config', 'bank'];
const REDACT_PATHS = [
  ...SECRET_KEYS,
  ...CONTAINERS.flatMap((container) => SECRET_KEYS.map((key) => `${container}["${key}"]`)),
  'headers["x-signature"]',
  'headers["webhook-signature"]',
];

export interface LoggerOptions {
  /** Default: KASIR_LOG_LEVEL, else `fallbackLevel`. */
  level?: LogLevel;
  /** The level when neither `level` nor KASIR_LOG_LEVEL says: `info` for the commands, `silent` for libraries. */
  fallbackLevel?: LogLevel;
  /**
   * Where lines go. Default: stdout, written asynchronously in chunks (a request does not wait on a write call of
   * its own), flushed periodically and at exit.
   */
  destination?: DestinationStream;
}

const LEVELS: readonly string[] = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];

/** A KASIR_LOG_LEVEL that is no level: the commands print its message, not a stack trace. */
export class LogLevelError extends Error {
  override readonly name = 'LogLevelError';
}

/** KASIR_LOG_LEVEL, where an empty (or blank) variable is unset, as every other variable. */
function envLevel(): LogLevel | undefined {
  const raw = process.env.KASIR_LOG_LEVEL?.trim().toLowerCase();
  if (!raw) return undefined;
  if (!LEVELS.includes(raw))
    throw new LogLevelError(
      `KASIR_LOG_LEVEL must be one of ${LEVELS.join(', ')} (got "${process.env.KASIR_LOG_LEVEL}")`,
    );
  return raw as LogLevel;
}

const LEVEL_NAMES: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO ',
  40: 'WARN ',
  50: 'ERROR',
  60: 'FATAL',
};
/** What every line carries, not worth repeating on a terminal. */
const QUIET_KEYS = new Set(['level', 'time', 'pid', 'hostname', 'name', 'msg', 'component']);

/**
 * One JSON log line as a person reads it on a terminal: `12:00:01 WARN  msg key=value ...`. The fields the message
 * already shows are left out, an error shows its stack.
 */
export function readableLine(json: string): string {
  let line: Record<string, unknown>;
  try {
    line = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  const msg = typeof line.msg === 'string' ? line.msg : '';
  const time = typeof line.time === 'string' ? line.time.slice(11, 19) : '';
  const parts = [`${time} ${LEVEL_NAMES[Number(line.level)] ?? line.level} ${msg}`];
  let stack = '';
  for (const [key, value] of Object.entries(line)) {
    if (QUIET_KEYS.has(key) || value === null || value === undefined) continue;
    if (key === 'err' && typeof value === 'object') {
      stack = `\n  ${String((value as { stack?: unknown }).stack ?? (value as { message?: unknown }).message)
        .split('\n')
        .join('\n  ')}`;
      continue;
    }
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    if (msg.includes(text)) continue;
    parts.push(`${key}=${text}`);
  }
  return `${parts.join(' ')}${stack}\n`;
}

/** Readable lines for a terminal (stdout is a TTY), written as they come: a person is watching. */
function terminalDestination(): DestinationStream {
  return {
    write: (json: string) => {
      process.stdout.write(readableLine(json));
    },
  };
}

/** Lines go to stdout: readable on a terminal, JSON otherwise (a file, a pipe, a log collector). */
export function createLogger(name: string, options: LoggerOptions = {}): Logger {
  const level = options.level ?? envLevel() ?? options.fallbackLevel ?? 'info';
  return pino(
    {
      name,
      level,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    options.destination ??
      (process.stdout.isTTY
        ? terminalDestination()
        : pino.destination({ dest: 1, sync: false, minLength: 4096, periodicFlush: 250 })),
  );
}

export interface RequestLoggingOptions {
  /** Paths logged at debug instead of info (health probes an orchestrator calls every few seconds). */
  quietPaths?: readonly string[];
}

/** An id a proxy or client sent (as hono/request-id accepts them): word characters, `-` and `=`, at most 255. */
const SANE_REQUEST_ID = /^[\w\-=]{1,255}$/;

/**
 * The request's own X-Request-Id when sane. Read from Node's parsed headers under @hono/node-server: asking
 * `c.req.header()` there builds a full WHATWG Headers object per request (what hono/request-id does), which the
 * signed read path is careful never to pay for.
 */
function incomingRequestId(c: Context): string | undefined {
  const incoming = (c.env as { incoming?: { headers?: Record<string, string | string[] | undefined> } } | undefined)
    ?.incoming;
  const value = incoming?.headers ? incoming.headers['x-request-id'] : c.req.header('x-request-id');
  return typeof value === 'string' && SANE_REQUEST_ID.test(value) ? value : undefined;
}

/**
 * Puts the id on the answer. Under @hono/node-server on Node's response, which merges it into the head it writes:
 * `c.header()` before the handler would give every answer a WHATWG Headers object, off Hono's and the node server's
 * fast path for a plain JSON body.
 */
function answerRequestId(c: Context, reqId: string): void {
  const outgoing = (c.env as { outgoing?: { setHeader?: (name: string, value: string) => void } } | undefined)
    ?.outgoing;
  if (outgoing?.setHeader) outgoing.setHeader('X-Request-Id', reqId);
  else c.header('X-Request-Id', reqId);
}

/**
 * Gives each request an id (`X-Request-Id` on the answer; the request's own when it sends a sane one) and logs one line per request at info: `{reqId, method, path, status, ms}`; a request that ended in an
 * unexpected error (5xx) is logged at error with the error. Put it first, before the routes.
 */
export function requestLogging(logger: Logger, options: RequestLoggingOptions = {}): MiddlewareHandler {
  const quiet = new Set(options.quietPaths);
  return async (c, next) => {
    const started = performance.now();
    const reqId = incomingRequestId(c) ?? crypto.randomUUID();
    answerRequestId(c, reqId);
    await next();
    const status = c.res.status;
    const failed = status >= 500 && c.error !== undefined;
    const level = failed ? 'error' : quiet.has(c.req.path) ? 'debug' : 'info';
    if (!logger.isLevelEnabled(level)) return;
    const line = {
      reqId,
      method: c.req.method,
      path: c.req.path,
      status,
      ms: Math.round((performance.now() - started) * 10) / 10,
    };
    if (failed) logger.error({ ...line, err: c.error }, 'request failed');
    else logger[level](line, 'request');
  };
}
