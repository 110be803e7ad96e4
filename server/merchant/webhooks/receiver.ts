// The webhook receiver: Standard Webhooks v1 verification and staleness, dedupe on webhook-id (in the shared state:
// across copies and restarts), then the cache update (which wakes SSE listeners) and the merchant's hook for the event:
// completed, expired, partially paid or paid late (docs/design.md, "Payments that do not go as planned"), a failed
// attempt (docs/indonesian-payments.md). Also verifyWebhook, typed with the service's webhook bodies, for a shop with a
// receiver of its own.
import { Decimal } from 'decimal.js';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { setTimeout as sleep } from 'node:timers/promises';
import { verifyWebhook as verifyStandardWebhook, WebhookVerificationError } from '../../common/standard-webhooks.js';
import type { Logger } from '../../common/log.js';
import { ConfigError } from '../config.js';
import type { webhooks } from '../client/openapi.js';
import type { Deposit as UpstreamDeposit } from '../client/types.js';
import { errorBody } from '../http.js';
import { isCheckoutId } from '../../common/widget-api.js';
import type { DepositHookEvent, DepositPayment, ExpiredDeposit, MerchantHooks } from '../hooks.js';
import type { MerchantService } from '../widget-api/service.js';
import type { Claim } from '../state/shared-state.js';
import type { Warnings } from '../warnings.js';
import type { MerchantMetrics } from '../observability/metrics.js';

type HookName = Exclude<keyof MerchantHooks, 'priceOrder' | 'onCheckoutCreated'>;

/**
 * The body of a payment-service webhook: one of the `webhooks` of its OpenAPI document (docs/design.md, "Webhooks" and
 * "Payments that do not go as planned").
 */
export type KasirWebhookEvent = {
  [E in keyof webhooks]: NonNullable<webhooks[E]['post']>['requestBody']['content']['application/json'];
}[keyof webhooks];

/**
 * The hook each event type of the service's document runs (its types generated into client/openapi.ts): an event type
 * the document gains fails to compile here until it has its hook, and hookOf below its dispatch.
 */
const EVENT_HOOKS = {
  'deposit.completed': 'onDepositCompleted',
  'deposit.expired': 'onDepositExpired',
  'deposit.partially_paid': 'onDepositPartiallyPaid',
  'deposit.paid_late': 'onDepositPaidLate',
  'deposit.payment_failed': 'onPaymentFailed',
} as const satisfies Record<KasirWebhookEvent['type'], HookName>;

/** A webhook event's type: a key of EVENT_HOOKS. */
export type WebhookEventType = KasirWebhookEvent['type'];

/** Whether a webhook's `type` is an event this receiver knows (EVENT_HOOKS): any other is refused, never ignored. */
export const isWebhookEventType = (type: string): type is WebhookEventType => Object.hasOwn(EVENT_HOOKS, type);

/** What every hook of a deposit's event is given. */
type DepositEventBase = DepositHookEvent;

/** A deposit event's hook as run once: its claim key (once per what), its name, and the call (none without a hook). */
export interface HookCall {
  key: string;
  name: HookName;
  run?: () => void | Promise<void>;
}

/**
 * How each event's hook is called (its claim key and arguments), one row per event of EVENT_HOOKS: an event the
 * document gains fails to compile here until it has its row. A row answers undefined when the deposit lacks what its
 * event reports (a partial payment with no payment, a failure with no lastFailure).
 */
