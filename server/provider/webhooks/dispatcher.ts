import { sql, type Transaction } from 'kysely';
import pLimit, { type LimitFunction } from 'p-limit';
import type { Logger } from '../../common/log.js';
import { webhookTargets } from '../accounts/merchants.js';
import { webhookHeaders } from '../../common/standard-webhooks.js';
import { openDatabase, type Database, type Db } from '../db/database.js';
import { engineOf } from '../db/engine.js';
import type { ProviderDeps } from '../instance/deps.js';
import { logAttempt, loggableUrl } from './attempt-log.js';
import { WebhookSender } from './sender.js';
import { systemResolver } from './url-guard.js';

/**
 * docs/design.md, "Webhooks": retries after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h (10 attempts in all).
 */
export const RETRY_SCHEDULE_MS: readonly number[] = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3600_000,
  5 * 3600_000,
  10 * 3600_000,
  14 * 3600_000,
  20 * 3600_000,
  24 * 3600_000,
];

export interface DispatcherOptions {
  /**
   * Longest sleep, in ms, when nothing wakes the dispatcher (default 1000). New rows wake it at once and it sleeps
   * only until the next retry it knows of; this catches retries and leases of other copies, and a lost notification.
   */
  pollIntervalMs?: number;
  /** Delay before retry n (n = 1..length); after the last one fails the delivery is marked failed. */
  scheduleMs?: readonly number[];
  /** Per-attempt timeout of the POST, in ms (default config.webhookTimeoutMs, 10 s). */
  timeoutMs?: number;
  /** How long a claim outlives the attempt's timeout before another dispatcher may take the row over (default 5 s). */
  leaseMarginMs?: number;
  /** Most rows claimed per query (default 100). */
  batchSize?: number;
  /**
   * How long recorded outcomes may wait for the next write, in ms (default 10): they go with the next claim, or alone
   * this long after the last write began. A claim never waits for it.
   */
  tickMs?: number;
  /** Most deliveries claimed and not yet recorded, in all (default 256); a copy leaves the rest to the others. */
  concurrency?: number;
  /** Most POSTs in flight to one endpoint (scheme, host and port) at once (default 32). */
  perEndpoint?: number;
  /** Nothing is sent before this settles (startSandbox's `deliverWebhooks: false`, until `startDelivery()`). */
  startAfter?: Promise<unknown>;
  /** Called after every attempt (tests, metrics). Never given secrets. */
  onAttempt?: (attempt: AttemptRecord) => void;
  /** Headers that carry the trace of a deposit's change to its webhook's receiver (`traceparent`), if any. */
  traceHeaders?: (depositId: string) => Record<string, string> | undefined;
  /** The database handle its claims and records go through (default deps.db; startWebhookDispatcher's own pool on PostgreSQL). */
  db?: Db;
}

interface AttemptRecord {
  deliveryId: string;
  attempt: number;
  ok: boolean;
  responseStatus: number | null;
  error: string | null;
  durationMs: number;
  /** The webhook's body (its `timestamp` is the change's). */
  payload: string;
}

/** A row this dispatcher holds: next_attempt_at was moved to `lease`, which no other dispatcher's claim matches. */
interface ClaimedDelivery {
  id: string;
  merchantId: string;
  eventType: string;
  depositId: string;
  payload: string;
  attemptCount: number;
  lease: number;
}

interface Target {
  url: string | null;
  secret: string;
}

/** What one attempt came to, to be recorded. */
interface Outcome {
  row: ClaimedDelivery;
  /** The URL as it may be shown (loggableUrl), null when none was set. */
  url: string | null;
  attemptedAt: string;
  responseStatus: number | null;
  error: string | null;
  durationMs: number;
  finishedAt: Date;
}

/**
 * Writes attempts and their outcomes (in the caller's transaction). A success marks the row succeeded whoever holds
 * its claim now: the receiver has the event, nobody may send it again. A failure schedules the next retry (or gives
 * up after the last) only while the claim is still this attempt's: one that outlived its lease may have been taken
 * over, and that one decides.
 */
