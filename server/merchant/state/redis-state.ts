// SharedState on Redis (node-redis): what lets any number of merchant-backend copies serve one shop. Claims are
// SET NX with a lease; the cached deposit is a hash (json, terminal, version, fetched-at) written by a script that
// keeps the newest (supersedes) and publishes a change on one channel, which every copy applies to its in-process
// cache (so SSE streams on every copy see it); "read by some copy within the interval" is a SET NX PX lock, so the
// payment service gets at most one read per deposit per interval from all copies together. Times inside scripts
// are Redis's own clock (TIME), never a copy's. Every call has a deadline (timeoutMs): a Redis that stalls (frozen,
// swapping, a blocked script) costs a request at most that long, and once one call overran it, every call fails at
// once until Redis answers the overdue one, so the copy serves from its own state meanwhile.
import { RedisStore, type Store } from 'hono-rate-limiter';
import { randomUUID } from 'node:crypto';
import { createClient, type RedisClientType } from 'redis';
import { ApiError } from '../../common/errors.js';
import type { IdempotencyClaim, IdempotencyStore } from '../../common/idempotency.js';
import {
  idempotencyId,
  type Claim,
  type DepositChangeListener,
  type SavedCheckout,
  type SavedOrder,
  type SharedDepositRead,
  type SharedState,
} from './shared-state.js';
import { REDIS_TIMEOUT_MS } from '../config.js';
import type { StoredDeposit } from '../model.js';

const NOW_MS = `local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/** KEYS: deposit hash, read lock. ARGV: refreshMs. See SharedDepositRead. */
const READ_DEPOSIT = `${NOW_MS}
local cur = redis.call('HMGET', KEYS[1], 'j', 't', 'f')
if cur[1] then
  local age = now - tonumber(cur[3])
  if cur[2] == '1' or age < tonumber(ARGV[1]) then return {'fresh', cur[1], age} end
end
if redis.call('SET', KEYS[2], '1', 'NX', 'PX', ARGV[1]) then return {'load'} end
return {'wait', cur[1] or ''}`;

/**
 * KEYS: deposit hash. ARGV: json, terminal (1/0), version, ttl ms, channel, message prefix. Stores the deposit
 * unless the stored one supersedes it (the rules of supersedes() in shared-state.ts), publishes a change, and
 * answers the stored json. Either way the entry is now fresh: its writer just learnt it from the payment service.
 */
const STORE_DEPOSIT = `${NOW_MS}
local cur = redis.call('HMGET', KEYS[1], 'j', 't', 'v')
local take
if not cur[1] or cur[1] == 'null' then take = true
elseif ARGV[1] == 'null' then take = false
elseif cur[2] == '1' then take = ARGV[2] == '1' and tonumber(ARGV[3]) > (tonumber(cur[3]) or 0)
elseif ARGV[2] == '1' then take = true
else take = tonumber(ARGV[3]) >= (tonumber(cur[3]) or 0) end
if not take then
  redis.call('HSET', KEYS[1], 'f', now)
  return cur[1]
end
redis.call('HSET', KEYS[1], 'j', ARGV[1], 't', ARGV[2], 'v', ARGV[3], 'f', now)
redis.call('PEXPIRE', KEYS[1], ARGV[4])
if cur[1] ~= ARGV[1] then redis.call('PUBLISH', ARGV[5], ARGV[6] .. ARGV[1]) end
return ARGV[1]`;

/** KEYS: claim key. ARGV: token. Deletes the key if it still holds this claim's token. */
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;
/** KEYS: claim key. ARGV: token, lease ms. Extends the lease if the key still holds this claim's token. */
const EXTEND = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`;

/**
 * KEYS: the Idempotency-Key's hash. ARGV: fingerprint, token, lease ms. A free key is taken (f, t; it lapses after the
 * lease unless saved); a held or answered one answers mismatch, replay (status, content type, body) or in-flight.
 */
