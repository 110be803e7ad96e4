// The deposit-change feed of one service instance (ProviderDeps.changes): every committed change of a deposit (its
// row, its history, a webhook of it put in the outbox), this copy's and, on PostgreSQL, every other copy's. Who
// listens: the read cache (drops the deposit's view) and the webhook dispatcher (wakes, as a change may have enqueued
// a webhook).
// - This copy's changes are announced after their transaction committed (`announce`), by the code that made them.
// - On PostgreSQL every copy also LISTENs (`listen`, on a connection of its own): the deposits' update trigger and the
//   outbox's insert trigger NOTIFY at commit (migration 010), so a switch on copy A drops copy B's cached view at once.
//   A NOTIFY in a rolled-back transaction is never sent; two with the same deposit in one transaction arrive as one.
import pg from 'pg';
import type { Logger } from '../../common/log.js';
import { DEPOSIT_CHANGES_CHANNEL } from '../db/migrations/010_deposit_changes.js';

/** Called with the public depositId of a deposit that changed; '' means "anything may have changed" (a missed span). */
export type DepositChangeListener = (depositId: string) => void;

const RECONNECT_MS = [100, 500, 1000, 5000];

export class DepositChangeFeed {
  private readonly listeners = new Set<DepositChangeListener>();
  private stopListening?: () => Promise<void>;

  /** Calls `listener` for every change from now on; returns what unsubscribes. */
  on(listener: DepositChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Tells the listeners that `depositId` changed (call it once the change committed, or when it may have). */
  announce(depositId: string): void {
    for (const listener of this.listeners) listener(depositId);
  }

  /**
   * Hears every copy's changes from PostgreSQL (this one's too) until close(). The LISTEN holds a connection of its
   * own (a pooled one cannot); after a dropped connection comes back, announces '' (changes may have been missed).
   */
  listen(databaseUrl: string, logger: Logger): void {
    if (this.stopListening) return;
    let client: pg.Client | undefined;
    let stopped = false;
    let failures = 0;
    let retry: NodeJS.Timeout | undefined;
    const connect = async () => {
      const c = new pg.Client({ connectionString: databaseUrl });
      client = c;
      c.on('notification', (n) => this.announce(n.payload ?? ''));
      c.on('error', (err) => logger.warn({ err: err.message }, 'deposit change feed connection failed'));
      c.on('end', () => {
        if (!stopped && client === c) reconnect();
      });
      try {
        await c.connect();
        await c.query(`LISTEN ${DEPOSIT_CHANGES_CHANNEL}`);
        if (failures > 0) this.announce('');
        failures = 0;
      } catch (err) {
        logger.warn({ err: (err as Error).message }, 'cannot listen for deposit changes; retrying');
        await c.end().catch(() => {});
        reconnect();
      }
    };
    const reconnect = () => {
      if (stopped || retry) return;
      retry = setTimeout(
        () => {
          retry = undefined;
          void connect();
        },
        RECONNECT_MS[Math.min(failures++, RECONNECT_MS.length - 1)],
      );
    };
    void connect();
    this.stopListening = async () => {
      stopped = true;
      clearTimeout(retry);
      await client?.end().catch(() => {});
    };
  }

  /** Stops hearing other copies (this copy's announcements still reach the listeners). */
  async close(): Promise<void> {
    const stop = this.stopListening;
    this.stopListening = undefined;
    await stop?.();
  }
}
