import type { Migration } from 'kysely';
import * as core from './001_core.js';
import * as deposits from './002_deposits.js';
import * as accounts from './003_accounts.js';
import * as processes from './004_processes.js';
import * as payments from './005_payments.js';
import * as partialPayments from './006_partial_payments.js';
import * as depositVersions from './007_deposit_versions.js';
import * as attemptUrl from './008_attempt_url.js';
import * as listIndexes from './009_list_indexes.js';
import * as depositChanges from './010_deposit_changes.js';
import * as recipientCounts from './011_recipient_counts.js';
import * as statementCounts from './012_statement_counts.js';
import * as paymentLedger from './013_payment_ledger.js';
import * as idempotencyKeys from './014_idempotency_keys.js';
import * as feePolicy from './015_fee_policy.js';

/** Every migration, in order. Kysely applies the ones a database has not seen yet, on start. */
export const migrations: Record<string, Migration> = {
  '001_core': core,
  '002_deposits': deposits,
  '003_accounts': accounts,
  '004_processes': processes,
  '005_payments': payments,
  '006_partial_payments': partialPayments,
  '007_deposit_versions': depositVersions,
  '008_attempt_url': attemptUrl,
  '009_list_indexes': listIndexes,
  '010_deposit_changes': depositChanges,
  '011_recipient_counts': recipientCounts,
  '012_statement_counts': statementCounts,
  '013_payment_ledger': paymentLedger,
  '014_idempotency_keys': idempotencyKeys,
  '015_fee_policy': feePolicy,
};