const IDEMPOTENCY_CLAIM = `local f = redis.call('HGET', KEYS[1], 'f')
if not f then
  redis.call('HSET', KEYS[1], 'f', ARGV[1], 't', ARGV[2])
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  return {'claimed'}
end
if f ~= ARGV[1] then return {'mismatch'} end
local a = redis.call('HMGET', KEYS[1], 's', 'c', 'b')
if a[1] then return {'replay', a[1], a[2] or '', a[3] or ''} end
return {'in-flight'}`;
/** KEYS: the key's hash. ARGV: token, status, content type, body, ttl ms. Keeps the answer if the key is still this token's. */
const IDEMPOTENCY_SAVE = `if redis.call('HGET', KEYS[1], 't') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 's', ARGV[2], 'c', ARGV[3], 'b', ARGV[4], 't', '')
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1`;
/** KEYS: the key's hash. ARGV: token. Frees the key if it is still this token's. */
const IDEMPOTENCY_RELEASE = `if redis.call('HGET', KEYS[1], 't') == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

const DONE = 'done';
/** How long a settled checkout stays listed for reconcile's `since`. */
const CHECKOUT_LIST_TTL_MS = 30 * 24 * 3600_000;
/** Default of RedisStateOptions.timeoutMs. */

export interface RedisStateOptions {
  url: string;
  /** Prefix of every key and of the channel (default `kasir:`): one per shop on a shared Redis. */
  prefix?: string;
  /** Longest wait for one call (a command, a script, a connection), in ms (default 300). */
  timeoutMs?: number;
}

/**
 * Redis is away or stalled: a request that needs it (a webhook, a checkout's creation) is answered 503 and retried;
 * a status read falls back to this copy's own state.
 */
class RedisUnavailableError extends ApiError {
  constructor(reason: string) {
    super(503, 'This server cannot reach its shared state; please try again shortly');
    this.cause = reason;
  }
}

type Client = RedisClientType;

export class RedisState implements SharedState {
  readonly distributed = true;
  private readonly client: Client;
  private readonly subscriber: Client;
  private readonly prefix: string;
  private readonly channel: string;
  /** Tells this copy's own publications apart (it has applied them already). */
  private readonly copyId = randomUUID();
  private readonly listeners: DepositChangeListener[] = [];
  private readonly shas = new Map<string, string>();
  private connected?: Promise<void>;
  private readonly timeoutMs: number;
  /** A call that overran its deadline and has not settled yet: until it does, Redis is taken as stalled. */
  private overdue?: Promise<unknown>;

  constructor(
    options: RedisStateOptions,
    private readonly onError: (err: Error) => void = () => {},
  ) {
    this.prefix = options.prefix ?? 'kasir:';
    this.timeoutMs = options.timeoutMs ?? REDIS_TIMEOUT_MS;
    this.channel = `${this.prefix}deposits`;
    // Commands fail at once while Redis is away (no offline queue): a webhook is then answered 503 and retried,
    // a read falls back to this copy's cache, instead of requests hanging until Redis returns.
    this.client = createClient({ url: options.url, disableOfflineQueue: true }) as Client;
    this.subscriber = this.client.duplicate() as Client;
    for (const client of [this.client, this.subscriber]) client.on('error', (err: Error) => this.onError(err));
  }

  /**
   * Connects both clients and subscribes to deposit changes (once; the clients reconnect by themselves after). While
   * Redis cannot be reached, resolves never: callers race it (call()).
   */
  private connect(): Promise<void> {
    this.connected ??= (async () => {
      await Promise.all([this.client.connect(), this.subscriber.connect()]);
      await this.subscriber.subscribe(this.channel, (message) => this.onMessage(message));
    })().catch((err: unknown) => {
      this.connected = undefined; // tried again by the next command
      throw err;
    });
    return this.connected;
  }

  /**
   * Runs `work` (one or a few commands) once Redis can take it, within timeoutMs in all; throws a
   * RedisUnavailableError otherwise, so a request fails fast (a webhook answered 503, a read served from this copy)
   * instead of hanging. Redis answers in order, so once the overdue call settles (answered, or failed with the
   * connection), Redis is taken as answering again.
   */
  private async call<T>(work: () => Promise<T>): Promise<T> {
    if (this.overdue) throw new RedisUnavailableError('Redis is stalled');
    const deadline = Date.now() + this.timeoutMs;
    let timer: NodeJS.Timeout | undefined;
    const late = (ms: number) =>
      new Promise<'late'>((resolve) => {
        timer = setTimeout(resolve, Math.max(0, ms), 'late');
      });
    try {
      if (!this.client.isReady) {
        // Connecting (the first call, or after Redis came back): what is left of the deadline.
        await Promise.race([this.connect().catch(() => undefined), late(this.timeoutMs)]);
        clearTimeout(timer);
        if (!this.client.isReady) throw new RedisUnavailableError('Redis cannot be reached');
      }
      const pending = work();
      const answer = await Promise.race([pending, late(deadline - Date.now())]);
      if (answer !== 'late') return answer;
      this.overdue ??= pending
        .then(
          () => undefined,
          () => undefined,
        )
        .finally(() => {
          this.overdue = undefined;
        });
      throw new RedisUnavailableError(`Redis did not answer within ${this.timeoutMs} ms`);
    } finally {
      clearTimeout(timer);
    }
  }

  readonly idempotency: IdempotencyStore = {
    claim: async (scope, key, fingerprint, { leaseMs }): Promise<IdempotencyClaim> => {
      const token = randomUUID();
      const answer = (await this.call(() =>
        this.script(IDEMPOTENCY_CLAIM, [this.idempotencyKey(scope, key)], [fingerprint, token, String(leaseMs)]),
      )) as string[];
      if (answer[0] === 'claimed') return { state: 'claimed', token };
      if (answer[0] === 'replay')
        return {
          state: 'replay',
          answer: { status: Number(answer[1]), contentType: answer[2] || undefined, body: answer[3] ?? '' },
        };
      return { state: answer[0] === 'mismatch' ? 'mismatch' : 'in-flight' };
    },
    save: async (scope, key, token, answer, ttlMs) => {
      await this.call(() =>
        this.script(
          IDEMPOTENCY_SAVE,
          [this.idempotencyKey(scope, key)],
          [token, String(answer.status), answer.contentType ?? '', answer.body, String(ttlMs)],
        ),
      );
    },
    release: async (scope, key, token) => {
      await this.call(() => this.script(IDEMPOTENCY_RELEASE, [this.idempotencyKey(scope, key)], [token]));
    },
  };

  async claim(key: string, leaseMs: number): Promise<Claim> {
    return this.call(async () => {
      const token = randomUUID();
      const full = this.prefix + key;
      if (await this.client.set(full, token, { condition: 'NX', expiration: { type: 'PX', value: leaseMs } })) {
        return { state: 'claimed', key, token };
      }
      return (await this.client.get(full)) === DONE ? { state: 'done' } : { state: 'busy' };
    });
  }

  async extend(claim: Claim & { state: 'claimed' }, leaseMs: number): Promise<void> {
    await this.call(() => this.script(EXTEND, [this.prefix + claim.key], [claim.token, String(leaseMs)]));
  }

  async finish(claim: Claim & { state: 'claimed' }, ttlMs: number): Promise<void> {
    await this.call(() => this.client.set(this.prefix + claim.key, DONE, { expiration: { type: 'PX', value: ttlMs } }));
  }

  async release(claim: Claim & { state: 'claimed' }): Promise<void> {
    await this.call(() => this.script(RELEASE, [this.prefix + claim.key], [claim.token]));
  }

  async saveCheckout(id: string, checkout: SavedCheckout, ttlMs: number): Promise<void> {
    // Listed for reconcile (sorted by when it lapses from the list, so old entries are trimmed by score).
    const until = Date.now() + ttlMs;
    await this.call(() =>
      this.client
        .multi()
        .set(`${this.prefix}checkout:${id}`, JSON.stringify(checkout), { expiration: { type: 'PX', value: ttlMs } })
        .zAdd(`${this.prefix}checkouts:open`, { score: until, value: id })
        .exec(),
    );
  }

  async markSettled(id: string, at: number): Promise<void> {
    // Moved from the open list to the settled one (scored by when it settled), in one transaction.
    await this.call(() =>
      this.client
        .multi()
        .zRem(`${this.prefix}checkouts:open`, id)
        .zAdd(`${this.prefix}checkouts:settled`, { score: at, value: id })
        .exec(),
    );
  }

  async listCheckouts(settledSince?: number): Promise<string[]> {
    const open = `${this.prefix}checkouts:open`;
    const settled = `${this.prefix}checkouts:settled`;
    const now = Date.now();
    const [, ids, , late] = (await this.call(() =>
      this.client
        .multi()
        .zRemRangeByScore(open, '-inf', now)
        .zRange(open, 0, -1)
        .zRemRangeByScore(settled, '-inf', now - CHECKOUT_LIST_TTL_MS)
        .zRangeByScore(settled, settledSince ?? '+inf', '+inf')
        .exec(),
    )) as unknown as [number, string[], number, string[]];
    return [...ids, ...late];
  }

  async saveOrder(orderId: string, order: SavedOrder, ttlMs: number): Promise<void> {
    await this.call(() =>
      this.client.set(`${this.prefix}order:${orderId}`, JSON.stringify(order), {
        expiration: { type: 'PX', value: ttlMs },
      }),
    );
  }

  async loadOrder(orderId: string): Promise<SavedOrder | undefined> {
    const json = await this.call(() => this.client.get(`${this.prefix}order:${orderId}`));
    return json ? (JSON.parse(json) as SavedOrder) : undefined;
  }

  async loadCheckout(id: string): Promise<SavedCheckout | undefined> {
    const json = await this.call(() => this.client.get(`${this.prefix}checkout:${id}`));
    return json ? (JSON.parse(json) as SavedCheckout) : undefined;
  }

  async readDeposit(id: string, refreshMs: number): Promise<SharedDepositRead> {
    if (refreshMs <= 0) return { kind: 'load' };
    const [kind, json, age] = (await this.call(() =>
      this.script(READ_DEPOSIT, [this.depositKey(id), `${this.depositKey(id)}:reading`], [String(refreshMs)]),
    )) as [string, string?, number?];
    if (kind === 'fresh') return { kind, deposit: JSON.parse(json!) as StoredDeposit | null, ageMs: Number(age) };
    if (kind === 'load') return { kind };
    return json ? { kind: 'wait', deposit: JSON.parse(json) as StoredDeposit | null } : { kind: 'wait' };
  }

  async storeDeposit(id: string, deposit: StoredDeposit | null, ttlMs: number): Promise<StoredDeposit | null> {
    const json = JSON.stringify(deposit);
    const terminal = deposit?.status === 'completed' || deposit?.status === 'expired';
    const version = deposit?.version ?? 0;
    const stored = (await this.call(() =>
      this.script(
        STORE_DEPOSIT,
        [this.depositKey(id)],
        [json, terminal ? '1' : '0', String(version), String(ttlMs), this.channel, `${this.copyId}\t${id}\t`],
      ),
    )) as string;
    return stored === json ? deposit : (JSON.parse(stored) as StoredDeposit | null);
  }

  onDepositChange(listener: DepositChangeListener): void {
    this.listeners.push(listener);
  }

  rateLimitStore(prefix: string): Store {
    // hono-rate-limiter's RedisStore speaks to a minimal client shape; node-redis's calls differ only in names.
    return new RedisStore({
      prefix: `${this.prefix}${prefix}`,
      client: {
        scriptLoad: (script) => this.call(() => this.client.scriptLoad(script)),
        evalsha: async <TArgs extends unknown[], TData = unknown>(sha: string, keys: string[], args: TArgs) =>
          (await this.call(() => this.client.evalSha(sha, { keys, arguments: args.map(String) }))) as TData,
        decr: (key) => this.call(() => this.client.decr(key)),
        del: (key) => this.call(() => this.client.del(key)),
      },
    });
  }

  async ping(): Promise<void> {
    await this.call(() => this.client.ping());
  }

  async close(): Promise<void> {
    for (const client of [this.subscriber, this.client]) {
      if (client.isReady) await client.close().catch(() => client.destroy());
      else if (client.isOpen) client.destroy();
    }
  }

  private idempotencyKey(scope: string, key: string) {
    return `${this.prefix}idempotency:${idempotencyId(scope, key)}`;
  }

  private depositKey(id: string) {
    return `${this.prefix}deposit:${id}`;
  }

  private onMessage(message: string) {
    const [from, id] = message.split('\t', 2);
    if (from === this.copyId || !id) return;
    let deposit: StoredDeposit | null;
    try {
      deposit = JSON.parse(message.slice(from!.length + id.length + 2)) as StoredDeposit | null;
    } catch {
      return;
    }
    for (const listener of this.listeners) listener(id, deposit);
  }

  /** EVALSHA, loading the script the first time and again after a Redis restart (NOSCRIPT). */
  private async script(source: string, keys: string[], args: string[]): Promise<unknown> {
    let sha = this.shas.get(source);
    if (sha) {
      try {
        return await this.client.evalSha(sha, { keys, arguments: args });
      } catch (err) {
        if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
      }
    }
    sha = await this.client.scriptLoad(source);
    this.shas.set(source, sha);
    return this.client.evalSha(sha, { keys, arguments: args });
  }
}
