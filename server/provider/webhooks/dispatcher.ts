import { webhookHeaders } from '../../common/standard-webhooks.js';
import { engineOf } from '../db/engine.js';
import type { ProviderDeps } from '../http/env.js';

/** DESIGN.md section 3: retries after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h (10 attempts in all). */
export const RETRY_SCHEDULE_MS: readonly number[] = [
  5_000, 5 * 60_000, 30 * 60_000, 2 * 3600_000, 5 * 3600_000, 10 * 3600_000, 14 * 3600_000, 20 * 3600_000, 24 * 3600_000,
];

export interface DispatcherOptions {
  /** How often due rows are looked for, in ms (default 1000). */
  pollIntervalMs?: number;
  /** Delay before retry n (n = 1..length); after the last one fails the delivery is marked failed. */
  scheduleMs?: readonly number[];
  /** Per-attempt timeout of the POST, in ms (default 10 s). */
  timeoutMs?: number;
  /** Most rows claimed per poll (default 25). */
  batchSize?: number;
  /** Most attempts in flight at once; a slow receiver never holds up the others (default 100). */
  concurrency?: number;
  /** The HTTP client (default: global fetch). */
  fetch?: typeof fetch;
  /** Called after every attempt (tests, metrics). Never given secrets. */
  onAttempt?: (attempt: AttemptRecord) => void;
}

interface AttemptRecord {
  deliveryId: string;
  attempt: number;
  ok: boolean;
  responseStatus: number | null;
  error: string | null;
  durationMs: number;
}

const MAX_ERROR_LENGTH = 300;

function describeError(err: unknown): string {
  if (err instanceof Error) {
    if (err.name === 'TimeoutError' || err.name === 'AbortError') return 'Timed out';
    const cause = (err as Error & { cause?: { code?: string; message?: string } }).cause;
    const detail = cause?.code ?? cause?.message;
    return (detail ? `${err.message}: ${detail}` : err.message).slice(0, MAX_ERROR_LENGTH);
  }
  return String(err).slice(0, MAX_ERROR_LENGTH);
}

/**
 * One webhook dispatcher. All state is in the database (webhook_deliveries, webhook_attempts), so any
 * number of dispatchers may run against one database and a restart resumes where the last one stopped:
 *
 * - A row is claimed by moving next_attempt_at past the attempt's timeout (a lease), atomically (see
 *   claimDue). Only one dispatcher wins a row; if it dies mid-attempt, the lease runs out and the row is
 *   tried again.
 * - The outcome and the attempt are written in one transaction. A success sets status = succeeded, and a
 *   succeeded row is never claimed again.
 * - Every attempt carries the same webhook-id and a fresh webhook-timestamp and signature.
 */
export class WebhookDispatcher {
  private readonly schedule: readonly number[];
  private readonly timeoutMs: number;
  private readonly batchSize: number;
  private readonly fetchFn: typeof fetch;
  private readonly stopController = new AbortController();

  constructor(private readonly deps: ProviderDeps, private readonly options: DispatcherOptions = {}) {
    this.schedule = options.scheduleMs ?? RETRY_SCHEDULE_MS;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.batchSize = options.batchSize ?? 25;
    this.fetchFn = options.fetch ?? fetch;
  }

  /** Claims and sends every due row (up to batchSize) and waits for the attempts. Returns how many were made. */
  async runOnce(): Promise<number> {
    const claimed = await this.claimDue(this.batchSize);
    await Promise.all(claimed.map(({ id, lease }) => this.attempt(id, lease)));
    return claimed.length;
  }

