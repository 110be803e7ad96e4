// How a dispatcher learns that the outbox has a new row, within milliseconds and after its transaction committed.
// PostgreSQL: the outbox's insert trigger (migration 004) NOTIFYs at commit; every copy LISTENs on its own connection.
// SQLite (one process): enqueue calls the in-process listeners; the dispatcher's query that follows waits for the
// enqueuing transaction, since Kysely runs SQLite on one connection that a transaction holds until it ends.
import pg from 'pg';
import type { Logger } from '../../common/log.js';
import { OUTBOX_CHANNEL } from '../db/migrations/004_processes.js';

type EnqueuedListener = (depositId: string) => void;

const inProcess = new Set<EnqueuedListener>();

/** Announces a row written to the outbox (SQLite; on PostgreSQL the trigger does). */
export function announceEnqueued(depositId: string): void {
  for (const listener of inProcess) listener(depositId);
}

/** Calls `listener` for each row enqueued in this process (SQLite); returns what unsubscribes. */
export function onEnqueuedInProcess(listener: EnqueuedListener): () => void {
  inProcess.add(listener);
  return () => inProcess.delete(listener);
}

const RECONNECT_MS = [100, 500, 1000, 5000];

/**
 * LISTENs for the outbox's notifications on a connection of its own (a pooled one cannot hold a LISTEN), and
 * reconnects when it drops; after a reconnect `listener('')` says "look, something may have been missed".
 * Returns what stops listening.
 */
export function listenForEnqueued(databaseUrl: string, listener: EnqueuedListener, logger: Logger): () => Promise<void> {
  let client: pg.Client | undefined;
  let stopped = false;
  let failures = 0;
  let retry: NodeJS.Timeout | undefined;

  const connect = async () => {
    const c = new pg.Client({ connectionString: databaseUrl });
    client = c;
    c.on('notification', (n) => listener(n.payload ?? ''));
    c.on('error', (err) => logger.warn({ err: err.message }, 'webhook notification connection failed'));
    c.on('end', () => {
      if (!stopped && client === c) reconnect();
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${OUTBOX_CHANNEL}`);
      if (failures > 0) listener('');
      failures = 0;
    } catch (err) {
      logger.warn({ err: (err as Error).message }, 'cannot listen for webhook notifications; retrying');
      await c.end().catch(() => {});
      reconnect();
    }
  };
  const reconnect = () => {
    if (stopped || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      void connect();
    }, RECONNECT_MS[Math.min(failures++, RECONNECT_MS.length - 1)]);
  };
  void connect();

  return async () => {
    stopped = true;
    clearTimeout(retry);
    await client?.end().catch(() => {});
  };
}