async function writeOutcomes(
  trx: Transaction<Database>,
  outcomes: Outcome[],
  schedule: readonly number[],
): Promise<void> {
  if (outcomes.length === 0) return;
  await trx
    .insertInto('webhook_attempts')
    .values(
      outcomes.map((o) => ({
        delivery_id: o.row.id,
        attempted_at: o.attemptedAt,
        response_status: o.responseStatus,
        error: o.error,
        duration_ms: o.durationMs,
        url: o.url,
      })),
    )
    .execute();
  const succeeded = outcomes.filter((o) => o.error === null);
  if (succeeded.length > 0) {
    await trx
      .updateTable('webhook_deliveries')
      .set((eb) => ({
        status: 'succeeded',
        attempt_count: eb('attempt_count', '+', 1),
        succeeded_at: succeeded[0].finishedAt.toISOString(),
      }))
      .where(
        'id',
        'in',
        succeeded.map((o) => o.row.id),
      )
      // `status || ''`: a condition no index can serve, so the ids' primary key is used. With a plain status = 'pending'
      // SQLite's planner walks the (status, next_attempt_at) index over every pending row instead: each write
      // costing in proportion to the backlog (PostgreSQL takes the primary key either way).
      .where(sql`${sql.ref('status')} || ''`, '=', 'pending')
      .execute();
  }
  for (const o of outcomes) {
    if (o.error === null) continue;
    const attempt = o.row.attemptCount + 1;
    const retryDelay = schedule[attempt - 1];
    await trx
      .updateTable('webhook_deliveries')
      .set(
        retryDelay === undefined
          ? { status: 'failed', attempt_count: attempt }
          : { attempt_count: attempt, next_attempt_at: Date.now() + retryDelay },
      )
      .where('id', '=', o.row.id)
      .where('status', '=', 'pending')
      .where('next_attempt_at', '=', o.row.lease)
      .execute();
  }
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

/** Where a webhook URL's connections go: one pool and one concurrency bound per origin. */
function endpointOf(url: string | null): string {
  if (!url) return '';
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

/** A claim asked of the next write: up to `max` due rows, with their merchants' targets. */
interface ClaimRequest {
  max: number;
  resolve: (claim: Claim) => void;
  reject: (err: unknown) => void;
}
interface Claim {
  rows: ClaimedDelivery[];
  targets: Map<string, Target>;
}
interface PendingOutcome {
  outcome: Outcome;
  done: () => void;
  failed: (err: unknown) => void;
}

/**
 * One webhook dispatcher. All state is in the database (webhook_deliveries, webhook_attempts), so any
 * number of dispatchers may run against one database and a restart resumes where the last one stopped:
 *
 * - A row is claimed by moving next_attempt_at to a lease (now + the attempt's timeout + a margin), atomically (see
 *   claim). Only one dispatcher wins a row; if it dies mid-attempt, the lease runs out and another takes it.
 * - The outcome and the attempt are written in one transaction. A success sets status = succeeded, and a
 *   succeeded row is never claimed again: once a 2xx is recorded, the event is never sent again.
 * - Every attempt carries the same webhook-id and a fresh webhook-timestamp and signature.
 *
 * Its database work is one write at a time, each one transaction holding the outcomes that came in since the last
 * write and the next claim (with its merchants' URLs and secrets); a claim with no outcome waiting is its one UPDATE,
 * with no transaction around it. A claim goes at once; outcomes wait for it, or `tickMs`. Under a stream of
 * completions a delivery then costs a share of a commit instead of a claim, a read of its merchant and a commit of its
 * own; the rows per write grow with the load, not the writes.
 */
export class WebhookDispatcher {
  private readonly schedule: readonly number[];
  readonly timeoutMs: number;
  private readonly leaseMs: number;
  /** Most rows claimed per query. */
  readonly batchSize: number;
  /** Most POSTs in flight to one endpoint. */
  readonly perEndpoint: number;
  private readonly tickMs: number;
  private readonly stopController = new AbortController();
  private readonly sender: WebhookSender;
  /** The delivery lines' logger: at info by default, even when the rest of the service is silent. */
  private readonly attemptLog: Logger;
  private outcomes: PendingOutcome[] = [];
  private claimRequest: ClaimRequest | undefined;
  private writing = false;
  private writeTimer: NodeJS.Timeout | undefined;
  private lastWriteAt = 0;
  private readonly db: Db;

  constructor(
    private readonly deps: ProviderDeps,
    private readonly options: DispatcherOptions = {},
  ) {
    this.db = options.db ?? deps.db;
    this.attemptLog = deps.logger.child({ component: 'webhooks' }, { level: deps.config.deliveryLogLevel });
    this.schedule = options.scheduleMs ?? RETRY_SCHEDULE_MS;
    this.timeoutMs = options.timeoutMs ?? deps.config.webhookTimeoutMs;
    this.leaseMs = this.timeoutMs + (options.leaseMarginMs ?? 5_000);
    this.batchSize = options.batchSize ?? 100;
    this.perEndpoint = options.perEndpoint ?? 32;
    this.tickMs = options.tickMs ?? 10;
    this.sender = new WebhookSender({
      maxSocketsPerEndpoint: this.perEndpoint,
      // Sandbox mode delivers to loopback too (the demo's merchant backend), never to link-local or private addresses.
      addresses: { resolve: deps.resolveHost ?? systemResolver, allowLoopback: deps.config.sandbox },
    });
  }

  /** Claims and sends every due row (up to batchSize) and waits for the attempts. Returns how many were made. */
  async runOnce(): Promise<number> {
    const { rows, targets } = await this.claim(this.batchSize);
    await Promise.all(rows.map((row) => this.attempt(row, targets.get(row.merchantId))));
    return rows.length;
  }

  /** Claims up to `max` due rows (in the next write: see claim). */
  async claimDue(max: number): Promise<ClaimedDelivery[]> {
    return (await this.claim(max)).rows;
  }

  /** Claims up to `max` due rows and reads their merchants' targets, in the next write (with the outcomes waiting). */
  claim(max: number): Promise<Claim> {
    if (max <= 0) return Promise.resolve({ rows: [], targets: new Map() });
    if (this.claimRequest) throw new Error('one claim at a time');
    return new Promise<Claim>((resolve, reject) => {
      this.claimRequest = { max, resolve, reject };
      this.scheduleWrite();
    });
  }

  /**
   * Records an attempt and its outcome in the next write. Resolves once it is committed (attempt() waits for it, so
   * runOnce's caller and the stop function see every attempt recorded).
   */
  private record(outcome: Outcome): Promise<void> {
    return new Promise<void>((done, failed) => {
      this.outcomes.push({ outcome, done, failed });
      this.scheduleWrite();
    });
  }

  /**
   * The next write, one at a time. A claim goes at once (a new webhook is waiting for it); outcomes alone wait until
   * tickMs after the last write began, riding along with a claim that comes meanwhile. Begun in this turn of the event
   * loop: on SQLite its turn at the one connection is then taken before the requests that arrive meanwhile.
   */
  private scheduleWrite(): void {
    if (this.writing) return;
    const wait = this.claimRequest ? 0 : this.lastWriteAt + this.tickMs - Date.now();
    if (this.writeTimer) {
      if (wait > 0) return;
      clearTimeout(this.writeTimer);
      this.writeTimer = undefined;
    }
    if (wait <= 0) {
      void this.write();
      return;
    }
    this.writeTimer = setTimeout(() => {
      this.writeTimer = undefined;
      void this.write();
    }, wait);
  }

  /**
   * One transaction: the outcomes waiting, then the claim asked for (so a finished attempt's room is refilled in it).
   * A claim alone needs none: its UPDATE is atomic, and its merchants' targets are read after it.
   */
  private async write(): Promise<void> {
    this.writing = true;
    this.lastWriteAt = Date.now();
    const outcomes = this.outcomes.splice(0, 1000);
    const request = this.claimRequest;
    this.claimRequest = undefined;
    try {
      const claim =
        outcomes.length === 0
          ? request && (await this.claimIn(this.db, request.max))
          : await this.db.transaction().execute(async (trx) => {
              await writeOutcomes(
                trx,
                outcomes.map((o) => o.outcome),
                this.schedule,
              );
              return request ? this.claimIn(trx, request.max) : undefined;
            });
      for (const o of outcomes) o.done();
      if (request) request.resolve(claim!);
    } catch (err) {
      for (const o of outcomes) o.failed(err);
      request?.reject(err);
    } finally {
      this.writing = false;
      if (this.outcomes.length > 0 || this.claimRequest) this.scheduleWrite();
    }
  }

  /**
   * Claims up to `max` due rows, so that of several dispatchers exactly one wins each row: one UPDATE moves their
   * next_attempt_at to the lease and returns them. PostgreSQL picks the rows with FOR UPDATE SKIP LOCKED, so concurrent
   * dispatchers take disjoint rows without waiting on each other (and the outer conditions are re-checked on the
   * row's latest version); SQLite runs one writer at a time. The merchants' webhook URL and secret are read with it
   * (a rotated secret applies to the next claim).
   */
  private async claimIn(db: Db, max: number): Promise<Claim> {
    const now = Date.now();
    const lease = now + this.leaseMs;
    const postgres = engineOf(db) === 'postgres';
    let claim = db
      .updateTable('webhook_deliveries')
      .set({ next_attempt_at: lease })
      .where('id', 'in', (eb) => {
        const due = eb
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('status', '=', 'pending')
          .where('next_attempt_at', '<=', now)
          .orderBy('next_attempt_at')
          .limit(max);
        return postgres ? due.forUpdate().skipLocked() : due;
      });
    // SQLite runs the statement alone, so the rows picked are still due; repeating the conditions there would make it
    // scan every due row (its planner then prefers that index over the ids), one claim costing as much as the backlog.
    if (postgres) claim = claim.where('status', '=', 'pending').where('next_attempt_at', '<=', now);
    const claimed = await claim
      .returning(['id', 'merchant_id', 'event_type', 'deposit_id', 'payload', 'attempt_count'])
      .execute();
    const rows = claimed.map((r) => ({
      id: r.id,
      merchantId: r.merchant_id,
      eventType: r.event_type,
      depositId: r.deposit_id,
      payload: r.payload,
      attemptCount: r.attempt_count,
      lease,
    }));
    const ids = [...new Set(rows.map((r) => r.merchantId))];
    return { rows, targets: await webhookTargets(db, ids) };
  }

  /**
   * Moves a claim that waited for its turn (endpoint busy) to a fresh lease before it is sent, so it cannot run out
   * mid-attempt. False when the claim was lost meanwhile (another dispatcher took the row over): do not send.
   */
  async renewLease(row: ClaimedDelivery): Promise<boolean> {
    if (Date.now() + this.timeoutMs < row.lease - 1_000) return true;
    const lease = Date.now() + this.leaseMs;
    const result = await this.db
      .updateTable('webhook_deliveries')
      .set({ next_attempt_at: lease })
      .where('id', '=', row.id)
      .where('status', '=', 'pending')
      .where('next_attempt_at', '=', row.lease)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) return false;
    row.lease = lease;
    return true;
  }

  /** Gives a claimed row back unsent, due at once (for the next pass or another dispatcher). */
  async release(row: ClaimedDelivery): Promise<void> {
    await this.db
      .updateTable('webhook_deliveries')
      .set({ next_attempt_at: Date.now() })
      .where('id', '=', row.id)
      .where('status', '=', 'pending')
      .where('next_attempt_at', '=', row.lease)
      .execute();
  }

  /** Aborts attempts in flight; their rows are released for the next dispatcher. */
  abort(): void {
    this.stopController.abort();
  }

  /** Closes the kept-alive connections (after the attempts in flight ended). */
  close(): void {
    clearTimeout(this.writeTimer);
    this.sender.close();
  }

  /** One attempt at a claimed row: POST, then record the attempt and the outcome (in the next write). */
  async attempt(row: ClaimedDelivery, target: Target | undefined): Promise<void> {
    const outcome = await this.post(row, target);
    if (outcome) await this.settle(outcome, target);
  }

  /**
   * The POST of one attempt and what it came to; undefined when the dispatcher stopped mid-attempt (not an attempt:
   * the row is given back, due at once, so a restart or another copy sends it).
   */
  async post(row: ClaimedDelivery, target: Target | undefined): Promise<Outcome | undefined> {
    const started = this.deps.now();
    const t0 = performance.now();
    let responseStatus: number | null = null;
    let error: string | null = null;
    if (!target?.url) {
      error = 'No webhook URL is set for this merchant account';
    } else {
      try {
        const headers = webhookHeaders(target.secret, row.id, row.payload, started);
        responseStatus = await this.sender.post(
          target.url,
          {
            'content-type': 'application/json',
            'user-agent': 'kasir-webhooks/1.0',
            ...this.options.traceHeaders?.(row.depositId),
            ...headers,
          },
          row.payload,
          AbortSignal.any([AbortSignal.timeout(this.timeoutMs), this.stopController.signal]),
        );
        if (responseStatus < 200 || responseStatus > 299) error = `Receiver answered HTTP ${responseStatus}`;
      } catch (err) {
        if (this.stopController.signal.aborted) {
          await this.release(row);
          return undefined;
        }
        error = describeError(err);
      }
    }
    return {
      row,
      url: target?.url ? loggableUrl(target.url) : null,
      attemptedAt: started.toISOString(),
      responseStatus,
      error,
      durationMs: Math.round(performance.now() - t0),
      finishedAt: this.deps.now(),
    };
  }

  /** Records a POST's outcome in the next write (resolves once committed), then logs it and tells onAttempt. */
  async settle(outcome: Outcome, target: Target | undefined): Promise<void> {
    await this.record(outcome);
    const { row, responseStatus, error, durationMs } = outcome;
    logAttempt(
      this.attemptLog,
      {
        event: row.eventType,
        depositId: row.depositId,
        url: target?.url ?? null,
        status: responseStatus,
        error,
        ms: durationMs,
        attempt: row.attemptCount + 1,
        deliveryId: row.id,
      },
      this.deps.config.sandbox,
    );
    this.options.onAttempt?.({
      deliveryId: row.id,
      attempt: row.attemptCount + 1,
      ok: error === null,
      responseStatus,
      error,
      durationMs,
      payload: row.payload,
    });
  }

  /** When the next pending row falls due (epoch ms), if any. */
  async nextDueAt(): Promise<number | undefined> {
    const row = await this.db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.min('next_attempt_at').as('next'))
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return row?.next == null ? undefined : Number(row.next);
  }
}

