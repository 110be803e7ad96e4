// What the merchant backend must remember beyond one request, behind one interface so the code paths are the same
// for one process and for many: accepted webhook ids, the once-per-deposit hook markers, the orders of the checkouts
// it created, the status cache's shared layer (the cached deposit, "fresh until", change fan-out) and the rate
// limits' store. Two implementations: LocalState (one process; durable in KASIR_DATA_DIR when given a file) and
// RedisState (any number of copies on one Redis, ./redis-state.ts).
import type { Store } from 'hono-rate-limiter';
import { randomUUID } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { IdempotencyClaim, IdempotencyStore, IdempotentAnswer } from '../../common/idempotency.js';
import { lruMap } from './lru.js';
import type { FeesPaidBy, StoredDeposit } from '../model.js';

/** A claim on a key (a webhook id, a deposit's hook): `claimed` runs the work, then `finish`es or `release`s it. */
export type Claim =
  | { state: 'claimed'; key: string; token: string }
  /** The work was done (a finished claim, remembered until its ttl). */
  | { state: 'done' }
  /** Another request (here or on another copy) holds it now: try again later. */
  | { state: 'busy' };

/** What the backend keeps about a checkout it created: what onDepositCompleted and the deposit view need. */
export interface SavedCheckout {
  feesPaidBy: FeesPaidBy;
  amount: string;
  currency: string;
  orderId?: string;
  /**
   * Opened by a page with the order's token (POST /checkouts {orderId, orderToken}): acting on it takes that order's
   * token too (docs/security.md). A checkout the shop's server made is acted on with its id alone.
   */
  byPage?: true;
  /** When it was created (ms since the epoch): reconcile tells a checkout that lapsed unused by it. */
  createdAt?: number;
}

/** The checkout a shop's order is paid through (docs/orders.md): one per order, in every copy's state. */
export interface SavedOrder {
  checkoutId: string;
  /** What the order was priced at when its checkout opened. */
  amount: string;
  currency: string;
}

/** The status cache's shared layer: what another copy read within the refresh interval, or who reads it now. */
export type SharedDepositRead =
  /** Read by some copy `ageMs` ago (within the interval, or final): use it. */
  | { kind: 'fresh'; deposit: StoredDeposit | null; ageMs: number }
  /** This copy reads it from the payment service now (the one read of this interval). */
  | { kind: 'load' }
  /** Another copy is reading it now; `deposit` is what was known before, if anything. */
  | { kind: 'wait'; deposit?: StoredDeposit | null };

export type DepositChangeListener = (checkoutId: string, deposit: StoredDeposit | null) => void;

export interface SharedState {
  /** True when other copies share this state (Redis). */
  readonly distributed: boolean;
  /** Takes `key` for `leaseMs` (a crashed holder's claim lapses after it). */
  claim(key: string, leaseMs: number): Promise<Claim>;
  /** Keeps a claim for `leaseMs` more, while its work runs (nothing if it lapsed and another took it). */
  extend(claim: Claim & { state: 'claimed' }, leaseMs: number): Promise<void>;
  /** The claimed work is done: later claims of the key answer `done` for `ttlMs`. Durable when this resolves. */
  finish(claim: Claim & { state: 'claimed' }, ttlMs: number): Promise<void>;
  /** The claimed work failed: the key may be claimed again at once. */
  release(claim: Claim & { state: 'claimed' }): Promise<void>;

  saveCheckout(id: string, checkout: SavedCheckout, ttlMs: number): Promise<void>;
  loadCheckout(id: string): Promise<SavedCheckout | undefined>;
  /** Records that a checkout's outcome is final and its hooks ran (reconcile then passes it by, unless asked since). */
  markSettled(id: string, at: number): Promise<void>;
  /** The saved checkouts not settled, and those settled at or after `settledSince` (ms since the epoch). */
  listCheckouts(settledSince?: number): Promise<string[]>;

  /** The order's checkout. Written only while holding the order's claim (`order:<orderId>`), so never raced. */
  saveOrder(orderId: string, order: SavedOrder, ttlMs: number): Promise<void>;
  loadOrder(orderId: string): Promise<SavedOrder | undefined>;

