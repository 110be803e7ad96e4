// The follower (docs/orders.md, "No order left pending"): every open checkout this backend made is read again from the
// payment service at a paced interval, whether or not a shopper watches and whether or not webhooks arrive, and a
// change found runs its hooks as the webhook would (reconcile.ts runMissedHooks, under the same once-per-event claims:
// a webhook and the follower never both run a hook). The set of open checkouts is the shared state's (the data dir or
// Redis), so it survives a restart; on Redis a checkout's read of an interval is claimed for that interval, so one copy
// in all reads it. It stops following a checkout 10 minutes after its expiry, and once its deposit completed.
import { PaymentServiceError } from '../client/errors.js';
import type { Deposit as UpstreamDeposit } from '../client/types.js';
import type { Logger } from '../../common/log.js';
import { runMissedHooks } from './reconcile.js';
import type { MerchantService } from '../widget-api/service.js';
import type { DeliveryHooks } from './receiver.js';

/** A checkout is followed this long past its expiry (a payment may still arrive late). */
const AFTER_EXPIRY_MS = 10 * 60_000;
/** A checkout whose method is not chosen yet closes this long after it was made (the interface's page validity). */
const CHECKOUT_PAGE_MS = 15 * 60_000;
/** A checkout further than this from its expiry is read at the slower pace. */
const FAR_FROM_EXPIRY_MS = 60 * 60_000;
/** How much slower a checkout far from expiry is read (the worst delay then stays within a minute at the default). */
const FAR_PACE = 2;
/** Ticks per interval: a due checkout waits at most this fraction of an interval for its read. */
const TICKS_PER_INTERVAL = 4;
/** Reads in flight at once (a pass must keep up with 10,000 open checkouts per interval on a slow link). */
const CONCURRENCY = 32;
/** A change older than this (or than the interval, when shorter) that no webhook had brought: webhooks are missing. */
const WEBHOOK_GRACE_MS = 10_000;
/** Ids this copy finished with (completed, or past the follow window), remembered so they are not read again. */
const MAX_FINISHED = 100_000;

/** The interval at which a checkout expiring at `expiresAt` (unknown: undefined) is read, at `now`. */
function followInterval(followMs: number, expiresAt: number | undefined, now: number): number {
  return expiresAt !== undefined && expiresAt - now > FAR_FROM_EXPIRY_MS ? followMs * FAR_PACE : followMs;
}

/** The longest a change waits for the follower's read with `followMs` (the slowest pace plus one tick). */
export function worstFollowDelay(followMs: number): number {
  return followMs * FAR_PACE + Math.ceil(followMs / TICKS_PER_INTERVAL);
}

/** What one read of a checkout told the follower. */
interface FollowOutcome {
  /** Its deposit's expiry, or the checkout page's when no method was chosen (ms since the epoch). */
  expiresAt?: number;
  /** Nothing more can happen to it that the follower must see. */
  finished: boolean;
}

export interface FollowerDeps {
  /** The checkouts to follow: open ones, and those settled within the follow window after expiry. */
  list(settledSince: number): Promise<string[]>;
  /** Takes the read of `id` for `leaseMs` (one copy per interval); false when another copy holds it. */
  claim(id: string, leaseMs: number): Promise<boolean>;
  /** Reads the checkout from the service and runs the hooks of what changed. */
  follow(id: string): Promise<FollowOutcome>;
  now: () => number;
  /** Timers, injected so tests drive the schedule (default setInterval, unref'd). */
  every?: (ms: number, tick: () => void) => { stop(): void };
  log?: Logger;
}

interface Scheduled {
  dueAt: number;
  expiresAt?: number;
}

/** Paces the reads of the open checkouts: see the file's head. */
export class Follower {
  private readonly schedule = new Map<string, Scheduled>();
  private readonly finished = new Set<string>();
  private timer?: { stop(): void };
  private ticking?: Promise<number>;
  /** Reads made by this copy since it started. */
  reads = 0;
  private lastFailureToldAt = -Infinity;

