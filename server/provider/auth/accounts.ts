import { randomBytes } from 'node:crypto';
import type { Db } from '../db/database.js';
import type { ProviderDeps } from '../instance/deps.js';
import { ApiError } from '../../common/errors.js';
import { insertMerchant } from '../accounts/merchants.js';
import { newRecordId } from '../db/ids.js';
import { accountExistsMail, otpMail } from '../mail/mailer.js';
import { hashPassword, verifyPassword } from './passwords.js';
import { decoyVerificationToken, issueVerification, VERIFICATION_TTL_MS, verifyOtp } from './verification.js';

const LOGIN_FAILED = 'Invalid email or password';
const OTP_MINUTES = VERIFICATION_TTL_MS / 60_000;

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

/**
 * A hash of a random password at the service's cost, checked against when the email is unknown, so a failed login
 * costs one scrypt whether or not the account exists. Made once per service, on first use (deps.caches.dummyHash).
 */
export function dummyHash(deps: ProviderDeps): Promise<string> {
  return (deps.caches.dummyHash ??= hashPassword(randomBytes(16).toString('base64url'), deps.config.scryptN));
}

export interface RegisterInput {
  email: string;
  password: string;
  fullName: string;
  nationalID?: string;
  country?: string;
  countryCode?: string;
}

/**
 * Registers an inactive user (with its organization and merchant account) and mails an OTP; verifying it
 * activates the user. An email already taken gets the same answer, a token that verifies nothing, and a
 * notice to the owner; both paths cost one scrypt hash and one mail.
 */
export async function register(deps: ProviderDeps, input: RegisterInput): Promise<string> {
  const { db, config } = deps;
  const email = normalizeEmail(input.email);
  const passwordHash = await hashPassword(input.password, config.scryptN);
  const { mailer } = deps;
  const now = deps.now();
  const iso = now.toISOString();

  const existing = await db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst();
  if (existing) {
    await mailer.send(accountExistsMail(email));
    return decoyVerificationToken();
  }
  const orgId = newRecordId();
  const userId = newRecordId();
  try {
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('organizations').values({ id: orgId, name: input.fullName, created_at: iso }).execute();
      await trx
        .insertInto('users')
        .values({
          id: userId,
          organization_id: orgId,
          name: input.fullName,
          email,
          password_hash: passwordHash,
          policy: 'merchant-admin',
          role: 'admin',
          is_active: 0,
          country: input.country ?? '',
          country_code: input.countryCode ?? '',
          national_id: input.nationalID ?? '',
          legal_full_name: input.fullName,
          created_at: iso,
          updated_at: iso,
        })
        .execute();
      await insertMerchant(trx, { organizationId: orgId, userId, webhookUrl: null, checkoutEnabled: false, now: iso });
    });
  } catch (err) {
    // Lost a race for the same email: answer exactly as for a taken email.
    if (err instanceof Error && /unique/i.test(err.message)) {
      await mailer.send(accountExistsMail(email));
      return decoyVerificationToken();
    }
    throw err;
  }
  const { verificationToken, otp } = await issueVerification(db, userId, 'register', now);
  await mailer.send(otpMail(email, otp, 'register', OTP_MINUTES));
  return verificationToken;
}

/** Checks email and password and mails an OTP. Any failure is the same 401, after the same scrypt work. */
export async function login(deps: ProviderDeps, emailInput: string, password: string): Promise<string> {
  const { db } = deps;
  const email = normalizeEmail(emailInput);
  const user = await db
    .selectFrom('users')
    .select(['id', 'password_hash'])
    .where('email', '=', email)
    .executeTakeFirst();
  const ok = await verifyPassword(password, user?.password_hash ?? (await dummyHash(deps)));
  if (!user || !ok) throw new ApiError(401, LOGIN_FAILED);
  const { verificationToken, otp } = await issueVerification(db, user.id, 'login', deps.now());
  await deps.mailer.send(otpMail(email, otp, 'login', OTP_MINUTES));
  return verificationToken;
}

/** Email of the user a verificationToken belongs to (for the per-email rate limit), if the token exists. */
export async function emailOfToken(db: Db, tokenHash: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('verification_tokens')
    .innerJoin('users', 'users.id', 'verification_tokens.user_id')
    .select('users.email')
    .where('verification_tokens.token_hash', '=', tokenHash)
    .executeTakeFirst();
  return row?.email;
}

/** Verifies the OTP and returns the user id, activating a freshly registered user. */
export async function verifyLogin(deps: ProviderDeps, verificationToken: string, otp: string): Promise<string> {
  const now = deps.now();
  const outcome = await verifyOtp(deps.db, verificationToken, otp, now);
  if (!outcome.ok) {
    if (outcome.reason === 'wrong-otp') {
      throw new ApiError(
        401,
        outcome.attemptsLeft > 0
          ? `Invalid OTP: ${outcome.attemptsLeft} attempt${outcome.attemptsLeft === 1 ? '' : 's'} left`
          : 'Invalid OTP: too many attempts, log in again for a new code',
      );
    }
    throw new ApiError(401, 'Invalid or expired verification token: log in again for a new code');
  }
  await deps.db
    .updateTable('users')
    .set({ is_active: 1, updated_at: now.toISOString() })
    .where('id', '=', outcome.userId)
    .where('is_active', '=', 0)
    .execute();
  return outcome.userId;
}

/** The User as verify-login returns it. `otp_code` is present but never a live code; `credentials` is empty. */
export async function userView(deps: ProviderDeps, userId: string) {
  const row = await deps.db
    .selectFrom('users')
    .innerJoin('organizations', 'organizations.id', 'users.organization_id')
    .selectAll('users')
    .select('organizations.name as org_name')
    .where('users.id', '=', userId)
    .executeTakeFirstOrThrow();
  const invitationExpires = new Date(Date.parse(row.created_at) + 7 * 24 * 3600_000).toISOString();
  return {
    id: row.id,
    name: row.name,
    policy: row.policy,
    email: row.email,
    organizationId: { _id: row.organization_id, orgName: row.org_name },
    role: row.role,
    is_active: row.is_active === 1,
    invitation_date: row.created_at,
    invitation_expiration_date: invitationExpires,
    iskyc: false,
    kyc_url: `${deps.config.baseUrl}/dashboard#kyc`,
    country: row.country,
    countryCode: row.country_code,
    legalFullName: row.legal_full_name,
    providerId: `kasir-sandbox-${row.id}`,
    otp_code: '',
    credentials: {},
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