  /** Before reading a deposit from the payment service: whether some copy did within `refreshMs`. */
  readDeposit(id: string, refreshMs: number): Promise<SharedDepositRead>;
  /**
   * Stores what is known of a deposit (read, pushed by a webhook, or the answer of a write) unless what is stored
   * supersedes it (`supersedes`); answers what is stored now. A change reaches the other copies' listeners.
   */
  storeDeposit(id: string, deposit: StoredDeposit | null, ttlMs: number): Promise<StoredDeposit | null>;
  /** Deposit changes stored by other copies. */
  onDepositChange(listener: DepositChangeListener): void;

  /** The widget API's Idempotency-Key store (docs/idempotency.md): every copy sees the same keys. */
  readonly idempotency: IdempotencyStore;

  /** hono-rate-limiter's store for a limiter's counters (undefined: its in-process MemoryStore). */
  rateLimitStore(prefix: string): Store | undefined;
  /** Throws when the state cannot be reached (readiness). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Most entries of each kind one process keeps (the oldest go first): a million webhook ids is days of a busy shop's
 * traffic; beyond that, run on Redis.
 */
const MAX_ENTRIES = 1_000_000;

interface Entry<T> {
  value: T;
  expiresAt: number;
}

/** One line of the state file. */
type Line =
  | { k: string; x: number }
  | { c: string; v: SavedCheckout; x: number }
  /** An answered Idempotency-Key: its request's fingerprint and the answer replayed. */
  | { i: string; f: string; a: IdempotentAnswer; x: number }
  /** An order's checkout. */
  | { o: string; v: SavedOrder; x: number }
  /** A checkout settled at `at`. */
  | { s: string; at: number; x: number };

/** An Idempotency-Key this process holds or answered. */
interface IdempotencyEntry {
  fingerprint: string;
  /** Held by a request in progress until `until`; none once answered. */
  token?: string;
  until?: number;
  answer?: IdempotentAnswer;
  expiresAt: number;
}

/**
 * One process's state. With `file`, what must survive a restart (finished claims, saved checkouts) is an
 * append-only JSON-lines file, fsynced before `finish`/`saveCheckout` resolve (so before a webhook is
 * acknowledged), read back on start and rewritten without expired lines when it has grown to twice what it holds.
 * Why a file and not a database: the package must not depend on a native module (better-sqlite3), node:sqlite
 * is not in Node 20, and the data is a set of keys written a few times per payment, which an append log keeps
 * crash-safe (a torn last line is dropped on load) with one fsync per group of writes.
 * Status cache entries are not kept here: the in-process cache is the only layer a single process needs.
 */
export class LocalState implements SharedState {
  readonly distributed = false;
  /** Finished claims: when each lapses. Expiry times are kept by hand (they are what the file holds). */
  private readonly done = lruMap<number>(MAX_ENTRIES);
  private readonly pending = new Map<string, { token: string; until: number }>();
  private readonly checkouts = lruMap<Entry<SavedCheckout>>(MAX_ENTRIES);
  private readonly idempotencyKeys = lruMap<IdempotencyEntry>(MAX_ENTRIES);
  private readonly orders = lruMap<Entry<SavedOrder>>(MAX_ENTRIES);
  /** When each settled checkout settled. */
  private readonly settled = lruMap<Entry<number>>(MAX_ENTRIES);
  private readonly log?: AppendLog;
  readonly idempotency: IdempotencyStore = {
    claim: async (scope, key, fingerprint, { leaseMs }): Promise<IdempotencyClaim> => {
      const id = idempotencyId(scope, key);
      const t = this.now();
      const held = this.idempotencyKeys.peek(id);
      if (held && held.expiresAt > t && (held.answer || (held.until ?? 0) > t)) {
        if (held.fingerprint !== fingerprint) return { state: 'mismatch' };
        return held.answer ? { state: 'replay', answer: held.answer } : { state: 'in-flight' };
      }
      const token = randomUUID();
      this.idempotencyKeys.set(id, { fingerprint, token, until: t + leaseMs, expiresAt: t + leaseMs });
      return { state: 'claimed', token };
    },
    save: async (scope, key, token, answer, ttlMs) => {
      const id = idempotencyId(scope, key);
      const held = this.idempotencyKeys.peek(id);
      if (held?.token !== token) return;
      const line = { i: id, f: held.fingerprint, a: answer, x: this.now() + ttlMs };
      this.apply(line);
      await this.append(line);
    },
    release: async (scope, key, token) => {
      const id = idempotencyId(scope, key);
      if (this.idempotencyKeys.peek(id)?.token === token) this.idempotencyKeys.delete(id);
    },
  };

