import type { Generated } from 'kysely';

// Column conventions, chosen so the same schema runs on SQLite and PostgreSQL:
// ids are text, timestamps are ISO 8601 UTC text (they sort as strings), booleans are 0/1 integers,
// money is decimal text (never a binary float). Generated<> marks a column with a database default (or identity)
// that an insert may leave out.

interface OrganizationsTable {
  id: string;
  name: string;
  created_at: string;
}

interface UsersTable {
  id: string;
  organization_id: string;
  name: string;
  email: string;
  password_hash: string;
  policy: string;
  role: string;
  is_active: Generated<number>;
  country: Generated<string>;
  country_code: Generated<string>;
  national_id: Generated<string>;
  legal_full_name: Generated<string>;
  created_at: string;
  updated_at: string;
}

/** API credentials and settings of one merchant account (one per organization). */
interface MerchantsTable {
  id: string;
  organization_id: string;
  user_id: string;
  client_id: string;
  client_secret: string;
  webhook_url: string | null;
  webhook_secret: string;
  checkout_enabled: Generated<number>;
  /**
   * Underpayment tolerance: a percentage of the amount due, decimal text (migration 006; docs/design.md, "Payments that
   * do not go as planned").
   */
  underpayment_tolerance: Generated<string>;
  created_at: string;
  updated_at: string;
}

/** Accepted signatures of non-GET requests, kept for the timestamp window to refuse replays. */
interface SignatureNoncesTable {
  signature: string;
  expires_at: number;
}

/** The webhook outbox: one row per event, written in the same transaction as the change it reports. */
interface WebhookDeliveriesTable {
  id: string;
  merchant_id: string;
  event_type: string;
  deposit_id: string;
  payload: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempt_count: Generated<number>;
  next_attempt_at: number;
  created_at: string;
  succeeded_at: string | null;
}

interface WebhookAttemptsTable {
  id: Generated<number>;
  delivery_id: string;
  attempted_at: string;
  response_status: number | null;
  error: string | null;
  duration_ms: number;
  /** Where the attempt went, without query or user info (migration 008; null on older rows). */
  url: string | null;
}

export interface CoreTables {
  organizations: OrganizationsTable;
  users: UsersTable;
  merchants: MerchantsTable;
  signature_nonces: SignatureNoncesTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
}