const MIN_SLEEP_MS = 10;

/** One p-limit per endpoint (origin), `perEndpoint` POSTs at once, dropped when it has nothing running or waiting. */
class EndpointLimits {
  private readonly limits = new Map<string, LimitFunction>();

  constructor(private readonly perEndpoint: number) {}

  /** Runs `task` in its endpoint's turn. */
  run<T>(endpoint: string, task: () => Promise<T>): Promise<T> {
    let limit = this.limits.get(endpoint);
    if (!limit) this.limits.set(endpoint, (limit = pLimit(this.perEndpoint)));
    const turn = limit;
    return turn(task).finally(() => {
      if (turn.activeCount === 0 && turn.pendingCount === 0 && this.limits.get(endpoint) === turn)
        this.limits.delete(endpoint);
    });
  }
}

/**
 * On PostgreSQL the dispatcher has a pool of its own (two connections): its writes never queue for a connection behind
 * the requests (a stream of completions holds every connection of the service's pool), so deliveries keep up with
 * completions however many requests wait. Undefined on SQLite, or when the caller gave the dispatcher its handle.
 */
function ownPool(deps: ProviderDeps, options: DispatcherOptions): Promise<Db> | undefined {
  const { databaseUrl, dataDir } = deps.config;
  return !options.db && databaseUrl && engineOf(deps.db) === 'postgres'
    ? openDatabase({ dataDir, databaseUrl, poolSize: 2 })
    : undefined;
}