  constructor(
    private readonly followMs: number,
    private readonly deps: FollowerDeps,
  ) {}

  /** Ticks a few times per interval until stop(). */
  start(): void {
    const every =
      this.deps.every ??
      ((ms: number, tick: () => void) => {
        const timer = setInterval(tick, ms).unref();
        return { stop: () => clearInterval(timer) };
      });
    this.timer ??= every(Math.max(1, Math.floor(this.followMs / TICKS_PER_INTERVAL)), () => void this.tick());
  }

  async stop(): Promise<void> {
    this.timer?.stop();
    this.timer = undefined;
    await this.ticking?.catch(() => undefined);
  }

  /** A checkout this copy just made: its first read is one interval away. */
  add(id: string): void {
    if (!this.schedule.has(id)) this.schedule.set(id, { dueAt: this.deps.now() + this.followMs });
  }

  /** How many checkouts this copy follows now (what it last listed). */
  get size(): number {
    return this.schedule.size;
  }

  /** One pass: reads every checkout due (a tick already running is waited for, not doubled); answers the reads made. */
  tick(): Promise<number> {
    this.ticking ??= this.pass().finally(() => {
      this.ticking = undefined;
    });
    return this.ticking;
  }

  private async pass(): Promise<number> {
    const now = this.deps.now();
    let ids: string[];
    try {
      ids = await this.deps.list(now - AFTER_EXPIRY_MS);
    } catch (err) {
      this.deps.log?.warn({ err: messageOf(err) }, 'follower: the open checkouts could not be listed');
      return 0;
    }
    const listed = new Set(ids);
    for (const id of this.schedule.keys()) if (!listed.has(id)) this.schedule.delete(id);
    const due: string[] = [];
    for (const id of ids) {
      if (this.finished.has(id)) continue;
      let entry = this.schedule.get(id);
      if (!entry) {
        // First seen (a restart, another copy's checkout): spread over one interval, so a restart with thousands
        // open does not read them all at once.
        entry = { dueAt: now + Math.floor(Math.random() * this.followMs) };
        this.schedule.set(id, entry);
      }
      if (entry.dueAt <= now) due.push(id);
    }
    // In an order of this copy's own: copies on Redis then split the due checkouts between them instead of racing for
    // the same claims.
    for (let i = due.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [due[i], due[j]] = [due[j]!, due[i]!];
    }
    let reads = 0;
    let next = 0;
    const worker = async () => {
      while (next < due.length) {
        const id = due[next++]!;
        const entry = this.schedule.get(id)!;
        const at = this.deps.now();
        const interval = followInterval(this.followMs, entry.expiresAt, at);
        entry.dueAt = at + interval;
        try {
          if (!(await this.deps.claim(id, interval))) continue; // another copy reads it this interval
          reads++;
          this.reads++;
          const outcome = await this.deps.follow(id);
          // Its next read at the pace its expiry (known now) sets.
          entry.expiresAt = outcome.expiresAt;
          entry.dueAt = at + followInterval(this.followMs, outcome.expiresAt, at);
          if (outcome.finished) this.finish(id);
        } catch (err) {
          this.failed(id, err);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, due.length) }, worker));
    return reads;
  }

  /** A read or a hook failed (tried again next interval): told at most once a minute, however many fail. */
  private failed(id: string, err: unknown) {
    const now = this.deps.now();
    if (now - this.lastFailureToldAt < 60_000) return;
    this.lastFailureToldAt = now;
    this.deps.log?.warn(
      { checkoutId: id, err: messageOf(err) },
      'follower: a checkout could not be followed (tried again at its next interval)',
    );
  }

  private finish(id: string) {
    this.schedule.delete(id);
    if (this.finished.size >= MAX_FINISHED) this.finished.delete(this.finished.values().next().value!);
    this.finished.add(id);
  }
}