const EVENT_CALLS: {
  [E in WebhookEventType]: (
    deposit: UpstreamDeposit,
    hooks: MerchantHooks,
    base: () => Promise<DepositEventBase>,
  ) => HookCall | undefined;
} = {
  'deposit.partially_paid': (deposit, { onDepositPartiallyPaid: hook }, base) => {
    const payment = paymentOf(deposit);
    if (!payment) return undefined;
    return {
      name: EVENT_HOOKS['deposit.partially_paid'],
      key: `hook:partially_paid:${deposit.depositId}:${deposit.payments.length}`,
      run:
        hook &&
        (async () => hook({ ...(await base()), payment, remainingAmount: amountText(deposit.remainingAmount) })),
    };
  },
  'deposit.paid_late': (deposit, { onDepositPaidLate: hook }, base) => {
    const payment = paymentOf(deposit);
    if (!payment) return undefined;
    return {
      name: EVENT_HOOKS['deposit.paid_late'],
      key: `hook:paid_late:${deposit.depositId}:${deposit.payments.length}`,
      run: hook && (async () => hook({ ...(await base()), payment })),
    };
  },
  // Once per attempt: each failure has its own time.
  'deposit.payment_failed': (deposit, { onPaymentFailed: hook }, base) => {
    const failure = deposit.lastFailure;
    if (!failure) return undefined;
    return {
      name: EVENT_HOOKS['deposit.payment_failed'],
      key: `hook:payment_failed:${deposit.depositId}:${failure.failedAt}`,
      run: hook && (async () => hook({ ...(await base()), reason: failure.reason, failedAt: failure.failedAt })),
    };
  },
  'deposit.completed': (deposit, { onDepositCompleted: hook }, base) => ({
    name: EVENT_HOOKS['deposit.completed'],
    key: `hook:completed:${deposit.depositId}`,
    run:
      hook &&
      (async () =>
        hook({
          ...(await base()),
          overpaidAmount: amountText(deposit.overpaidAmount),
          overpaidValue: amountText(deposit.overpaidValue),
        })),
  }),
  'deposit.expired': (deposit, { onDepositExpired: hook }, base) => ({
    name: EVENT_HOOKS['deposit.expired'],
    key: `hook:expired:${deposit.depositId}`,
    run: hook && (async () => hook({ ...(await base()), received: receivedOf(deposit) })),
  }),
};

/** The event a deposit's final status is (completed, expired); none while it is pending. */
const statusEvent = (deposit: UpstreamDeposit): 'deposit.completed' | 'deposit.expired' | undefined =>
  deposit.status === 'completed' ? 'deposit.completed' : deposit.status === 'expired' ? 'deposit.expired' : undefined;

/**
 * Verifies one delivery (Standard Webhooks v1: `webhook-id`, `webhook-timestamp`, `webhook-signature`) against the
 * raw body exactly as received, and returns its parsed event. Throws WebhookVerificationError (`reason` says which
 * check failed) for missing headers, a stale or future timestamp, a bad signature or a body that is not a JSON
 * object. Deduplicate on the `webhook-id` header: a sender retries with the same id.
 */
export const verifyWebhook = verifyStandardWebhook<KasirWebhookEvent>;

export interface WebhookReceiverOptions {
  /** Asked per delivery: the connection settings may be read at the first request. */
  secret: () => string;
  toleranceSeconds: number;
  now?: () => number;
  log: Logger;
  warnings: Warnings;
  /** Counts each delivery by how it was answered (kasir_webhooks_received_total), when metrics are on. */
  metrics?: MerchantMetrics;
}

/**
 * A claim on a webhook id or a deposit's hook lapses this long after its holder stopped renewing it (a crash); it is
 * renewed while the work runs, however long a hook takes.
 */
const LEASE_MS = 10_000;
/** A processed webhook id is remembered longer than the sender retries one (its schedule spans about 3 days). */
const WEBHOOK_TTL_MS = 4 * 24 * 3600_000;
/** A deposit's hook is remembered as run longer than anyone may resend its webhooks. */
const HOOK_TTL_MS = 30 * 24 * 3600_000;

/**
 * How long a request waits for another one holding the same webhook or deposit's hook before answering 503: longer
 * than a lease, so a retry that finds a crashed copy's claim takes it over once it lapses.
 */
const BUSY_WAIT_MS = LEASE_MS + 2_000;

/** An amount of the service's Deposit (a JSON number) as exact decimal text; "0" when absent. */
function amountText(value: unknown): string {
  return typeof value === 'number' && Number.isFinite(value) ? new Decimal(value).toFixed() : '0';
}

/** The payment an event reports: the deposit's newest. */
function paymentOf(deposit: UpstreamDeposit): DepositPayment | undefined {
  const last = Array.isArray(deposit.payments) ? deposit.payments.at(-1) : undefined;
  if (!last) return undefined;
  return {
    amount: amountText(last.amount),
    currency: last.currency,
    ...(last.method ? { method: last.method } : {}),
    receivedAt: last.receivedAt,
    late: last.late === true,
  };
}

/** The Deposit's figures a receiver computes with (docs/money.md): each a finite JSON number when present. */
const FIGURES = [
  'inputAmount',
  'outputAmount',
  'paidAmount',
  'remainingAmount',
  'overpaidAmount',
  'paidValue',
  'remainingValue',
  'overpaidValue',
] as const;

