// Standard Webhooks v1 (https://www.standardwebhooks.com): signing and verification, shared by the
// payment service (which sends) and the merchant backend (which receives). Neutral on purpose: it
// imports nothing from either side.
//
// The signature itself is the `standardwebhooks` library's (Webhook.sign), for sending and for checking.
// Its Webhook.verify is not used: it checks the timestamp against the system clock with a fixed
// 5-minute window, and the receiver's window is configurable (webhookToleranceSeconds) and its clock
// injectable. So this module reads the headers, checks the secret's format and the timestamp window,
// compares the library's signature with each `v1` one received in constant time, and parses the body; every
// refusal carries a WebhookVerificationReason.
//
//   webhook-id:        msg_...            (the same on every retry of one message; receivers dedupe on it)
//   webhook-timestamp: 1763773323         (Unix seconds of this attempt)
//   webhook-signature: v1,<base64 HMAC-SHA256(key, "id.timestamp.body")>  (space-separated list allowed)
//   secret:            whsec_<base64 key>
import { timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

const WEBHOOK_SECRET_PREFIX = 'whsec_';
/** Default largest distance between webhook-timestamp and the receiver's clock. */
const DEFAULT_TOLERANCE_SECONDS = 5 * 60;

type WebhookHeaders = {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
};

export type WebhookVerificationReason =
  'missing_headers' | 'bad_secret' | 'bad_timestamp' | 'too_old' | 'too_new' | 'bad_signature' | 'bad_body';

/** Why a webhook was refused. */
export class WebhookVerificationError extends Error {
  constructor(
    readonly reason: WebhookVerificationReason,
    message: string,
  ) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

/**
 * A webhook secret: whsec_ and the base64 of its key, padding only at the end. The one check of the format: the
 * merchant's settings (webhookSecret) and the key read below. The sandbox makes them with `newWebhookSecret` (provider/accounts/merchants.ts).
 */
export const WEBHOOK_SECRET_FORMAT = new RegExp(`^${WEBHOOK_SECRET_PREFIX}[A-Za-z0-9+/]+={0,2}$`);

/** The HMAC key of a `whsec_...` secret (base64 after the prefix). Throws on an empty or malformed secret. */
function webhookSecretKey(secret: string): Buffer {
  // The prefix may be left out, as the Standard Webhooks libraries allow.
  const prefixed = secret.startsWith(WEBHOOK_SECRET_PREFIX) ? secret : WEBHOOK_SECRET_PREFIX + secret;
  if (!WEBHOOK_SECRET_FORMAT.test(prefixed)) {
    throw new WebhookVerificationError('bad_secret', 'Webhook secret must be whsec_ followed by base64');
  }
  const key = Buffer.from(prefixed.slice(WEBHOOK_SECRET_PREFIX.length), 'base64');
  if (key.length === 0) throw new WebhookVerificationError('bad_secret', 'Webhook secret is empty');
  return key;
}

/**
 * `v1,<base64 signature>` of one message, by the standardwebhooks library. `timestampSeconds` is Unix seconds.
 * The key is decoded here (the format checked as before: the library's decoder is stricter about padding); the
 * library reads bytes as UTF-8 text, which JSON bodies are.
 */
export function signWebhook(secret: string, id: string, timestampSeconds: number, body: string | Uint8Array): string {
  const payload =
    typeof body === 'string' || Buffer.isBuffer(body)
      ? body
      : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  return new Webhook(webhookSecretKey(secret), { format: 'raw' }).sign(id, new Date(timestampSeconds * 1000), payload);
}

/** The three headers a sender attaches to one delivery attempt. */
export function webhookHeaders(
  secret: string,
  id: string,
  body: string | Uint8Array,
  now: Date = new Date(),
): WebhookHeaders {
  const timestamp = Math.floor(now.getTime() / 1000);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signWebhook(secret, id, timestamp, body),
  };
}

export interface VerifyWebhookOptions {
  /** Largest allowed distance between webhook-timestamp and now, in seconds (default 300). */
  toleranceSeconds?: number;
  /** The receiver's clock (default: the system clock). */
  now?: () => Date;
}

export type HeaderSource = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  for (const key of Object.keys(record)) {
    if (key.toLowerCase() === name) {
      const value = record[key];
      return Array.isArray(value) ? value[0] : value;
    }
  }
  return undefined;
}

/**
 * Verifies one delivery against the raw body exactly as received (never a re-serialised object), synchronously:
 * headers present, timestamp well-formed and within tolerance, one of the `v1` signatures matches the library's
 * (constant-time), the body a JSON object; returns that object. `Event` is what the sender's document says it sends:
 * the signature vouches for the sender, nothing here checks the fields. Throws WebhookVerificationError, whose
 * `reason` says which check failed. Deduplicate on the `webhook-id` header: a sender retries with the same id.
 */
export function verifyWebhook<Event extends object = Record<string, unknown>>(
  secret: string,
  headers: HeaderSource,
  rawBody: string | Uint8Array,
  options: VerifyWebhookOptions = {},
): Event {
  const id = header(headers, 'webhook-id');
  const timestampHeader = header(headers, 'webhook-timestamp');
  const signatureHeader = header(headers, 'webhook-signature');
  if (!id || !timestampHeader || !signatureHeader) {
    throw new WebhookVerificationError(
      'missing_headers',
      'Missing webhook-id, webhook-timestamp or webhook-signature header',
    );
  }
  if (!/^\d{1,12}$/.test(timestampHeader)) {
    throw new WebhookVerificationError('bad_timestamp', 'webhook-timestamp must be Unix seconds');
  }
  const timestamp = Number(timestampHeader);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const nowSeconds = Math.floor((options.now?.() ?? new Date()).getTime() / 1000);
  if (nowSeconds - timestamp > tolerance) throw new WebhookVerificationError('too_old', 'webhook-timestamp is too old');
  if (timestamp - nowSeconds > tolerance)
    throw new WebhookVerificationError('too_new', 'webhook-timestamp is too far in the future');

  const expected = Buffer.from(signWebhook(secret, id, timestamp, rawBody).slice(3), 'utf8');
  let matched = false;
  for (const candidate of signatureHeader.split(' ')) {
    const comma = candidate.indexOf(',');
    if (comma < 0 || candidate.slice(0, comma) !== 'v1') continue;
    const given = Buffer.from(candidate.slice(comma + 1), 'utf8');
    if (given.length === expected.length && timingSafeEqual(given, expected)) matched = true;
  }
  if (!matched) throw new WebhookVerificationError('bad_signature', 'No matching webhook signature');

  let event: unknown;
  try {
    event = JSON.parse(typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody));
  } catch {
    event = undefined;
  }
  // An object, nothing else: arrays, strings, numbers and null are refused like malformed JSON.
  if (!event || typeof event !== 'object' || Array.isArray(event)) {
    throw new WebhookVerificationError('bad_body', 'Webhook body is not a JSON object');
  }
  return event as Event;
}