  /**
   * Claims up to `max` due rows, so that of several dispatchers exactly one wins each row. The claim moves
   * next_attempt_at past the attempt's timeout (the lease).
   *
   * PostgreSQL: one UPDATE over the due rows picked with FOR UPDATE SKIP LOCKED, so concurrent dispatchers
   * take disjoint rows without waiting on each other. SQLite: a compare-and-set per row (status = pending,
   * next_attempt_at = the value read).
   */
  async claimDue(max: number): Promise<Array<{ id: string; lease: number }>> {
    if (max <= 0) return [];
    const { db } = this.deps;
    const now = this.deps.now().getTime();
    const lease = now + this.timeoutMs + 30_000;
    if (engineOf(db) === 'postgres') {
      const rows = await db
        .updateTable('webhook_deliveries')
        .set({ next_attempt_at: lease })
        .where('id', 'in', (eb) => eb
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('status', '=', 'pending')
          .where('next_attempt_at', '<=', now)
          .orderBy('next_attempt_at')
          .limit(max)
          .forUpdate()
          .skipLocked())
        .where('status', '=', 'pending')
        .where('next_attempt_at', '<=', now)
        .returning('id')
        .execute();
      return rows.map(({ id }) => ({ id, lease }));
    }
    const due = await db
      .selectFrom('webhook_deliveries')
      .select(['id', 'next_attempt_at'])
      .where('status', '=', 'pending')
      .where('next_attempt_at', '<=', now)
      .orderBy('next_attempt_at')
      .limit(max)
      .execute();
    const claimed: Array<{ id: string; lease: number }> = [];
    for (const row of due) {
      const result = await db
        .updateTable('webhook_deliveries')
        .set({ next_attempt_at: lease })
        .where('id', '=', row.id)
        .where('status', '=', 'pending')
        .where('next_attempt_at', '=', row.next_attempt_at)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 1) claimed.push({ id: row.id, lease });
    }
    return claimed;
  }

  /** Aborts attempts in flight; their rows are released for the next dispatcher. */
  abort(): void {
    this.stopController.abort();
  }

  /** One attempt at a claimed row: POST, then record the attempt and the outcome in one transaction. */
  async attempt(id: string, lease: number): Promise<void> {
    const { db } = this.deps;
    const row = await db
      .selectFrom('webhook_deliveries')
      .innerJoin('merchants', 'merchants.id', 'webhook_deliveries.merchant_id')
      .select(['webhook_deliveries.payload', 'webhook_deliveries.attempt_count', 'merchants.webhook_url', 'merchants.webhook_secret'])
      .where('webhook_deliveries.id', '=', id)
      .executeTakeFirst();
    if (!row) return;

    const started = this.deps.now();
    const t0 = performance.now();
    let responseStatus: number | null = null;
    let error: string | null = null;
    if (!row.webhook_url) {
      error = 'No webhook URL is set for this merchant account';
    } else {
      try {
        const headers = webhookHeaders(row.webhook_secret, id, row.payload, started);
        const res = await this.fetchFn(row.webhook_url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'user-agent': 'kasir-webhooks/1.0', ...headers },
          body: row.payload,
          redirect: 'manual',
          signal: AbortSignal.any([AbortSignal.timeout(this.timeoutMs), this.stopController.signal]),
        });
        responseStatus = res.status;
        await res.body?.cancel().catch(() => {});
        if (res.status < 200 || res.status > 299) error = `Receiver answered HTTP ${res.status}`;
      } catch (err) {
        if (this.stopController.signal.aborted) {
          // Stopped mid-attempt: not an attempt; give the row back so a restart sends it at once.
          await db.updateTable('webhook_deliveries').set({ next_attempt_at: started.getTime() })
            .where('id', '=', id).where('status', '=', 'pending').where('next_attempt_at', '=', lease).execute();
          return;
        }
        error = describeError(err);
      }
    }
    const durationMs = Math.round(performance.now() - t0);
    const ok = error === null;
    const attempt = row.attempt_count + 1;
    const finished = this.deps.now();
    const retryDelay = this.schedule[attempt - 1];

    await db.transaction().execute(async (trx) => {
      await trx.insertInto('webhook_attempts').values({
        delivery_id: id, attempted_at: started.toISOString(), response_status: responseStatus, error, duration_ms: durationMs,
      }).execute();
      await trx
        .updateTable('webhook_deliveries')
        .set(ok
          ? { status: 'succeeded', attempt_count: attempt, succeeded_at: finished.toISOString() }
          : retryDelay === undefined
            ? { status: 'failed', attempt_count: attempt }
            : { attempt_count: attempt, next_attempt_at: finished.getTime() + retryDelay })
        .where('id', '=', id)
        .where('status', '=', 'pending')
        // Still our claim (an attempt that outlived its lease may have been taken over; that one decides).
        .where('next_attempt_at', '=', lease)
        .execute();
    });
    this.options.onAttempt?.({ deliveryId: id, attempt, ok, responseStatus, error, durationMs });
  }
}

/** Delivers due outbox rows (signed, retried on DESIGN.md's schedule) until stopped. Returns the stop function. */
export function startWebhookDispatcher(deps: ProviderDeps, options: DispatcherOptions = {}): () => Promise<void> {
  const dispatcher = new WebhookDispatcher(deps, options);
  const pollIntervalMs = options.pollIntervalMs ?? 1_000;
  const batchSize = options.batchSize ?? 25;
  const concurrency = options.concurrency ?? 100;
  const inFlight = new Set<Promise<void>>();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  const tick = () => {
    running = (async () => {
      try {
        for (;;) {
          if (stopped) break;
          const want = Math.min(batchSize, concurrency - inFlight.size);
          const claimed = await dispatcher.claimDue(want);
          for (const { id, lease } of claimed) {
            const attempt: Promise<void> = dispatcher.attempt(id, lease)
              .catch((err) => console.error('[webhooks] attempt failed to record:', err instanceof Error ? err.message : err))
              .finally(() => inFlight.delete(attempt));
            inFlight.add(attempt);
          }
          // A full claim means more may be due: go again at once (while there is room).
          if (claimed.length < want || want === 0) break;
        }
      } catch (err) {
        if (!stopped) console.error('[webhooks] dispatcher pass failed:', err instanceof Error ? err.message : err);
      }
      if (!stopped) timer = setTimeout(tick, pollIntervalMs);
    })();
  };
  timer = setTimeout(tick, 0);

  return async () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    dispatcher.abort();
    await running;
    await Promise.all(inFlight);
  };
}