/**
 * The first figure of a webhook's deposit that is no finite number (null, text, a number too large for JSON), by its
 * path; undefined when every figure present is one. Older senders may leave a figure out; a present one must be sound.
 */
function badFigure(deposit: UpstreamDeposit): string | undefined {
  const record = deposit as unknown as Record<string, unknown>;
  const sound = (value: unknown) => typeof value === 'number' && Number.isFinite(value);
  for (const field of FIGURES) if (field in record && !sound(record[field])) return field;
  const payments = record.payments;
  if (payments !== undefined && !Array.isArray(payments)) return 'payments';
  for (const [i, p] of ((payments as unknown[] | undefined) ?? []).entries()) {
    const payment = (p ?? {}) as Record<string, unknown>;
    if (!sound(payment.amount)) return `payments[${i}].amount`;
    if ('value' in payment && !sound(payment.value)) return `payments[${i}].value`;
  }
  return undefined;
}

/** Another request is processing the same webhook or running the same deposit's hook now: the sender retries. */
class BusyError extends Error {}

/** The once-per-event hooks of deposits, as a webhook delivery runs them (and reconcile: ./reconcile.ts). */
export type DeliveryHooks = ReturnType<typeof deliveryHooks>;

/** The claims and hooks of deposits' events, shared by the receiver and reconcile so that each hook runs once. */
export function deliveryHooks(service: MerchantService, options: Pick<WebhookReceiverOptions, 'warnings'>) {
  const { shared } = service;

  /** A claim, waiting while another request (on any copy) holds the key: it finishes (done) or lets go (claimed). */
  const claimWaiting = async (key: string): Promise<Claim> => {
    const deadline = Date.now() + BUSY_WAIT_MS;
    for (;;) {
      const claim = await shared.claim(key, LEASE_MS);
      if (claim.state !== 'busy' || Date.now() >= deadline) return claim;
      await sleep(25);
    }
  };
  /** Runs `work` while renewing the claim's lease. */
  const holding = async <T>(claim: Claim & { state: 'claimed' }, work: () => Promise<T>): Promise<T> => {
    const renew = setInterval(() => void shared.extend(claim, LEASE_MS).catch(() => undefined), LEASE_MS / 3);
    try {
      return await work();
    } finally {
      clearInterval(renew);
    }
  };

  /**
   * Runs the hook of a deposit's event unless it ran (on any copy, before any restart). Claimed first, so two
   * deliveries of one event (a retry, a dashboard "Resend" with a new webhook id) cannot both run it; released when it
   * throws, so the retry runs it; marked done once it returned. A crash between its return and the mark is the one
   * window in which it runs again, with the same eventId (the delivery's webhook-id): the shop keys its write on it
   * (README "Idempotent hooks").
   */
  const runHookOnce = async (
    key: string,
    name: HookName,
    hook: (() => void | Promise<void>) | undefined,
  ): Promise<boolean> => {
    if (!hook) return false;
    const claim = await claimWaiting(key);
    if (claim.state === 'done') return false;
    if (claim.state === 'busy') throw new BusyError(`the hook ${key} is running`);
    try {
      await holding(claim, async () => {
        try {
          await hook();
        } catch (err) {
          options.warnings.hookFailed(name, err, { key });
          throw err;
        }
      });
    } catch (err) {
      await shared.release(claim).catch(() => undefined);
      throw err;
    }
    await shared.finish(claim, HOOK_TTL_MS);
    return true;
  };

  /**
   * The merchant's hook for a webhook's event, with its claim key (EVENT_CALLS). Completed and expired, and the events
   * of older senders that name no type, run the hook of the status the deposit has.
   */
  const hookOf = async (
    type: WebhookEventType | undefined,
    deposit: UpstreamDeposit,
    eventId: string,
  ): Promise<HookCall | undefined> => {
    const event =
      type === undefined || type === 'deposit.completed' || type === 'deposit.expired' ? statusEvent(deposit) : type;
    if (!event) return undefined;
    const id = deposit.depositId;
    const base = async (): Promise<DepositEventBase> => ({
      checkoutId: id,
      orderId: (await service.savedCheckout(id))?.orderId,
      deposit,
      eventId,
      webhookId: eventId,
      paidAmount: amountText(deposit.paidAmount),
    });
    return EVENT_CALLS[event](deposit, service.hooks, base);
  };

  return { claimWaiting, holding, runHookOnce, hookOf };
}