  constructor(
    file?: string,
    private readonly now: () => number = Date.now,
  ) {
    if (!file) return;
    this.log = new AppendLog(
      file,
      (line: Line) => this.apply(line),
      () => this.lines(),
      (lineCount) =>
        lineCount >
        2 * (this.done.size + this.checkouts.size + this.idempotencyKeys.size + this.orders.size + this.settled.size) +
          10_000,
    );
  }

  async claim(key: string, leaseMs: number): Promise<Claim> {
    const t = this.now();
    const doneUntil = this.done.peek(key);
    if (doneUntil !== undefined && doneUntil > t) return { state: 'done' };
    const held = this.pending.get(key);
    if (held && held.until > t) return { state: 'busy' };
    const token = randomUUID();
    this.pending.set(key, { token, until: t + leaseMs });
    return { state: 'claimed', key, token };
  }

  async extend(claim: Claim & { state: 'claimed' }, leaseMs: number): Promise<void> {
    const held = this.pending.get(claim.key);
    if (held?.token === claim.token) held.until = this.now() + leaseMs;
  }

  async finish(claim: Claim & { state: 'claimed' }, ttlMs: number): Promise<void> {
    const line = { k: claim.key, x: this.now() + ttlMs };
    this.apply(line);
    this.dropPending(claim);
    await this.append(line);
  }

  async release(claim: Claim & { state: 'claimed' }): Promise<void> {
    this.dropPending(claim);
  }

  async saveCheckout(id: string, checkout: SavedCheckout, ttlMs: number): Promise<void> {
    const line = { c: id, v: checkout, x: this.now() + ttlMs };
    this.apply(line);
    await this.append(line);
  }

  async loadCheckout(id: string): Promise<SavedCheckout | undefined> {
    const entry = this.checkouts.peek(id);
    return entry && entry.expiresAt > this.now() ? entry.value : undefined;
  }

  async markSettled(id: string, at: number): Promise<void> {
    const checkout = this.checkouts.peek(id);
    if (!checkout) return;
    const line = { s: id, at, x: checkout.expiresAt };
    this.apply(line);
    await this.append(line);
  }

  async listCheckouts(settledSince?: number): Promise<string[]> {
    const t = this.now();
    const ids: string[] = [];
    for (const id of this.checkouts.rkeys()) {
      if (this.checkouts.peek(id)!.expiresAt <= t) continue;
      const settledAt = this.settled.peek(id);
      if (!settledAt || settledAt.expiresAt <= t || (settledSince !== undefined && settledAt.value >= settledSince))
        ids.push(id);
    }
    return ids;
  }

  async saveOrder(orderId: string, order: SavedOrder, ttlMs: number): Promise<void> {
    const line = { o: orderId, v: order, x: this.now() + ttlMs };
    this.apply(line);
    await this.append(line);
  }

  async loadOrder(orderId: string): Promise<SavedOrder | undefined> {
    const entry = this.orders.peek(orderId);
    return entry && entry.expiresAt > this.now() ? entry.value : undefined;
  }

  async readDeposit(): Promise<SharedDepositRead> {
    return { kind: 'load' };
  }

  async storeDeposit(_id: string, deposit: StoredDeposit | null): Promise<StoredDeposit | null> {
    return deposit; // the in-process cache keeps the newest (supersedes)
  }

  onDepositChange(): void {
    /* one process: no other copy stores deposits */
  }

  rateLimitStore(): Store | undefined {
    return undefined;
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    await this.log?.close();
  }

  private dropPending(claim: Claim & { state: 'claimed' }) {
    if (this.pending.get(claim.key)?.token === claim.token) this.pending.delete(claim.key);
  }

  private apply(line: Line) {
    if (line.x <= this.now()) return;
    if ('k' in line) this.done.set(line.k, line.x);
    else if ('i' in line) this.idempotencyKeys.set(line.i, { fingerprint: line.f, answer: line.a, expiresAt: line.x });
    else if ('c' in line) this.checkouts.set(line.c, { value: line.v, expiresAt: line.x });
    else if ('o' in line) this.orders.set(line.o, { value: line.v, expiresAt: line.x });
    else if ('s' in line) this.settled.set(line.s, { value: line.at, expiresAt: line.x });
  }

