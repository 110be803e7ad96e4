// Webhooks while requests hold the service's database. Under a stream of completions the service
// cannot take, every connection of its pool is held by a request or waited for by many; the dispatcher (PostgreSQL)
// has a pool of its own, so a webhook still leaves within milliseconds of its commit instead of queueing behind the
// requests (before: the queue's length, seconds). SQLite has one connection shared by design: skipped there.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { openDatabase } from '../../server/provider/db/database';
import { engineOf } from '../../server/provider/db/engine';
import { startWebhookDispatcher } from '../../server/provider/webhooks/dispatcher';
import { enqueueDepositWebhook } from '../../server/provider/webhooks/outbox';
import { createTestProvider, type TestProvider } from '../support/provider';

/** How many connections the service's pool has (database.ts: poolSize default). */
const SERVICE_POOL = 10;
const HOLD_MS = 4000;

describe('webhooks while requests hold every connection of the service pool', () => {
  let p: TestProvider;
  before(async () => {
    p = await createTestProvider();
  });
  after(async () => {
    await p.close();
  });

  it('are delivered at once, not after the requests let go', async (t) => {
    if (engineOf(p.deps.db) !== 'postgres') return t.skip('SQLite: one connection, shared by design');
    const arrivals: number[] = [];
    const receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        arrivals.push(Date.now());
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const merchant = await p.deps.db
      .selectFrom('merchants')
      .select('id')
      .where('client_id', '=', p.creds.clientId)
      .executeTakeFirstOrThrow();
    await p.deps.db
      .updateTable('merchants')
      .set({ webhook_url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook` })
      .where('id', '=', merchant.id)
      .execute();
    const stop = startWebhookDispatcher(p.deps, { pollIntervalMs: 60_000, timeoutMs: 2000 });
    // The test's own writes go through a handle of its own: the service's pool is about to be full.
    const own = await openDatabase({
      dataDir: p.deps.config.dataDir,
      databaseUrl: p.deps.config.databaseUrl,
      poolSize: 1,
    });
    let release!: () => void;
    const letGo = new Promise<void>((resolve) => {
      release = resolve;
    });
    const holders: Array<Promise<unknown>> = [];
    try {
      await new Promise((resolve) => setTimeout(resolve, 300)); // the dispatcher's first look found nothing
      for (let i = 0; i < SERVICE_POOL; i++) {
        holders.push(
          p.deps.db.transaction().execute(async (trx) => {
            await trx.selectFrom('merchants').select('id').limit(1).execute();
            await Promise.race([letGo, new Promise((resolve) => setTimeout(resolve, HOLD_MS))]);
          }),
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 100)); // every connection is held now
      const depositId = crypto.randomUUID();
      await own.transaction().execute((trx) =>
        enqueueDepositWebhook(
          trx,
          {
            type: 'deposit.completed',
            merchantId: merchant.id,
            depositId,
            reference: null,
            status: 'completed',
            data: { depositId },
          },
          p.deps.now(),
        ),
      );
      const committed = Date.now();
      p.deps.changes.announce(depositId);
      for (let waited = 0; arrivals.length === 0 && waited < HOLD_MS + 2000; waited += 10)
        await new Promise((resolve) => setTimeout(resolve, 10));
      assert.equal(arrivals.length, 1, 'the webhook arrived');
      assert.ok(
        arrivals[0]! - committed < 1000,
        `delivered ${arrivals[0]! - committed} ms after its commit, the service pool held for ${HOLD_MS} ms`,
      );
    } finally {
      release();
      await Promise.all(holders);
      await stop();
      await own.destroy();
      receiver.closeAllConnections();
      receiver.close();
    }
  });
});
