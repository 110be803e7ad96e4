// Standard Webhooks v1 (https://www.standardwebhooks.com): signing and verification, shared by the
// payment service (which sends) and the merchant backend (which receives). Neutral on purpose: it
// imports nothing from either side.
//
// The signature itself is the `standardwebhooks` library's (Webhook.sign), for sending and for checking.
// Its Webhook.verify is not used: it checks the timestamp against the system clock with a fixed
// 5-minute window, and the receiver's window is configurable (webhookToleranceSeconds) and its clock
// injectable. So this module reads the headers, checks the secret's format and the timestamp window,
// compares the library's signature with each `v1` one received in constant time, and keeps the replay
// guard; every refusal carries a WebhookVerificationReason.
//
//   webhook-id:        msg_...            (the same on every retry of one message; receivers dedupe on it)
//   webhook-timestamp: 1763773323         (Unix seconds of this attempt)
//   webhook-signature: v1,<base64 HMAC-SHA256(key, "id.timestamp.body")>  (space-separated list allowed)
//   secret:            whsec_<base64 key>
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

const WEBHOOK_SECRET_PREFIX = 'whsec_';
/** Default largest distance between webhook-timestamp and the receiver's clock. */
const DEFAULT_TOLERANCE_SECONDS = 5 * 60;

export type WebhookHeaders = {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
};

export type WebhookVerificationReason = 'missing_headers' | 'bad_secret' | 'bad_timestamp' | 'too_old' | 'too_new' | 'bad_signature' | 'bad_body' | 'replay';

/** Why a webhook was refused. A `replay` is a message already accepted: answer it with 2xx, do not process it again. */
export class WebhookVerificationError extends Error {
  constructor(readonly reason: WebhookVerificationReason, message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

/**
 * Remembers accepted webhook ids. `claim` returns true the first time it sees an id (and remembers it
 * until `expiresAtMs`), false for a replay. `release` forgets an id again, so a message whose processing
 * failed is accepted when the sender retries it. Back it by a database table or Redis when several
 * receivers share the work; `MemoryReplayGuard` serves one process.
 */
export interface ReplayGuard {
  claim(id: string, expiresAtMs: number): boolean | Promise<boolean>;
  release(id: string): void | Promise<void>;
}

/** An in-process ReplayGuard with a size bound (oldest ids are forgotten first). */
export class MemoryReplayGuard implements ReplayGuard {
  private readonly seen = new Map<string, number>();
  constructor(private readonly maxEntries = 100_000, private readonly now: () => number = Date.now) {}

  claim(id: string, expiresAtMs: number): boolean {
    const t = this.now();
    const until = this.seen.get(id);
    if (until !== undefined && until > t) return false;
    this.seen.delete(id);
    this.seen.set(id, expiresAtMs);
    if (this.seen.size > this.maxEntries) {
      for (const [key, exp] of this.seen) {
        if (this.seen.size <= this.maxEntries && exp > t) break;
        this.seen.delete(key);
      }
    }
    return true;
  }

  release(id: string): void {
    this.seen.delete(id);
  }
}

/** A fresh secret in the Standard Webhooks format: whsec_ + base64 of 24 random bytes. */
export function generateWebhookSecret(bytes = 24): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(bytes).toString('base64');
}

/** The HMAC key of a `whsec_...` secret (base64 after the prefix). Throws on an empty or malformed secret. */
function webhookSecretKey(secret: string): Buffer {
  const encoded = secret.startsWith(WEBHOOK_SECRET_PREFIX) ? secret.slice(WEBHOOK_SECRET_PREFIX.length) : secret;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) {
    throw new WebhookVerificationError('bad_secret', 'Webhook secret must be whsec_ followed by base64');
  }
  const key = Buffer.from(encoded, 'base64');
  if (key.length === 0) throw new WebhookVerificationError('bad_secret', 'Webhook secret is empty');
  return key;
}

/**
 * `v1,<base64 signature>` of one message, by the standardwebhooks library. `timestampSeconds` is Unix seconds.
 * The key is decoded here (the format checked as before: the library's decoder is stricter about padding); the
 * library reads bytes as UTF-8 text, which JSON bodies are.
 */
