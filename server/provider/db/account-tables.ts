// Tables of login verification, the sandbox mailbox, rate limits and recipients (migration 003_accounts).
// Conventions as in schema.ts: text ids, ISO 8601 UTC text timestamps, epoch-ms bigints for deadlines.
import type { Generated } from 'kysely';

/** One pending login or registration: a verificationToken bound to one OTP. Only hashes are stored. */
interface VerificationTokensTable {
  /** SHA-256 (hex) of the verificationToken handed to the client. */
  token_hash: string;
  user_id: string;
  purpose: 'register' | 'login';
  /** HMAC-SHA256 (hex) of the 6-digit OTP, keyed by the token itself. */
  otp_hash: string;
  /** Epoch ms after which neither token nor OTP is accepted. */
  expires_at: number;
  /** Wrong OTPs so far; the fifth burns the token. */
  failed_attempts: Generated<number>;
  /** Set once: when the OTP was accepted or the token burnt. */
  consumed_at: string | null;
  created_at: string;
}

/** Mail the sandbox would have sent (when SMTP_URL is not set): readable at GET /sandbox/mailbox. */
interface SandboxMailboxTable {
  id: string;
  to_email: string;
  subject: string;
  body: string;
  /** The OTP the message carries, if any (sandbox convenience for tests and the CLI). */
  code: string | null;
  created_at: string;
}

/** Fixed-window counters of the auth rate limits. The key is a SHA-256 of scope, subject and window. */
interface RateLimitsTable {
  key: string;
  count: number;
  /** Epoch ms at which this window ends (and the row may be deleted). */
  reset_at: number;
}

export interface RecipientsTable {
  id: string;
  organization_id: string;
  user_id: string;
  name: string;
  recipient_type: string;
  email: string;
  address: string;
  city: string;
  post_code: string;
  reference: string;
  created_at: string;
  updated_at: string;
}

/** How many recipients an organization has (migration 010): kept by triggers, read for the unfiltered list's totalDocs. */
interface RecipientCountsTable {
  organization_id: string;
  count: number;
}

export interface RecipientBanksTable {
  id: string;
  recipient_id: string;
  position: number;
  account_name: string;
  bank_name: string;
  /** Text, always: account numbers keep their leading zeros. */
  account_number: string;
  payment_code: string;
  currency: string;
  country: string;
  ach_number: string;
  fedwire_number: string;
  iban_number: string;
  ifsc: string;
  account_type: string;
}

/** Manual re-sends from the dashboard: which delivery a new outbox row repeats. */
interface WebhookResendsTable {
  delivery_id: string;
  original_delivery_id: string;
  created_at: string;
}

export interface AccountTables {
  verification_tokens: VerificationTokensTable;
  sandbox_mailbox: SandboxMailboxTable;
  rate_limits: RateLimitsTable;
  recipients: RecipientsTable;
  recipient_counts: RecipientCountsTable;
  recipient_banks: RecipientBanksTable;
  webhook_resends: WebhookResendsTable;
}
