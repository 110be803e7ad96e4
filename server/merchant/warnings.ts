// What the shop must see without changing a setting (docs/design.md, "Seeing and testing an integration"): the merchant
// backend's warnings, at the logger's warn level (the default of createKasirApi's own logger), each cause at most once
// a minute, each naming the setting or URL to fix. Never a secret: a line holds statuses, messages the service wrote,
// paths and setting names.
import { LRUCache } from 'lru-cache';
import type { Logger } from '../common/log.js';
import { PaymentServiceError, PaymentServiceUnavailableError } from './client/errors.js';
import { ConfigError } from './config.js';

const INTERVAL_MS = 60_000;

/** Why a webhook was refused (`signature`, `timestamp`, `headers`) and what to check. */
export type WebhookRefusal = 'signature' | 'timestamp' | 'headers';

export class Warnings {
  /**
   * The causes told in the last minute. lru-cache keeps an entry while its age is at most its ttl, so a ttl one
   * below INTERVAL_MS tells a cause again once a whole minute has passed (the clock counts whole milliseconds);
   * ttlResolution 0 reads the clock on every check. Causes are few (a status, a URL, a hook's name): the bound
   * only keeps a runaway from growing it.
   */
  private readonly told: LRUCache<string, true>;

  constructor(
    private readonly log: Logger,
    now: () => number = Date.now,
  ) {
    this.told = new LRUCache({ max: 1000, ttl: INTERVAL_MS - 1, ttlResolution: 0, perf: { now } });
  }

  /** Logs `message` at warn unless the same cause was told in the last minute; answers whether it logged. */
  warn(cause: string, fields: Record<string, unknown>, message: string): boolean {
    if (this.told.has(cause)) return false;
    this.told.set(cause, true);
    if (!this.log.isLevelEnabled('warn')) return false;
    this.log.warn(fields, message);
    return true;
  }

  /** A call to the payment service failed in a way the shop must fix (credentials, address) or know of (its 5xx). */
  paymentService(err: unknown): boolean {
    if (err instanceof PaymentServiceUnavailableError) {
      const url = err.url ?? 'the payment service';
      return this.warn(
        `unreachable:${url}`,
        { url, call: err.call },
        `${err.message}: is it running at that address? Check KASIR_BASE_URL (baseUrl)`,
      );
    }
    if (err instanceof PaymentServiceError && err.isAuth) {
      const settings = err.settingsToCheck;
      return this.warn(
        `refused:${err.statusCode}:${err.auth}`,
        { status: err.statusCode, call: err.call, serviceMessage: err.message, check: settings },
        `the payment service refused the shop's request: ${err.statusCode} "${err.message}" on ${err.call}; check ${settings.join(' and ') || 'the credentials'}` +
          (settings.length ? ` (from \`kasir-sandbox env\` for a sandbox)` : ''),
      );
    }
    if (err instanceof PaymentServiceError && err.call === 'POST /v1/checkout' && err.statusCode < 500) {
      // The shopper reads "cannot be paid online"; the shop must read why (a new account's checkout is off).
      const off = /not enabled/i.test(err.message);
      return this.warn(
        `checkout-refused:${err.statusCode}:${err.message}`,
        { status: err.statusCode, call: err.call, serviceMessage: err.message },
        `the payment service refused to make a checkout: ${err.statusCode} "${err.message}"` +
          (off
            ? `: switch on "Hosted checkout enabled" in the payment service's dashboard (Checkout), or ask the provider to enable it for this account`
            : ''),
      );
    }
    if (err instanceof PaymentServiceError && err.statusCode >= 500) {
      return this.warn(
        `failed:${err.statusCode}`,
        { status: err.statusCode, call: err.call, serviceMessage: err.message },
        `the payment service failed: ${err.statusCode} "${err.message}" on ${err.call}`,
      );
    }
    return false;
  }

  /** The connection settings are still incomplete at a request. */
  config(err: ConfigError): boolean {
    return this.warn('config', {}, err.message);
  }

  /** A webhook this backend refused (the sender retries it, and the hook does not run until it passes). */
  webhookRefused(reason: WebhookRefusal, detail: string, toleranceSeconds: number): boolean {
    const message =
      reason === 'signature'
        ? `webhook refused: its signature does not match KASIR_WEBHOOK_SECRET (webhookSecret); set the payment service's webhook secret for this shop (a sandbox's is in \`kasir-sandbox env\`). Until it matches, hooks such as onDepositCompleted run only when the follower reads the payment from the service (within about a minute), not at once`
        : reason === 'timestamp'
          ? `webhook refused: its webhook-timestamp is more than ${toleranceSeconds} s from this server's clock (${detail}); check the clock or webhookToleranceSeconds`
          : `webhook refused: ${detail}; the receiver at /webhooks/kasir takes Standard Webhooks deliveries with webhook-id, webhook-timestamp and webhook-signature`;
    return this.warn(`webhook:${reason}`, { reason }, message);
  }

  /** A shop's hook threw: the webhook is answered 503 and retried. */
  hookFailed(hook: string, err: unknown, context: Record<string, unknown>): boolean {
    const why = err instanceof Error ? err.message : String(err);
    return this.warn(
      `hook:${hook}`,
      { hook, ...context, err: why },
      `${hook} threw: ${why} (the webhook is answered 503 and the payment service retries it)`,
    );
  }
}
