// Tables that let many copies of the service share one database (migration 004_processes): what a single process
// used to keep in memory or in its data dir. Conventions as in schema.ts.

/** Named values generated once and shared by every copy (the token signing key, the sandbox password). */
interface ServiceKeysTable {
  name: string;
  value: string;
  created_at: string;
}

export interface ProcessTables {
  service_keys: ServiceKeysTable;
}