/**
 * held: waiting for `startAfter` (and its own pool) before anything is sent; running: woken by changes and its timer;
 * stopped: stop() began, nothing more is claimed.
 */
type LoopPhase = 'held' | 'running' | 'stopped';

/**
 * startWebhookDispatcher's loop. A wake starts a pass (one at a time): it claims while rows are due and there is room
 * (`concurrency` attempts in flight), hands each row to its endpoint's turn, then sleeps until the next row falls due.
 */
class DeliveryLoop {
  private dispatcher: WebhookDispatcher;
  private readonly ownDb: Promise<Db> | undefined;
  private readonly endpoints: EndpointLimits;
  private readonly log: Logger;
  private readonly pollIntervalMs: number;
  private readonly batchSize: number;
  private readonly concurrency: number;
  /** Room that wakes a loop stopped at `concurrency`: refilled in batches, not one claim per finished attempt. */
  private readonly refill: number;
  private readonly inFlight = new Set<Promise<void>>();
  private phase: LoopPhase;
  /** The pass under way, if any. */
  private passing: Promise<void> | undefined;
  /** Woken while a pass was under way: that pass looks again before it sleeps. */
  private wokenInPass = false;
  /** The last pass stopped at `concurrency` attempts in flight: a finishing attempt wakes the loop once there is room. */
  private waitingForRoom = false;
  /** The sleep until the next row falls due (or a retry after a failed pass). */
  private timer: NodeJS.Timeout | undefined;
  /** The last look at when the next pending row falls due (see nextDue). */
  private looked: { at: number; next: number | undefined } | undefined;
  private unsubscribe: (() => void) | undefined;
  private stopping: Promise<void> | undefined;

