// Tables of convert-estimation quotes and bank-transfer unique codes (migration 005_payments). Conventions as in schema.ts.

export interface PaymentTables {}
