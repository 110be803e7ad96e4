// The reasons a payment attempt fails and their history entries (docs/indonesian-payments.md): here, apart from
// attempts.ts, so that the Deposit's view reads the last failure without importing the state change.
import type { ActivityRow } from '../db/deposit-tables.js';

const FAILURE_REASONS = ['declined', 'insufficient_balance', 'timeout'] as const;
export type FailureReason = (typeof FAILURE_REASONS)[number];

/** The history entry of a failed attempt: its activity, and its description per reason. */
export const FAILED_ACTIVITY = 'Payment Failed';
const DESCRIPTIONS: Record<FailureReason, string> = {
  declined: 'Payment failed: declined',
  insufficient_balance: 'Payment failed: insufficient balance',
  timeout: 'Payment failed: not approved in time',
};
/** The history entry's description of a failed attempt for `reason`. */
export const failureDescription = (reason: FailureReason) => DESCRIPTIONS[reason];
const REASON_OF = new Map(
  Object.entries(DESCRIPTIONS).map(([reason, description]) => [description, reason as FailureReason]),
);

/** A deposit's last failed attempt, while nothing happened to it since (history sorted by seq). */
export function lastFailureOf(
  history: ReadonlyArray<Pick<ActivityRow, 'activity' | 'description' | 'updated_at'>>,
): { reason: FailureReason; failedAt: string } | undefined {
  const last = history.at(-1);
  const reason = last?.activity === FAILED_ACTIVITY ? REASON_OF.get(last.description) : undefined;
  return reason && { reason, failedAt: last!.updated_at };
}