export function signWebhook(secret: string, id: string, timestampSeconds: number, body: string | Uint8Array): string {
  const payload = typeof body === 'string' || Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  return new Webhook(webhookSecretKey(secret), { format: 'raw' }).sign(id, new Date(timestampSeconds * 1000), payload);
}

/** The three headers a sender attaches to one delivery attempt. */
export function webhookHeaders(secret: string, id: string, body: string | Uint8Array, now: Date = new Date()): WebhookHeaders {
  const timestamp = Math.floor(now.getTime() / 1000);
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signWebhook(secret, id, timestamp, body) };
}

export interface VerifyOptions {
  /** Largest allowed distance between webhook-timestamp and now, in seconds (default 300). */
  toleranceSeconds?: number;
  /** The receiver's clock (default: the system clock). */
  now?: () => Date;
  /** When given, each webhook-id is accepted once; see ReplayGuard. */
  replayGuard?: ReplayGuard;
  /** How long the guard remembers an id, in seconds (default 3 days: longer than the sender's retry schedule). */
  dedupeSeconds?: number;
}

export interface VerifiedWebhook {
  id: string;
  timestamp: Date;
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
 * Checks a received webhook's headers and signature against the raw body exactly as received (never a
 * re-serialised object), synchronously: headers present, timestamp well-formed and within tolerance, one of the
 * `v1` signatures matches the library's (constant-time). Throws WebhookVerificationError; returns the id and timestamp.
 */
export function verifyWebhookSignature(secret: string, body: string | Uint8Array, headers: HeaderSource, options: Omit<VerifyOptions, 'replayGuard' | 'dedupeSeconds'> = {}): VerifiedWebhook {
  const id = header(headers, 'webhook-id');
  const timestampHeader = header(headers, 'webhook-timestamp');
  const signatureHeader = header(headers, 'webhook-signature');
  if (!id || !timestampHeader || !signatureHeader) {
    throw new WebhookVerificationError('missing_headers', 'Missing webhook-id, webhook-timestamp or webhook-signature header');
  }
  if (!/^\d{1,12}$/.test(timestampHeader)) {
    throw new WebhookVerificationError('bad_timestamp', 'webhook-timestamp must be Unix seconds');
  }
  const timestamp = Number(timestampHeader);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const nowSeconds = Math.floor((options.now?.() ?? new Date()).getTime() / 1000);
  if (nowSeconds - timestamp > tolerance) throw new WebhookVerificationError('too_old', 'webhook-timestamp is too old');
  if (timestamp - nowSeconds > tolerance) throw new WebhookVerificationError('too_new', 'webhook-timestamp is too far in the future');

  const expected = Buffer.from(signWebhook(secret, id, timestamp, body).slice(3), 'utf8');
  let matched = false;
  for (const candidate of signatureHeader.split(' ')) {
    const comma = candidate.indexOf(',');
    if (comma < 0 || candidate.slice(0, comma) !== 'v1') continue;
    const given = Buffer.from(candidate.slice(comma + 1), 'utf8');
    if (given.length === expected.length && timingSafeEqual(given, expected)) matched = true;
  }
  if (!matched) throw new WebhookVerificationError('bad_signature', 'No matching webhook signature');
  return { id, timestamp: new Date(timestamp * 1000) };
}

/**
 * verifyWebhookSignature, then, with a replayGuard, that the id is new (a `replay` error otherwise).
 * Throws WebhookVerificationError; returns the id and timestamp on success.
 */
export async function verifyWebhook(secret: string, body: string | Uint8Array, headers: HeaderSource, options: VerifyOptions = {}): Promise<VerifiedWebhook> {
  const verified = verifyWebhookSignature(secret, body, headers, options);
  if (options.replayGuard) {
    const nowMs = (options.now?.() ?? new Date()).getTime();
    const expiresAtMs = nowMs + (options.dedupeSeconds ?? 3 * 24 * 3600) * 1000;
    if (!(await options.replayGuard.claim(verified.id, expiresAtMs))) {
      throw new WebhookVerificationError('replay', `Webhook ${verified.id} was already accepted`);
    }
  }
  return verified;
}
