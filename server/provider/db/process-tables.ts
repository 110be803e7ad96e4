// Tables that let many copies of the service share one database (migration 004_processes): what a single process
// used to keep in memory or in its data dir. Conventions as in schema.ts.

/** Named values generated once and shared by every copy (the token signing key, the sandbox password). */
interface ServiceKeysTable {
  name: string;
  value: string;
  created_at: string;
}

/** A merchant's Idempotency-Key and what it answered (migration 014; server/provider/http/idempotency-store.ts). */
interface IdempotencyKeysTable {
  merchant_id: string;
  idempotency_key: string;
  /** SHA-256 of the method, path and body of the request that first used the key. */
  fingerprint: string;
  /** Who holds the key while its request runs (a fresh one per claim). */
  token: string;
  /** Epoch ms until which a running request holds the key; 0 once answered. */
  locked_until: number;
  /** The answer kept for replay; null while the request runs. */
  response_status: number | null;
  response_type: string | null;
  response_body: string | null;
  /** Epoch ms after which the key is forgotten (24 h after the answer). */
  expires_at: number;
  created_at: string;
}

export interface ProcessTables {
  service_keys: ServiceKeysTable;
  idempotency_keys: IdempotencyKeysTable;
}
