import type { ProviderDeps } from '../instance/deps.js';
import { randomToken } from '../db/ids.js';

/**
 * Sends a delivery again, on request from the dashboard: a new outbox row with the same payload and
 * a new webhook-id (the original keeps its history; a succeeded row is never sent twice by the dispatcher).
 * Returns the new delivery id, or undefined when the delivery is not the merchant's. The deposit's change feed wakes
 * the dispatchers (this copy's here; PostgreSQL NOTIFYs every copy at commit).
 */
export async function resendDelivery(
  deps: ProviderDeps,
  merchantId: string,
  deliveryId: string,
): Promise<string | undefined> {
  const now = deps.now();
  const resent = await deps.db.transaction().execute(async (trx) => {
    const original = await trx
      .selectFrom('webhook_deliveries')
      .select(['id', 'merchant_id', 'event_type', 'deposit_id', 'payload'])
      .where('id', '=', deliveryId)
      .where('merchant_id', '=', merchantId)
      .executeTakeFirst();
    if (!original) return undefined;
    const id = `msg_${randomToken(18)}`;
    await trx
      .insertInto('webhook_deliveries')
      .values({
        id,
        merchant_id: merchantId,
        event_type: original.event_type,
        deposit_id: original.deposit_id,
        payload: original.payload,
        status: 'pending',
        attempt_count: 0,
        next_attempt_at: now.getTime(),
        created_at: now.toISOString(),
        succeeded_at: null,
      })
      .execute();
    await trx
      .insertInto('webhook_resends')
      .values({ delivery_id: id, original_delivery_id: original.id, created_at: now.toISOString() })
      .execute();
    return { id, depositId: original.deposit_id };
  });
  if (resent) deps.changes.announce(resent.depositId);
  return resent?.id;
}
