// The sandbox's Idempotency-Key store: one row per merchant and key in the database (migration 014), so every copy
// of the service on one database sees the same keys. The middleware itself is server/common/idempotency.ts.
import { randomUUID } from 'node:crypto';
import type { IdempotencyClaim, IdempotencyStore, IdempotentAnswer } from '../../common/idempotency.js';
import type { ProviderDeps } from '../instance/deps.js';

/** How often a copy deletes the keys past their lifetime (each copy does; a delete of nothing costs one index probe). */
const SWEEP_EVERY_MS = 60_000;

export function databaseIdempotencyStore(deps: Pick<ProviderDeps, 'db' | 'now'>): IdempotencyStore {
  const { db } = deps;
  let lastSweep = 0;
  const sweep = (now: number) => {
    if (now - lastSweep < SWEEP_EVERY_MS) return;
    lastSweep = now;
    db.deleteFrom('idempotency_keys')
      .where('expires_at', '<=', now)
      .execute()
      .catch(() => {
        lastSweep = 0;
      });
  };
  const row = (scope: string, key: string) =>
    db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('merchant_id', '=', scope)
      .where('idempotency_key', '=', key)
      .executeTakeFirst();

  return {
    async claim(scope, key, fingerprint, { leaseMs, ttlMs }): Promise<IdempotencyClaim> {
      const now = deps.now().getTime();
      sweep(now);
      const token = randomUUID();
      const fresh = {
        fingerprint,
        token,
        locked_until: now + leaseMs,
        response_status: null,
        response_type: null,
        response_body: null,
        expires_at: now + ttlMs,
      };
      // A few rounds at most: each lost race means another request took or answered the key meanwhile.
      for (let round = 0; round < 5; round += 1) {
        const inserted = await db
          .insertInto('idempotency_keys')
          .values({ merchant_id: scope, idempotency_key: key, created_at: new Date(now).toISOString(), ...fresh })
          .onConflict((oc) => oc.columns(['merchant_id', 'idempotency_key']).doNothing())
          .executeTakeFirst();
        if (inserted.numInsertedOrUpdatedRows) return { state: 'claimed', token };
        const held = await row(scope, key);
        if (!held) continue; // swept between the two statements
        const expired = Number(held.expires_at) <= now;
        if (!expired) {
          if (held.fingerprint !== fingerprint) return { state: 'mismatch' };
          if (held.response_status !== null) {
            return {
              state: 'replay',
              answer: {
                status: held.response_status,
                contentType: held.response_type ?? undefined,
                body: held.response_body ?? '',
              },
            };
          }
          if (Number(held.locked_until) > now) return { state: 'in-flight' };
        }
        // Forgotten (past its lifetime), or held by a request that never finished (its copy died): taken over, unless
        // another request took it first (then the next round sees what that one did).
        const taken = await db
          .updateTable('idempotency_keys')
          .set(fresh)
          .where('merchant_id', '=', scope)
          .where('idempotency_key', '=', key)
          .where('token', '=', held.token)
          .executeTakeFirst();
        if (Number(taken.numUpdatedRows)) return { state: 'claimed', token };
      }
      return { state: 'in-flight' };
    },

    async save(scope, key, token, answer: IdempotentAnswer, ttlMs) {
      await db
        .updateTable('idempotency_keys')
        .set({
          response_status: answer.status,
          response_type: answer.contentType ?? null,
          response_body: answer.body,
          locked_until: 0,
          expires_at: deps.now().getTime() + ttlMs,
        })
        .where('merchant_id', '=', scope)
        .where('idempotency_key', '=', key)
        .where('token', '=', token)
        .execute();
    },

    async release(scope, key, token) {
      await db
        .deleteFrom('idempotency_keys')
        .where('merchant_id', '=', scope)
        .where('idempotency_key', '=', key)
        .where('token', '=', token)
        .execute();
    },
  };
}
