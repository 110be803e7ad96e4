import type { Transaction } from 'kysely';
import type { Database } from '../db/database.js';
import { randomToken } from '../db/ids.js';
import type { DEPOSIT_WEBHOOKS, DepositEventType } from './events.js';

/**
 * The body of a deposit webhook, as its schema in the OpenAPI document says (deposits/schemas.ts
 * depositWebhookSchema); `data` is the Deposit, as the caller gives it.
 */
export interface DepositWebhookPayload<Data = unknown> {
  type: DepositEventType;
  orderId: string;
  depositId: string;
  reference: string;
  status: (typeof DEPOSIT_WEBHOOKS)[DepositEventType]['status'];
  data: Data;
  timestamp: string;
}

/** Minimal view of a deposit the outbox needs; `data` is the full Deposit as the interface shows it. */
interface DepositEvent {
  type: DepositEventType;
  merchantId: string;
  depositId: string;
  reference: string | null;
  status: DepositWebhookPayload['status'];
  data: unknown;
}

/**
 * Writes a webhook to the outbox inside the caller's transaction, so the event exists if and only if
 * the change it reports was committed. The dispatchers are woken by the deposit's change (deps.changes: announced by
 * the caller after its commit, NOTIFYed by PostgreSQL to every copy) and deliver it within milliseconds (and again
 * after a restart, until a 2xx is recorded).
 */
export async function enqueueDepositWebhook(
  trx: Transaction<Database>,
  event: DepositEvent,
  now: Date,
): Promise<string> {
  return (await enqueueDepositWebhooks(trx, [event], now))[0];
}

/** Several webhooks at once (enqueueDepositWebhook's), in one statement: a batch of expiries' one round trip. */
export async function enqueueDepositWebhooks(
  trx: Transaction<Database>,
  events: readonly DepositEvent[],
  now: Date,
): Promise<string[]> {
  const timestamp = now.toISOString();
  const rows = events.map((event) => {
    const payload: DepositWebhookPayload = {
      type: event.type,
      orderId: event.depositId,
      depositId: event.depositId,
      reference: event.reference ?? '',
      status: event.status,
      data: event.data,
      timestamp,
    };
    return {
      id: `msg_${randomToken(18)}`,
      merchant_id: event.merchantId,
      event_type: event.type,
      deposit_id: event.depositId,
      payload: JSON.stringify(payload),
      status: 'pending' as const,
      next_attempt_at: now.getTime(),
      created_at: timestamp,
    };
  });
  if (rows.length) await trx.insertInto('webhook_deliveries').values(rows).execute();
  return rows.map((row) => row.id);
}