  constructor(
    private readonly deps: ProviderDeps,
    private readonly options: DispatcherOptions,
  ) {
    this.ownDb = ownPool(deps, options);
    this.dispatcher = new WebhookDispatcher(deps, options);
    this.endpoints = new EndpointLimits(this.dispatcher.perEndpoint);
    this.log = deps.logger.child({ component: 'webhooks' });
    this.pollIntervalMs = options.pollIntervalMs ?? 1_000;
    this.batchSize = this.dispatcher.batchSize;
    this.concurrency = options.concurrency ?? 256;
    this.refill = Math.min(this.batchSize, Math.ceil(this.concurrency / 4));
    this.phase = options.startAfter || this.ownDb ? 'held' : 'running';
  }

  start(): void {
    // Any committed change of a deposit may have put a webhook in the outbox (a resend announces its deposit too).
    this.unsubscribe = this.deps.changes.on(() => this.wake());
    if (this.phase === 'running') {
      this.wake();
      return;
    }
    const ownReady = this.ownDb?.then(
      (db) => {
        this.dispatcher = new WebhookDispatcher(this.deps, { ...this.options, db });
      },
      (err: unknown) => {
        // Without a pool of its own (PostgreSQL refused a connection at start), it shares the service's.
        this.log.warn(
          { err: err instanceof Error ? err.message : String(err) },
          'webhook dispatcher: no pool of its own; sharing the service pool',
        );
      },
    );
    void Promise.all([this.options.startAfter, ownReady]).then(() => {
      if (this.phase === 'held') this.phase = 'running';
      this.wake();
    });
  }

