// verifyWebhook: for a shop with its own receiver (not createKasirApi's /webhooks/kasir). Synchronous, like the
// Standard Webhooks libraries: verify, then use the returned event.
import { verifyWebhookSignature, WebhookVerificationError, type HeaderSource } from '../common/standard-webhooks.js';
import type { Deposit } from './client/types.js';

/** The body of a payment-service webhook (DESIGN.md section 3, Webhooks). orderId = depositId = the checkout id. */
export interface KasirWebhookEvent {
  /** DESIGN.md 3 and 10: deposit.partially_paid (status pending) and deposit.paid_late (status expired) report payments. */
  type: 'deposit.completed' | 'deposit.expired' | 'deposit.partially_paid' | 'deposit.paid_late';
  orderId: string;
  depositId: string;
  reference?: string;
  status: 'completed' | 'expired' | 'pending';
  data: Deposit;
  timestamp: string;
}

export interface VerifyWebhookOptions {
  /** Largest allowed distance between webhook-timestamp and now, in seconds (default 300). */
  toleranceSeconds?: number;
  /** The receiver's clock (default: the system clock). */
  now?: () => Date;
}

/**
 * Verifies one delivery (Standard Webhooks v1: `webhook-id`, `webhook-timestamp`, `webhook-signature`) against the
 * raw body exactly as received, and returns its parsed event. Throws WebhookVerificationError (`reason` says which
 * check failed) for missing headers, a stale or future timestamp, a bad signature or a body that is not a JSON
 * object. Deduplicate on the `webhook-id` header: a sender retries with the same id.
 */
export function verifyWebhook(secret: string, headers: HeaderSource, rawBody: string | Uint8Array, options: VerifyWebhookOptions = {}): KasirWebhookEvent {
  verifyWebhookSignature(secret, rawBody, headers, options);
  let event: unknown;
  try {
    event = JSON.parse(typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody));
  } catch {
    event = undefined;
  }
  if (!event || typeof event !== 'object' || Array.isArray(event)) {
    throw new WebhookVerificationError('bad_body', 'Webhook body is not a JSON object');
  }
  return event as KasirWebhookEvent;
}
