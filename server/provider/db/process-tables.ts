// Tables that let many copies of the service share one database (migration 004_processes): what a single process
// used to keep in memory or in its data dir. Conventions as in schema.ts.

export interface ProcessTables {}