  /** Starts a pass now, or has the one under way look again. */
  private wake(): void {
    if (this.phase !== 'running') return;
    if (this.passing) {
      this.wokenInPass = true;
      return;
    }
    clearTimeout(this.timer);
    this.passing = this.pass()
      .catch((err) => {
        if (this.phase === 'stopped') return;
        this.log.error({ err }, 'webhook dispatcher pass failed');
        this.sleep(this.pollIntervalMs);
      })
      .finally(() => {
        this.passing = undefined;
        if (this.wokenInPass) this.wake();
      });
  }

  /** Claims while rows are due and there is room; sleeps until the next row falls due once it has them all. */
  private async pass(): Promise<void> {
    for (;;) {
      this.wokenInPass = false;
      let drained = false;
      while (this.phase === 'running') {
        const room = Math.min(this.batchSize, this.concurrency - this.inFlight.size);
        if (room <= 0) {
          this.waitingForRoom = true;
          break;
        }
        const { rows, targets } = await this.dispatcher.claim(room);
        for (const row of rows) this.launch(row, targets.get(row.merchantId));
        if (rows.length < room) {
          drained = true;
          break;
        }
      }
      if (this.phase === 'stopped' || !this.wokenInPass) {
        if (drained && this.phase === 'running') await this.sleepUntilNextDue();
        return;
      }
    }
  }

  /** A claimed row's attempt, in flight until recorded; its end may wake a loop that waits for room. */
  private launch(row: ClaimedDelivery, target: Target | undefined): void {
    const attempt: Promise<void> = this.deliver(row, target)
      .catch((err) => this.log.error({ err, deliveryId: row.id }, 'webhook attempt failed to record'))
      .finally(() => {
        this.inFlight.delete(attempt);
        if (this.waitingForRoom && this.concurrency - this.inFlight.size >= this.refill) {
          this.waitingForRoom = false;
          this.wake();
        }
      });
    this.inFlight.add(attempt);
  }

