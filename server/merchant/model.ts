// The merchant backend's own model, at the bottom of its imports: who bears the fee, a deposit as the backend keeps
// it, and which of two reads of one deposit wins.
import type { WidgetDepositRecord } from '../common/widget-projection.js';

/** Who bears a method's fee (the widget's projection says it once). */
export type { FeesPaidBy } from '../common/widget-projection.js';

/** A deposit view before `serverTime` is stamped on it at answer time. */
export type StoredDeposit = WidgetDepositRecord;

/**
 * The statuses a deposit does not leave (but for a payment that arrives late, docs/design.md, "Payments that do not go
 * as planned").
 */
export const TERMINAL: ReadonlySet<string> = new Set(['completed', 'expired']);

/**
 * Whether `next` may replace `current`: a terminal status is final (only a newer terminal update, a payment that
 * arrived late, docs/design.md, "Payments that do not go as planned", replaces it), and a lower version never wins. The
 * version (the service's count of committed changes) orders them, not updatedAt: two racing switches commit in one
 * order and may carry times in the other.
 */
export function supersedes(current: StoredDeposit | null | undefined, next: StoredDeposit | null): boolean {
  if (!current) return true;
  if (!next) return false; // a deposit never disappears
  if (TERMINAL.has(current.status)) return TERMINAL.has(next.status) && (next.version ?? 0) > (current.version ?? 0);
  if (TERMINAL.has(next.status)) return true;
  return (next.version ?? 0) >= (current.version ?? 0); // ?? 0: an entry stored before versions existed
}
