import { createHash } from 'node:crypto';
import type { Context } from 'hono';
import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import { ApiError } from '../../common/errors.js';

/**
 * Auth rate limits (docs/design.md, "Accounts, login, OTP"): fixed windows counted in the database, so every copy of
 * the service shares them. Read from the environment once, when the routes are built:
 * KASIR_AUTH_RATE_WINDOW_SECONDS (900), KASIR_AUTH_RATE_PER_EMAIL (20), KASIR_AUTH_RATE_PER_ADDRESS (200),
 * KASIR_TRUST_PROXY=true to take the client address from X-Forwarded-For (only behind a proxy that sets it).
 */
export interface AuthRateLimits {
  windowSeconds: number;
  perEmail: number;
  perAddress: number;
  trustProxy: boolean;
}

const positive = (value: string | undefined, fallback: number) => {
  const n = Number(value);
  return value && Number.isInteger(n) && n > 0 ? n : fallback;
};

export function loadAuthRateLimits(env: NodeJS.ProcessEnv = process.env): AuthRateLimits {
  return {
    windowSeconds: positive(env.KASIR_AUTH_RATE_WINDOW_SECONDS, 900),
    perEmail: positive(env.KASIR_AUTH_RATE_PER_EMAIL, 20),
    perAddress: positive(env.KASIR_AUTH_RATE_PER_ADDRESS, 200),
    trustProxy: env.KASIR_TRUST_PROXY === 'true',
  };
}

/** The caller's network address: the socket's peer, or the first X-Forwarded-For hop when the proxy is trusted. */
export function clientAddress(c: Context, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = c.req.header('x-forwarded-for')?.split(',')[0]?.trim();
    if (forwarded) return forwarded.slice(0, 64);
  }
  const incoming = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming;
  return incoming?.socket?.remoteAddress ?? 'local';
}

/** Adds one hit to a counter and returns the count in the current window and when it ends. */
async function hit(
  db: Db,
  scope: string,
  subject: string,
  windowMs: number,
  nowMs: number,
): Promise<{ count: number; resetAt: number }> {
  const windowStart = Math.floor(nowMs / windowMs) * windowMs;
  const resetAt = windowStart + windowMs;
  // Hashed, so the table holds no email addresses or client addresses.
  const key = createHash('sha256').update(`${scope}\n${subject}\n${windowStart}`).digest('hex');
  const row = await db
    .insertInto('rate_limits')
    .values({ key, count: 1, reset_at: resetAt })
    .onConflict((oc) => oc.column('key').doUpdateSet({ count: sql`rate_limits.count + 1` }))
    .returning('count')
    .executeTakeFirstOrThrow();
  if (Math.random() < 0.01) await db.deleteFrom('rate_limits').where('reset_at', '<', nowMs).execute();
  return { count: Number(row.count), resetAt };
}

export class RateLimitError extends ApiError {
  constructor(readonly retryAfterSeconds: number) {
    super(429, `Too many attempts: try again in ${retryAfterSeconds} seconds`);
  }
}

/** Counts one attempt at `scope` against the email (when known) and the address; throws a 429 over either limit. */
export async function enforceAuthRateLimit(
  db: Db,
  limits: AuthRateLimits,
  scope: string,
  subjects: { email?: string; address: string },
  nowMs: number,
): Promise<void> {
  const windowMs = limits.windowSeconds * 1000;
  const checks = [
    hit(db, `${scope}:address`, subjects.address, windowMs, nowMs).then((r) => ({ ...r, limit: limits.perAddress })),
  ];
  if (subjects.email)
    checks.push(
      hit(db, `${scope}:email`, subjects.email, windowMs, nowMs).then((r) => ({ ...r, limit: limits.perEmail })),
    );
  const results = await Promise.all(checks);
  const over = results.filter((r) => r.count > r.limit);
  if (over.length) {
    const resetAt = Math.max(...over.map((r) => r.resetAt));
    throw new RateLimitError(Math.max(1, Math.ceil((resetAt - nowMs) / 1000)));
  }
}
