// The one log line per webhook delivery attempt (docs/design.md, "Seeing and testing an integration"), like `stripe
// listen`: what was sent where, and what came of it. Never a secret: the URL is shown without credentials or query, the
// body and headers not at all.
import type { Logger } from '../../common/log.js';

export interface AttemptLine {
  event: string;
  depositId: string;
  /** The webhook URL the attempt went to (null: none is set). */
  url: string | null;
  /** The receiver's HTTP status, when it answered. */
  status: number | null;
  /** Why the attempt failed (a connection error, a non-2xx status), null when it succeeded. */
  error: string | null;
  ms: number;
  attempt: number;
  deliveryId: string;
}

/** A URL as it may be logged: scheme, host, port and path (a query or user info may hold a token). */
export function loggableUrl(url: string | null): string {
  if (!url) return '(no webhook URL set)';
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return '(an invalid URL)';
  }
}

/**
 * The hint a refused signature earns (the receiver checks with another secret than this service's), and a refused
 * connection (nothing listens there: the receiver is down, or the webhook URL is wrong).
 */
function refusalHint(status: number | null, error: string | null, sandbox: boolean): string | undefined {
  if (error?.includes('ECONNREFUSED')) {
    return `nothing listens there: start the receiver, or set the webhook URL (${sandbox ? 'KASIR_WEBHOOK_URL, or ' : ''}the dashboard)`;
  }
  if (status !== 401 && status !== 403) return undefined;
  return (
    `the receiver refused the signature: it must use this ${sandbox ? 'sandbox' : 'service'}'s webhook secret ` +
    `(KASIR_WEBHOOK_SECRET${sandbox ? '; `kasir-sandbox env` prints it' : ''})`
  );
}

/** Logs one attempt: info when the receiver took it, warn otherwise. */
export function logAttempt(log: Logger, line: AttemptLine, sandbox: boolean): void {
  const outcome =
    line.error === null ? `${line.status}` : line.status !== null ? `${line.status}` : `failed: ${line.error}`;
  const hint = refusalHint(line.status, line.error, sandbox);
  const msg =
    `webhook ${line.event} ${line.depositId} -> ${loggableUrl(line.url)} ${outcome} in ${line.ms} ms` +
    `${line.attempt > 1 ? ` (attempt ${line.attempt})` : ''}${hint ? `: ${hint}` : ''}`;
  const fields = { ...line, url: loggableUrl(line.url), ...(hint ? { hint } : {}) };
  if (line.error === null) log.info(fields, msg);
  else log.warn(fields, msg);
}
