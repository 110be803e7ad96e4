// The follower (docs/orders.md, "No order left pending"): every open checkout this backend made is read again from the
// payment service at a paced interval, whether or not a shopper watches and whether or not webhooks arrive, and a
// change found runs its hooks as the webhook would (reconcile.ts runMissedHooks, under the same once-per-event claims:
// a webhook and the follower never both run a hook). The set of open checkouts is the shared state's (the data dir or
// Redis), so it survives a restart; on Redis a checkout's read of an interval is claimed for that interval, so one copy
// in all reads it. It stops following a checkout 10 minutes after its expiry, and once its deposit completed.
import TinyQueue from 'tinyqueue';
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
/**
 * The share of its interval after which a checkout's read claim lapses, and the least time between two reads of it by
 * one copy: a read that came later than the rest of the interval moves its schedule on, rather than being followed by
 * the next too soon (or by a claim its own lease still holds).
 */
const LEASE_SHARE = 7 / 8;
/** How much faster than the schedule's own rate reads may start: what catches up after a stall, without a burst. */
const CATCH_UP = 1.5;
/**
 * How far behind the pace reads may start back to back: a few, or what this long a wait let pile up (a timer that
 * fired late on a busy machine), so the pace holds however coarse the timers, yet a stall is caught up at its pace.
 */
const BURST = 2;
const BURST_MS = 25;
/** Reads in flight at once (a slow link: the pace starts them, this bounds how many wait on the service together). */
const CONCURRENCY = 32;
/** A change older than this (or than the interval, when shorter) that no webhook had brought: webhooks are missing. */
const WEBHOOK_GRACE_MS = 10_000;
/** Ids this copy finished with (completed, or past the follow window), remembered so they are not read again. */
const MAX_FINISHED = 100_000;

/** The interval at which a checkout expiring at `expiresAt` (unknown: undefined) is read, at `now`. */
function followInterval(followMs: number, expiresAt: number | undefined, now: number): number {
  return expiresAt !== undefined && expiresAt - now > FAR_FROM_EXPIRY_MS ? followMs * FAR_PACE : followMs;
}

/** The longest a change waits for the follower's read with `followMs`: the first listing, then the slowest pace. */
export function worstFollowDelay(followMs: number): number {
  return firstListingAfter(followMs) + followMs * FAR_PACE;
}

/** When a copy first lists the shared state after it starts: its checkouts then come due over the slower interval. */
function firstListingAfter(followMs: number): number {
  return Math.ceil(followMs / 4);
}

/** What one read of a checkout told the follower. */
interface FollowOutcome {
  /** Its deposit's expiry, or the checkout page's when no method was chosen (ms since the epoch). */
  expiresAt?: number;
  /** Nothing more can happen to it that the follower must see. */
  finished: boolean;
}

/** A copy's hold on a checkout's read. */
interface ReadLease {
  /** Holds it `leaseMs` from now instead. */
  renew(leaseMs: number): Promise<void>;
}

/** A one-shot timer: `fire` after `ms`, unless stopped. */
type After = (ms: number, fire: () => void) => { stop(): void };

export interface FollowerDeps {
  /** The checkouts to follow: open ones, and those settled within the follow window after expiry. */
  list(settledSince: number): Promise<string[]>;
  /** Takes the read of `id` for `leaseMs` (one copy per interval); undefined when another copy holds it. */
  claim(id: string, leaseMs: number): Promise<ReadLease | undefined>;
  /** Reads the checkout from the service and runs the hooks of what changed. */
  follow(id: string): Promise<FollowOutcome>;
  now: () => number;
  /** Timers, injected so tests drive the schedule (default setTimeout, unref'd). */
  after?: After;
  log?: Logger;
}

/** One checkout followed by this copy. */
interface Scheduled {
  id: string;
  /** When its next read is due: its last due time plus its interval, whenever that read actually came. */
  dueAt: number;
  interval: number;
  expiresAt?: number;
  /** When this copy last read it (none yet: -Infinity). */
  readAt: number;
  /** When this copy took it up: a listing begun before then may not hold it yet. */
  since: number;
  /** Not followed any more (unlisted, or finished): let go of when it comes up. */
  dropped: boolean;
}

/**
 * Paces the reads of the open checkouts: see the file's head. Each checkout's reads keep to its own schedule (due every
 * interval from its first), and reads start one by one as they come due, spaced at least by what the schedule's rate
 * allows (plus a margin to catch up), so their answers do not arrive together and hold up the shoppers' requests. The
 * listing of the shared state that finds other copies' checkouts (and drops the settled ones) runs apart, once an
 * interval.
 */
export class Follower {
  private readonly schedule = new Map<string, Scheduled>();
  /** The followed checkouts by due time, soonest first. */
  private readonly due = new TinyQueue<Scheduled>([], (a, b) => a.dueAt - b.dueAt);
  private readonly finished = new Set<string>();
  private readonly after: After;
  private running = false;
  private listTimer?: { stop(): void };
  private wake?: { at: number; timer: { stop(): void } };
  /** Reads due per ms in all, at the followed checkouts' intervals. */
  private rate = 0;
  /** The earliest the next read may start. */
  private nextStartAt = -Infinity;
  private readonly inFlight = new Set<Promise<void>>();
  private listing?: Promise<void>;
  /** Reads made by this copy since it started. */
  reads = 0;
  private lastFailureToldAt = -Infinity;

  constructor(
    private readonly followMs: number,
    private readonly deps: FollowerDeps,
  ) {
    this.after =
      deps.after ??
      ((ms, fire) => {
        const timer = setTimeout(fire, ms).unref();
        return { stop: () => clearTimeout(timer) };
      });
  }

