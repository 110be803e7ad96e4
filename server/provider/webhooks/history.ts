// A merchant's recent webhook deliveries and attempts, as the dashboard and the sandbox's `webhooks` show them
// (the account itself, its secrets and settings: accounts/merchants.ts).
import type { Db } from '../db/database.js';
import { loggableUrl } from './attempt-log.js';

/** The merchant's most recent deliveries, newest first, each with its attempts in order. */
export async function recentDeliveries(db: Db, merchantId: string, limit: number) {
  const deliveries = await db
    .selectFrom('webhook_deliveries')
    .leftJoin('webhook_resends', 'webhook_resends.delivery_id', 'webhook_deliveries.id')
    .select([
      'webhook_deliveries.id',
      'webhook_deliveries.event_type',
      'webhook_deliveries.deposit_id',
      'webhook_deliveries.status',
      'webhook_deliveries.attempt_count',
      'webhook_deliveries.next_attempt_at',
      'webhook_deliveries.created_at',
      'webhook_deliveries.succeeded_at',
      'webhook_resends.original_delivery_id',
    ])
    .where('webhook_deliveries.merchant_id', '=', merchantId)
    .orderBy('webhook_deliveries.created_at', 'desc')
    .orderBy('webhook_deliveries.id', 'desc')
    .limit(limit)
    .execute();
  const attempts = deliveries.length
    ? await db
        .selectFrom('webhook_attempts')
        .selectAll()
        .where(
          'delivery_id',
          'in',
          deliveries.map((d) => d.id),
        )
        .orderBy('id')
        .execute()
    : [];
  return deliveries.map((d) => ({
    id: d.id,
    eventType: d.event_type,
    depositId: d.deposit_id,
    status: d.status,
    attemptCount: d.attempt_count,
    nextAttemptAt: d.status === 'pending' ? new Date(Number(d.next_attempt_at)).toISOString() : null,
    createdAt: d.created_at,
    succeededAt: d.succeeded_at,
    resendOf: d.original_delivery_id ?? null,
    attempts: attempts
      .filter((a) => a.delivery_id === d.id)
      .map((a) => ({
        attemptedAt: a.attempted_at,
        responseStatus: a.response_status,
        error: a.error,
        durationMs: a.duration_ms,
      })),
  }));
}

/** One webhook delivery attempt as the sandbox's `webhooks` command and startSandbox's `webhooks()` show it. */
export interface WebhookAttempt {
  /** Grows with every attempt: a follower asks for those after the last it saw. */
  id: number;
  time: string;
  event: string;
  depositId: string;
  /** Where it went, without query or user info (attempts from before migration 008: the merchant's webhook URL now). */
  url: string | null;
  /** The receiver's HTTP status, or null when it did not answer (see error). */
  status: number | null;
  /** null when the receiver took it (2xx); else why not. */
  error: string | null;
  durationMs: number;
  deliveryId: string;
}

// Joins merchants (owned by accounts/merchants.ts) for the URL of attempts logged before migration 008: a separate
// query there would cost a second round trip per page of attempts.
/** The merchant's webhook attempts, newest first: the last `limit`, or those after attempt `after`, of some deposits or all. */
export async function recentAttempts(
  db: Db,
  merchantId: string,
  query: { limit: number; after?: number; depositIds?: string[] },
): Promise<WebhookAttempt[]> {
  let q = db
    .selectFrom('webhook_attempts')
    .innerJoin('webhook_deliveries', 'webhook_deliveries.id', 'webhook_attempts.delivery_id')
    .innerJoin('merchants', 'merchants.id', 'webhook_deliveries.merchant_id')
    .select([
      'webhook_attempts.id',
      'webhook_attempts.attempted_at',
      'webhook_attempts.response_status',
      'webhook_attempts.error',
      'webhook_attempts.duration_ms',
      'webhook_deliveries.id as delivery_id',
      'webhook_deliveries.event_type',
      'webhook_deliveries.deposit_id',
      'merchants.webhook_url',
      'webhook_attempts.url',
    ])
    .where('webhook_deliveries.merchant_id', '=', merchantId);
  if (query.after !== undefined) q = q.where('webhook_attempts.id', '>', query.after);
  if (query.depositIds !== undefined) {
    if (query.depositIds.length === 0) return [];
    q = q.where('webhook_deliveries.deposit_id', 'in', query.depositIds);
  }
  const rows = await q.orderBy('webhook_attempts.id', 'desc').limit(query.limit).execute();
  return rows.map((r) => ({
    id: Number(r.id),
    time: r.attempted_at,
    event: r.event_type,
    depositId: r.deposit_id,
    url: r.url ?? (r.webhook_url && loggableUrl(r.webhook_url)),
    status: r.response_status,
    error: r.error,
    durationMs: r.duration_ms,
    deliveryId: r.delivery_id,
  }));
}

/** The id of the last webhook enqueued for a deposit of the merchant, if any. */
export async function lastDeliveryOf(db: Db, merchantId: string, depositId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('merchant_id', '=', merchantId)
    .where('deposit_id', '=', depositId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.id;
}