/** What arrived for a deposit per currency as it arrived (exact decimal text), in the order each first arrived. */
function receivedOf(deposit: UpstreamDeposit): ExpiredDeposit['received'] {
  const sums = new Map<string, Decimal>();
  for (const p of deposit.payments ?? [])
    sums.set(p.currency, (sums.get(p.currency) ?? new Decimal(0)).plus(amountText(p.amount)));
  return [...sums].map(([currency, amount]) => ({ amount: amount.toFixed(), currency }));
}

/** POST / (mounted at /api/webhooks/kasir). */
export function webhookRoutes(
  service: MerchantService,
  options: WebhookReceiverOptions,
  hooks: DeliveryHooks = deliveryHooks(service, options),
) {
  const now = options.now ?? Date.now;
  const { shared } = service;
  const { claimWaiting, holding, runHookOnce, hookOf } = hooks;
  // A webhook for a checkout this backend has no record of: told once (its hooks get no orderId).
  let strangerTold = false;
  const stranger = (deposit: UpstreamDeposit) => {
    if (!isCheckoutId(deposit.depositId)) return false; // a deposit made elsewhere (the dashboard, another app)
    options.log.warn(
      { depositId: deposit.depositId, check: ['REDIS_URL', 'KASIR_DATA_DIR'] },
      `webhook for checkout ${deposit.depositId}, which this backend has no record of: its hooks run without an ` +
        `orderId. Copies of the backend that do not share state each know only their own checkouts: give every copy ` +
        `the same REDIS_URL; one process keeps its checkouts across restarts in KASIR_DATA_DIR (not in memory)`,
    );
    return true;
  };
  const app = new Hono();
  app.post(
    '/',
    bodyLimit({ maxSize: 256 * 1024, onError: (c) => c.json(errorBody(413, 'Webhook body too large'), 413) }),
    async (c) => {
      // Verified over the raw bytes exactly as received, never a re-encoding of them. Older senders may leave fields out.
      const bytes = new Uint8Array(await c.req.arrayBuffer());
      const id = c.req.header('webhook-id') ?? ''; // when missing, the delivery is refused below
      let event: Partial<KasirWebhookEvent>;
      try {
        event = verifyWebhook(options.secret(), c.req.raw.headers, bytes, {
          toleranceSeconds: options.toleranceSeconds,
          now: () => new Date(now()),
        });
      } catch (err) {
        // Settings still incomplete: the error handler answers it (and warns).
        if (err instanceof ConfigError) throw err;
        if (!(err instanceof WebhookVerificationError)) {
          options.metrics?.webhook('bad_signature');
          return c.json(errorBody(401, 'Bad webhook'), 401);
        }
        // Genuine but not a JSON object (arrays, strings, numbers and null included).
        if (err.reason === 'bad_body') {
          options.metrics?.webhook('refused');
          return c.json(errorBody(400, err.message), 400);
        }
        const message =
          err.reason === 'too_old'
            ? 'Stale webhook: webhook-timestamp is too old'
            : err.reason === 'bad_signature'
              ? 'Bad webhook signature'
              : err.message;
        // The sender sees only the 401; the shop, whose hook will not run, is told which check failed.
        const check =
          err.reason === 'bad_signature' || err.reason === 'bad_secret'
            ? 'signature'
            : err.reason === 'too_old' || err.reason === 'too_new' || err.reason === 'bad_timestamp'
              ? 'timestamp'
              : 'headers';
        options.warnings.webhookRefused(check, err.message, options.toleranceSeconds);
        options.metrics?.webhook('bad_signature');
        return c.json(errorBody(401, message), 401);
      }

      service.noteWebhook(); // webhooks reach this copy (event streams then lean on them)
      // Deduplicated on webhook-id across copies and restarts: processed once, acknowledged every time after.
      let claim: Claim;
      try {
        claim = await claimWaiting(`webhook:${id}`);
      } catch (err) {
        options.log.error(
          { webhookId: id, err: err instanceof Error ? err.message : String(err) },
          'webhook not processed: shared state unreachable (the sender retries)',
        );
        options.metrics?.webhook('refused');
        return c.json(errorBody(503, 'Webhook could not be processed; retry later'), 503);
      }
      if (claim.state === 'done') {
        options.metrics?.webhook('duplicate');
        return c.json({ statusCode: 200, message: 'Duplicate delivery: already processed' }, 200);
      }
      if (claim.state === 'busy') {
        options.metrics?.webhook('refused');
        c.header('Retry-After', '5');
        return c.json(errorBody(503, 'This webhook is being processed; retry later'), 503);
      }
      try {
        const deposit =
          event.data && typeof event.data === 'object' && typeof event.data.depositId === 'string'
            ? event.data
            : undefined;
        const depositId = deposit?.depositId ?? event.depositId ?? event.orderId;
        const unsound = deposit && badFigure(deposit);
        if (deposit && unsound) {
          // A genuine webhook this receiver cannot process (a figure that is no number): answered 2xx, marked refused, so
          // the sender stops retrying it (a retry carries the same body; the sandbox, as most senders, retries any other
          // answer for days), and the shop is told once. The deposit is read again from the service instead.
          options.warnings.warn(
            `unprocessable:${deposit.depositId}`,
            { depositId: deposit.depositId, webhookId: id, type: event.type, field: unsound },
            `webhook for deposit ${deposit.depositId} refused: its ${unsound} is not a number; no hook ran for it (the deposit is read again from the payment service)`,
          );
          service.deposits.invalidate(deposit.depositId);
          void service.deposits.get(deposit.depositId).catch(() => undefined);
          await shared.finish(claim, WEBHOOK_TTL_MS);
          options.metrics?.webhook('refused');
          return c.json(
            { statusCode: 200, message: `Webhook refused: ${unsound} is not a number`, refused: true },
            200,
          );
        }
        const type = typeof event.type === 'string' ? event.type : undefined;
        if (deposit && type !== undefined && !isWebhookEventType(type)) {
          // An event this receiver does not know (a newer service): what shoppers see is updated, no hook runs, and
          // it is refused (2xx: a retry would carry the same type), the shop told once. Reconcile runs the hook of
          // the deposit's status later, as it is not settled here.
          await service.deposits.update(await service.view(deposit));
          options.metrics?.webhook('refused');
          options.warnings.warn(
            `unknown-event:${type}`,
            { depositId: deposit.depositId, webhookId: id, type },
            `webhook for deposit ${deposit.depositId} refused: its event type "${type}" is none this receiver knows (${Object.keys(EVENT_HOOKS).join(', ')}); no hook ran for it (update @kasir/merchant)`,
          );
          await shared.finish(claim, WEBHOOK_TTL_MS);
          return c.json(
            { statusCode: 200, message: `Webhook refused: unknown event type ${type}`, refused: true },
            200,
          );
        }
        if (deposit) {
          if (!strangerTold && !(await service.savedCheckout(deposit.depositId))) strangerTold = stranger(deposit);
          await service.deposits.update(await service.view(deposit));
          const hook = await hookOf(type as WebhookEventType | undefined, deposit, id);
          if (hook) await holding(claim, () => runHookOnce(hook.key, hook.name, hook.run));
          await service.settleIfFinal(deposit); // reconcile passes it by from now on
        } else if (typeof depositId === 'string') {
          // No deposit in the body: re-read it now (bounded), which updates the cache and wakes listeners.
          service.deposits.invalidate(depositId);
          void service.deposits.get(depositId).catch(() => undefined);
        }
        // On disk (or in Redis) before the acknowledgement: a replay after a crash or restart is not processed again.
        await shared.finish(claim, WEBHOOK_TTL_MS);
        options.metrics?.webhook('ok');
        return c.json({ statusCode: 200, message: 'Webhook received' }, 200);
      } catch (err) {
        // Forget the id so the sender's retry is processed again.
        await shared.release(claim).catch(() => undefined);
        options.metrics?.webhook('refused');
        if (err instanceof BusyError) {
          c.header('Retry-After', '5');
          return c.json(errorBody(503, "This deposit's webhook is being processed; retry later"), 503);
        }
        options.log.error(
          { webhookId: id, err: err instanceof Error ? err.message : String(err) },
          'webhook processing failed (the sender retries)',
        );
        return c.json(errorBody(503, 'Webhook could not be processed; retry later'), 503);
      }
    },
  );
  return app;
}