  /**
   * What the file must hold: every unexpired entry, oldest first (so a restart keeps the eviction order), dropping
   * the expired ones from memory too.
   */
  private lines(): Line[] {
    const t = this.now();
    const lines: Line[] = [];
    const expired: string[] = [];
    for (const k of this.done.rkeys()) {
      const x = this.done.peek(k)!;
      if (x > t) lines.push({ k, x });
      else expired.push(k);
    }
    for (const k of expired.splice(0)) this.done.delete(k);
    for (const c of this.checkouts.rkeys()) {
      const { value, expiresAt } = this.checkouts.peek(c)!;
      if (expiresAt > t) lines.push({ c, v: value, x: expiresAt });
      else expired.push(c);
    }
    for (const c of expired.splice(0)) this.checkouts.delete(c);
    for (const i of this.idempotencyKeys.rkeys()) {
      const { fingerprint, answer, expiresAt } = this.idempotencyKeys.peek(i)!;
      if (answer && expiresAt > t) lines.push({ i, f: fingerprint, a: answer, x: expiresAt });
      else if (expiresAt <= t) expired.push(i);
    }
    for (const i of expired.splice(0)) this.idempotencyKeys.delete(i);
    for (const o of this.orders.rkeys()) {
      const { value, expiresAt } = this.orders.peek(o)!;
      if (expiresAt > t) lines.push({ o, v: value, x: expiresAt });
      else expired.push(o);
    }
    for (const o of expired.splice(0)) this.orders.delete(o);
    for (const id of this.settled.rkeys()) {
      const { value, expiresAt } = this.settled.peek(id)!;
      if (expiresAt > t) lines.push({ s: id, at: value, x: expiresAt });
      else expired.push(id);
    }
    for (const id of expired) this.settled.delete(id);
    return lines;
  }

  private async append(line: Line) {
    await this.log?.append(JSON.stringify(line));
  }
}

/** One key per scope and Idempotency-Key (a key is visible ASCII: no newline). */
export const idempotencyId = (scope: string, key: string) => `${scope}\n${key}`;

/**
 * An append-only JSON-lines file with group commit: lines appended while an fsync runs are written and synced
 * together by the next one; `append` resolves once its line is on disk. Read back and rewritten from `snapshot`
 * on start, and again between two commits once `tooLong(lineCount)` says so.
 */
class AppendLog {
  private lineCount = 0;
  private handle?: FileHandle;
  private queue: string[] = [];
  private waiters: Array<{ resolve: () => void; reject: (err: unknown) => void }> = [];
  private flushing?: Promise<void>;

  constructor(
    private readonly file: string,
    replay: (line: Line) => void,
    private readonly snapshot: () => Line[],
    private readonly tooLong: (lineCount: number) => boolean,
  ) {
    mkdirSync(dirname(file), { recursive: true });
    if (existsSync(file)) {
      // A crash mid-write leaves at most a torn last line: it does not parse and is skipped (the rewrite drops it).
      for (const raw of readFileSync(file, 'utf8').split('\n')) {
        if (!raw) continue;
        try {
          replay(JSON.parse(raw) as Line);
        } catch {
          /* torn or foreign line */
        }
      }
    }
    this.compact();
  }

  /** Rewrites the file with the snapshot's lines only, atomically (temp file, fsync, rename). */
  private compact() {
    const lines = this.snapshot();
    const tmp = `${this.file}.${process.pid}.tmp`;
    const fd = openSync(tmp, 'w');
    try {
      if (lines.length) writeSync(fd, lines.map((line) => JSON.stringify(line)).join('\n') + '\n');
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, this.file);
    syncDir(dirname(this.file));
    this.lineCount = lines.length;
  }

  append(line: string): Promise<void> {
    this.queue.push(line);
    const done = new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }));
    void this.flush();
    return done;
  }

  async close() {
    while (this.flushing) await this.flushing;
    await this.handle?.close();
    this.handle = undefined;
  }

  private async flush(): Promise<void> {
    if (this.flushing) return;
    this.flushing = (async () => {
      while (this.queue.length) {
        const lines = this.queue;
        const waiters = this.waiters;
        this.queue = [];
        this.waiters = [];
        try {
          this.handle ??= await open(this.file, 'a');
          await this.handle.appendFile(lines.join('\n') + '\n');
          await this.handle.datasync();
          this.lineCount += lines.length;
          if (this.tooLong(this.lineCount)) {
            await this.handle.close();
            this.handle = undefined;
            this.compact();
          }
          for (const w of waiters) w.resolve();
        } catch (err) {
          for (const w of waiters) w.reject(err);
        }
      }
    })().finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }
}

/** A rename is durable once its directory is synced (not possible on every platform: best effort). */
function syncDir(dir: string) {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    /* e.g. Windows: directories cannot be opened */
  }
}