  /** Lists the open checkouts a quarter interval from now, then once an interval, and reads them as they come due. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.listEvery(firstListingAfter(this.followMs));
    this.pump();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.listTimer?.stop();
    this.listTimer = undefined;
    this.wake?.timer.stop();
    this.wake = undefined;
    await Promise.all([this.listing, ...this.inFlight]);
  }

  /** A checkout this copy just made: its first read is one interval away. */
  add(id: string): void {
    if (this.schedule.has(id)) return;
    const now = this.deps.now();
    this.take(id, now + this.followMs, now);
    this.pump();
  }

  /** How many checkouts this copy follows now. */
  get size(): number {
    return this.schedule.size;
  }

  private listEvery(ms: number): void {
    this.listTimer = this.after(ms, () => {
      if (!this.running) return;
      this.listing ??= this.list().finally(() => {
        this.listing = undefined;
      });
      this.listEvery(this.followMs);
    });
  }

  /** Takes up the listed checkouts not followed yet, lets go of those no longer listed. */
  private async list(): Promise<void> {
    const now = this.deps.now();
    let ids: string[];
    try {
      ids = await this.deps.list(now - AFTER_EXPIRY_MS);
    } catch (err) {
      this.deps.log?.warn({ err: messageOf(err) }, 'follower: the open checkouts could not be listed');
      return;
    }
    if (!this.running) return;
    const listed = new Set(ids);
    for (const entry of this.schedule.values()) if (!listed.has(entry.id) && entry.since < now) this.drop(entry);
    for (const id of ids) {
      // First seen (a restart, another copy's checkout): spread over the slower interval, so a restart with thousands
      // open does not read them all at once, and the reads of those far from expiry (not known yet) fall evenly
      // over theirs.
      if (!this.schedule.has(id) && !this.finished.has(id))
        this.take(id, now + Math.floor(Math.random() * this.followMs * FAR_PACE), now);
    }
    this.pump();
  }

  private take(id: string, dueAt: number, now: number): void {
    const entry: Scheduled = { id, dueAt, interval: this.followMs, readAt: -Infinity, since: now, dropped: false };
    this.schedule.set(id, entry);
    this.rate += 1 / entry.interval;
    this.due.push(entry);
  }

  private drop(entry: Scheduled): void {
    if (entry.dropped) return; // unlisted while its read ran, and finished by it
    entry.dropped = true;
    if (this.schedule.get(entry.id) === entry) this.schedule.delete(entry.id);
    this.rate -= 1 / entry.interval;
  }

  /** Starts every read due, as the pace and the bound in flight allow; sets the timer for the next. */
  private pump(): void {
    while (this.running && this.inFlight.size < CONCURRENCY) {
      const head = this.due.peek();
      if (!head) return;
      if (head.dropped) {
        this.due.pop();
        continue;
      }
      const now = this.deps.now();
      const at = Math.max(head.dueAt, this.nextStartAt);
      if (at > now) {
        this.wakeAt(at, now);
        return;
      }
      this.due.pop();
      const spacing = this.rate > 0 ? 1 / (this.rate * CATCH_UP) : 0;
      this.nextStartAt = Math.max(this.nextStartAt, now - Math.max(BURST * spacing, BURST_MS)) + spacing;
      const reading = this.read(head, now).finally(() => {
        this.inFlight.delete(reading);
        this.pump();
      });
      this.inFlight.add(reading);
    }
  }

  private wakeAt(at: number, now: number): void {
    if (this.wake && this.wake.at <= at) return;
    this.wake?.timer.stop();
    this.wake = {
      at,
      timer: this.after(Math.max(1, Math.ceil(at - now)), () => {
        this.wake = undefined;
        this.pump();
      }),
    };
  }

  private async read(entry: Scheduled, at: number): Promise<void> {
    let interval = entry.interval;
    try {
      const lease = await this.deps.claim(entry.id, Math.floor(interval * LEASE_SHARE));
      if (lease) {
        this.reads++;
        entry.readAt = at;
        const outcome = await this.deps.follow(entry.id);
        if (outcome.finished) {
          this.finish(entry);
          return;
        }
        entry.expiresAt = outcome.expiresAt;
        interval = followInterval(this.followMs, outcome.expiresAt, at);
        // Its pace changed (its expiry now known, or near): the claim then covers this copy's next read's interval.
        if (interval !== entry.interval)
          await lease.renew(Math.max(1, at + Math.floor(interval * LEASE_SHARE) - this.deps.now()));
      } // else another copy reads it this interval
    } catch (err) {
      this.failed(entry.id, err);
    }
    if (entry.dropped) return;
    // Its next read one interval after this one was due (later if this one came late: see LEASE_SHARE).
    entry.dueAt = Math.max(entry.dueAt + interval, entry.readAt + Math.floor(interval * LEASE_SHARE));
    this.rate += 1 / interval - 1 / entry.interval;
    entry.interval = interval;
    this.due.push(entry);
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

  private finish(entry: Scheduled) {
    this.drop(entry);
    if (this.finished.size >= MAX_FINISHED) this.finished.delete(this.finished.values().next().value!);
    this.finished.add(entry.id);
  }
}

/** The read lease of a copy with no other (nothing to hold). */
const ALONE: ReadLease = { renew: async () => undefined };

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
        `registered at the payment service's dashboard (${options.webhookUrlHint}), unless this backend was down when ` +
        `it was sent (the service retries it; nothing runs twice). Orders are still marked paid, ` +
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
    claim: async (id, leaseMs) => {
      if (!shared.distributed) return ALONE;
      const claim = await shared.claim(`follow:${id}`, leaseMs);
      return claim.state === 'claimed' ? { renew: (ms) => shared.extend(claim, ms) } : undefined;
    },
    follow,
    now,
    log: options.log,
  });
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