/**
 * The follower of a merchant service: its checkouts from the shared state, each read claimed on Redis, the hooks of a
 * change run as a delivery runs them. Tells once when it ran a hook whose webhook never came.
 */
export function createFollower(
  service: MerchantService,
  hooks: DeliveryHooks,
  options: {
    followMs: number;
    log: Logger;
    every?: FollowerDeps['every'];
    /** Where the shop is told to check its webhooks (the URL registered at the service). */
    webhookUrlHint: string;
  },
): Follower {
  const { shared } = service;
  const now = service.now;
  let told = false;
  const missedWebhook = (deposit: UpstreamDeposit, hooksRun: string[]) => {
    const changedAt = Date.parse(deposit.updatedAt);
    const grace = Math.min(WEBHOOK_GRACE_MS, options.followMs);
    if (told || !(now() - changedAt >= grace)) return;
    told = true;
    options.log.warn(
      { checkoutId: deposit.depositId, hooks: hooksRun, check: ['KASIR_WEBHOOK_SECRET', 'webhook URL'] },
      `the follower ran ${hooksRun.join(', ')} for checkout ${deposit.depositId}: its webhook never reached this backend. ` +
        `Check KASIR_WEBHOOK_SECRET (webhookSecret: the service's webhook secret for this shop) and the webhook URL ` +
        `registered at the payment service's dashboard (${options.webhookUrlHint}). Orders are still marked paid, ` +
        `within ${Math.ceil(worstFollowDelay(options.followMs) / 1000)} s instead of at once`,
    );
  };

  const follow = async (id: string): Promise<FollowOutcome> => {
    let deposit: UpstreamDeposit | undefined;
    try {
      deposit = await service.client.getDeposit(id);
      if (deposit.depositId !== id) deposit = undefined; // answered by reference: not this checkout's
    } catch (err) {
      if (!(err instanceof PaymentServiceError && err.statusCode === 404)) throw err;
    }
    const t = now();
    if (!deposit) {
      // No method chosen yet: the checkout page closes 15 minutes after it was made.
      const createdAt = (await service.savedCheckout(id))?.createdAt;
      const expiresAt = createdAt === undefined ? undefined : createdAt + CHECKOUT_PAGE_MS;
      if (expiresAt !== undefined && t > expiresAt + AFTER_EXPIRY_MS) {
        await shared.markSettled(id, t); // lapsed unused: nothing can happen to it
        return { expiresAt, finished: true };
      }
      return { expiresAt, finished: false };
    }
    // What shoppers see too (the cache, every copy's streams), when this copy holds it or it changed from pending: an
    // unwatched pending checkout costs no projection (most of the follower's reads).
    if (deposit.status !== 'pending' || deposit.payments?.length || service.deposits.peek(id) !== undefined)
      await service.deposits.update(await service.view(deposit)).catch(() => undefined);
    const ran = await runMissedHooks(hooks, deposit);
    if (ran.length) missedWebhook(deposit, ran);
    const expiresAt = Date.parse(deposit.expiredAt);
    const known = Number.isNaN(expiresAt) ? undefined : expiresAt;
    if (deposit.status === 'completed') {
      await service.settleIfFinal(deposit);
      return { expiresAt: known, finished: true };
    }
    if (deposit.status === 'expired') {
      // Followed for late payments until the window closes; settled then (a webhook may have settled it before).
      const finished = t > (known ?? t) + AFTER_EXPIRY_MS;
      if (finished) await service.settleIfFinal(deposit);
      return { expiresAt: known, finished };
    }
    return { expiresAt: known, finished: false };
  };

  return new Follower(options.followMs, {
    list: (settledSince) => shared.listCheckouts(settledSince),
    // One process needs no claim; copies on Redis share one read per checkout per interval (the claim lapses then).
    claim: async (id, leaseMs) =>
      !shared.distributed || (await shared.claim(`follow:${id}`, leaseMs)).state === 'claimed',
    follow,
    now,
    every: options.every,
    log: options.log,
  });
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
