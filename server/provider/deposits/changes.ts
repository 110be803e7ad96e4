// The deposit-change feed of one service instance (ProviderDeps.changes): every committed change of a deposit (its
// row, its history, a webhook of it put in the outbox), this copy's and, on PostgreSQL, every other copy's. Who
// listens: the read cache (drops the deposit's view) and the webhook dispatcher (wakes, as a change may have enqueued
// a webhook).
// - This copy's changes are announced after their transaction committed (`announce`), by the code that made them.
// - On PostgreSQL every copy also LISTENs (`listen`, on a connection of its own): the deposits' update trigger and the
//   outbox's insert trigger NOTIFY at commit (migration 010), so a switch on copy A drops copy B's cached view at once.
//   A NOTIFY in a rolled-back transaction is never sent; two with the same deposit in one transaction arrive as one.
// - `heardUpToNow` tells a reader when every change committed before it asked has been announced: a query on the
//   LISTEN connection is answered only after the notifications of every transaction committed before it (PostgreSQL
//   signals listeners during commit and sends a session its pending notifications before it reads the next query).
import pg from 'pg';
import type { Logger } from '../../common/log.js';
import { DEPOSIT_CHANGES_CHANNEL } from '../db/migrations/010_deposit_changes.js';
import type { ChangeFeed } from '../instance/change-feed.js';

/** Called with the public depositId of a deposit that changed; '' means "anything may have changed" (a missed span). */
export type DepositChangeListener = (depositId: string) => void;

const RECONNECT_MS = [100, 500, 1000, 5000];

export class DepositChangeFeed implements ChangeFeed {
  private readonly listeners = new Set<DepositChangeListener>();
  private stopListening?: () => Promise<void>;
  /** The LISTEN connection while it listens (none before, while it reconnects, or on SQLite). */
  private listening?: pg.Client;
  /** The callers of heardUpToNow waiting for the next round trip, and whether one is under way. */
  private waiting: Array<(heard: boolean) => void> = [];
  private asking = false;

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
   * Resolves true once every change committed (by any copy) before this call has been announced; false when this
   * copy cannot tell (it does not hear the other copies: not listening, or its connection is down). The callers of one
   * moment share one round trip; one who asks while a round trip is under way waits for the next, sent after its call.
   */
  heardUpToNow(): Promise<boolean> {
    if (!this.listening) return Promise.resolve(false);
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.ask();
    });
  }

  private ask(): void {
    if (this.asking || !this.waiting.length) return;
    this.asking = true;
    // The callers until the event loop's next turn join this round trip.
    setImmediate(() => {
      const client = this.listening;
      const batch = this.waiting;
      this.waiting = [];
      if (!client) return this.answer(batch, false);
      // An empty query: its answer comes after the notifications of every transaction committed before it was sent.
      client.query('').then(
        () => this.answer(batch, this.listening === client),
        () => this.answer(batch, false),
      );
    });
  }

  private answer(batch: Array<(heard: boolean) => void>, heard: boolean): void {
    this.asking = false;
    for (const resolve of batch) resolve(heard);
    this.ask();
  }

  /**
   * Hears every copy's changes from PostgreSQL (this one's too) until close(). The LISTEN holds a connection of its
   * own (a pooled one cannot); each time it listens (the first time, and after a dropped connection comes back),
   * announces '' (changes may have been missed before).
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
      const lost = () => {
        if (this.listening === c) this.listening = undefined;
      };
      c.on('error', (err) => {
        lost();
        logger.warn({ err: err.message }, 'deposit change feed connection failed');
      });
      c.on('end', () => {
        lost();
        if (!stopped && client === c) reconnect();
      });
      try {
        await c.connect();
        await c.query(`LISTEN ${DEPOSIT_CHANGES_CHANNEL}`);
        // What was kept before this connection listened may have missed changes (all of them, the first time).
        this.announce('');
        failures = 0;
        if (!stopped && client === c) this.listening = c;
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
      this.listening = undefined;
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
