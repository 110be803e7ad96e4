import { createHash, createHmac, randomInt, timingSafeEqual } from 'node:crypto';
import type { Db } from '../db/database.js';
import { randomToken } from '../db/ids.js';

/** docs/design.md, "Accounts, login, OTP": verificationToken and OTP lifetimes, and the wrong-OTP budget. */
export const VERIFICATION_TTL_MS = 10 * 60_000;
const MAX_OTP_ATTEMPTS = 5;

const sha256 = (value: string) => createHash('sha256').update(value, 'utf8').digest('hex');
/** The OTP is stored as an HMAC keyed by the token, which itself is stored only as a hash: a database dump reveals neither. */
const otpDigest = (token: string, otp: string) => createHmac('sha256', token).update(otp, 'utf8').digest('hex');

export const hashVerificationToken = sha256;

/** A 6-digit code from the CSPRNG, leading zeros kept. */
const newOtp = (): string => String(randomInt(0, 1_000_000)).padStart(6, '0');

export interface IssuedVerification {
  verificationToken: string;
  otp: string;
}

/** Creates a verificationToken bound to one fresh OTP, valid for 10 minutes. Only hashes are stored. */
export async function issueVerification(
  db: Db,
  userId: string,
  purpose: 'register' | 'login',
  now: Date,
): Promise<IssuedVerification> {
  const verificationToken = randomToken(32);
  const otp = newOtp();
  await db
    .insertInto('verification_tokens')
    .values({
      token_hash: sha256(verificationToken),
      user_id: userId,
      purpose,
      otp_hash: otpDigest(verificationToken, otp),
      expires_at: now.getTime() + VERIFICATION_TTL_MS,
      failed_attempts: 0,
      consumed_at: null,
      created_at: now.toISOString(),
    })
    .execute();
  // Expired rows are of no use to anyone; drop them now and then.
  if (Math.random() < 0.02)
    await db
      .deleteFrom('verification_tokens')
      .where('expires_at', '<', now.getTime() - VERIFICATION_TTL_MS)
      .execute();
  return { verificationToken, otp };
}

/** A token that cannot be verified: the same shape as a real one (used where a real one must not be issued). */
export const decoyVerificationToken = (): string => randomToken(32);

export type VerifyOutcome =
  | { ok: true; userId: string; purpose: 'register' | 'login' }
  | { ok: false; reason: 'invalid' }
  | { ok: false; reason: 'wrong-otp'; attemptsLeft: number };

/**
 * Checks an OTP against its token. A right code consumes the token (once: a compare-and-set, so two
 * concurrent verifications cannot both succeed). A wrong code counts; the fifth burns the token.
 */
export async function verifyOtp(db: Db, verificationToken: string, otp: string, now: Date): Promise<VerifyOutcome> {
  const tokenHash = sha256(verificationToken);
  const row = await db
    .selectFrom('verification_tokens')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst();
  const nowMs = now.getTime();
  if (!row || row.consumed_at !== null || Number(row.expires_at) <= nowMs || row.failed_attempts >= MAX_OTP_ATTEMPTS) {
    return { ok: false, reason: 'invalid' };
  }
  const given = Buffer.from(otpDigest(verificationToken, otp), 'utf8');
  const expected = Buffer.from(row.otp_hash, 'utf8');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    const updated = await db
      .updateTable('verification_tokens')
      .set((eb) => ({ failed_attempts: eb('failed_attempts', '+', 1) }))
      .where('token_hash', '=', tokenHash)
      .where('consumed_at', 'is', null)
      .returning('failed_attempts')
      .executeTakeFirst();
    const failed = updated?.failed_attempts ?? MAX_OTP_ATTEMPTS;
    if (failed >= MAX_OTP_ATTEMPTS) {
      await db
        .updateTable('verification_tokens')
        .set({ consumed_at: now.toISOString() })
        .where('token_hash', '=', tokenHash)
        .where('consumed_at', 'is', null)
        .execute();
    }
    return { ok: false, reason: 'wrong-otp', attemptsLeft: Math.max(0, MAX_OTP_ATTEMPTS - failed) };
  }
  const consumed = await db
    .updateTable('verification_tokens')
    .set({ consumed_at: now.toISOString() })
    .where('token_hash', '=', tokenHash)
    .where('consumed_at', 'is', null)
    .where('failed_attempts', '<', MAX_OTP_ATTEMPTS)
    .where('expires_at', '>', nowMs)
    .executeTakeFirst();
  if (Number(consumed.numUpdatedRows) !== 1) return { ok: false, reason: 'invalid' };
  return { ok: true, userId: row.user_id, purpose: row.purpose };
}