  /**
   * In its endpoint's turn: sent (on a renewed lease), or given back unsent once stopping. The turn ends with the POST's
   * answer: the outcome waits for its write (up to tickMs) while the endpoint's next webhook goes out. The row stays
   * claimed, and in flight, until the outcome is committed.
   */
  private async deliver(row: ClaimedDelivery, target: Target | undefined): Promise<void> {
    const outcome = await this.endpoints.run(endpointOf(target?.url ?? null), async () => {
      if (this.phase === 'stopped') await this.dispatcher.release(row);
      else if (await this.dispatcher.renewLease(row)) return this.dispatcher.post(row, target);
      return undefined;
    });
    if (!outcome) return;
    await this.dispatcher.settle(outcome, target);
    if (outcome.error !== null) this.looked = undefined; // its retry is due sooner than what the last look found
  }

  /** Sleeps until the next row falls due, or pollIntervalMs at most; a wake cuts it short. */
  private async sleepUntilNextDue(): Promise<void> {
    const next = await this.nextDue();
    if (this.phase === 'stopped' || this.wokenInPass) return;
    // A row due now that the claim did not get is being claimed by another copy (SKIP LOCKED): look again shortly.
    this.sleep(
      next === undefined
        ? this.pollIntervalMs
        : Math.max(MIN_SLEEP_MS, Math.min(this.pollIntervalMs, next - Date.now())),
    );
  }

  /**
   * When the next pending row falls due. Under a stream every pass ends here, so a look is reused for pollIntervalMs
   * (the longest sleep): what it cannot have seen, another copy's row falling due, is claimed by the next pass anyway.
   * It is taken again once an attempt here failed (a retry was scheduled) or when it found a row due already.
   */
  private async nextDue(): Promise<number | undefined> {
    const now = Date.now();
    const last = this.looked;
    if (last && now - last.at < this.pollIntervalMs && (last.next === undefined || last.next > now)) return last.next;
    const next = await this.dispatcher.nextDueAt();
    this.looked = { at: now, next };
    return next;
  }

  private sleep(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.wake(), ms);
  }

  /** Stops claiming, lets the attempts in flight finish for up to `graceMs`, aborts the rest and waits for them. */
  stop(graceMs: number): Promise<void> {
    return (this.stopping ??= this.stopNow(graceMs));
  }

  private async stopNow(graceMs: number): Promise<void> {
    this.phase = 'stopped';
    clearTimeout(this.timer);
    this.unsubscribe?.();
    await this.passing;
    if (graceMs > 0 && this.inFlight.size > 0) {
      let grace: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.all(this.inFlight),
        new Promise((resolve) => {
          grace = setTimeout(resolve, graceMs);
        }),
      ]);
      clearTimeout(grace);
    }
    this.dispatcher.abort();
    await Promise.all(this.inFlight);
    this.dispatcher.close();
    await this.ownDb?.then(
      (db) => db.destroy(),
      () => {},
    );
  }
}

/**
 * Delivers outbox rows (signed, retried on the schedule of docs/design.md, "Webhooks") until stopped, within
 * milliseconds of their enqueueing: woken by every committed change of a deposit (deps.changes: this copy's, and on
 * PostgreSQL every copy's), it claims while rows are due and there is room, and sleeps only until the next retry falls
 * due (at most pollIntervalMs). Attempts run concurrently, bounded in all (`concurrency`) and per endpoint
 * (`perEndpoint`, one p-limit per origin), so a slow receiver never holds up the others.
 * Returns the stop function: it stops claiming, lets the attempts in flight finish for up to `graceMs` (default 0),
 * then aborts the rest (their rows are given back, due at once) and waits for them.
 */
export function startWebhookDispatcher(
  deps: ProviderDeps,
  options: DispatcherOptions = {},
): (graceMs?: number) => Promise<void> {
  const loop = new DeliveryLoop(deps, options);
  loop.start();
  return (graceMs = 0) => loop.stop(graceMs);
}
