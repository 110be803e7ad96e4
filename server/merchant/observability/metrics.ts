// The merchant backend's Prometheus metrics (docs/observability.md): the payment funnel per method kind, time to pay,
// webhooks and hooks by outcome, the payment service's latency and the open checkouts, in a registry of this app's own
// (several apps in one process keep apart). Copies on Redis each count their own; Prometheus sums them.
import type { MethodKind } from '@kasir/checkout';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { metricsRegistry } from '../../common/observability.js';
import type { Deposit as UpstreamDeposit } from '../client/types.js';
import type { MerchantHooks } from '../hooks.js';
import { TERMINAL, type StoredDeposit } from '../model.js';
import type { MethodChoice } from '../../common/widget-api.js';
import type { MerchantService } from '../widget-api/service.js';
import type { SharedState } from '../state/shared-state.js';

/** Every method kind of the widget API, so each kind's series exists (at 0) before its first checkout. */
const KINDS: readonly MethodKind[] = ['va', 'bank', 'qris', 'ewallet', 'crypto'];

/** How a webhook delivery was answered: processed, a repeat of one processed, not verified, or not processed. */
export type WebhookOutcome = 'ok' | 'duplicate' | 'bad_signature' | 'refused';
const WEBHOOK_OUTCOMES: readonly WebhookOutcome[] = ['ok', 'duplicate', 'bad_signature', 'refused'];

/** The statuses a settled deposit ends in. */
type Settlement = 'completed' | 'expired';

/** Time to pay: from a minute to a day (a VA or a bank transfer may be paid the next morning). */
const TIME_TO_PAY_BUCKETS = [10, 30, 60, 120, 300, 600, 1800, 3600, 3 * 3600, 6 * 3600, 12 * 3600, 24 * 3600];
/** A call to the payment service: from a millisecond to its 10 s timeout. */
const SERVICE_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export class MerchantMetrics {
  readonly registry: Registry = metricsRegistry({ processMetrics: true });
  private readonly checkoutsCreated: Counter;
  private readonly methodsChosen: Counter<'kind'>;
  private readonly depositsSettled: Counter<'kind' | 'status'>;
  private readonly timeToPay: Histogram<'kind'>;
  private readonly webhooksReceived: Counter<'outcome'>;
  private readonly hooks: Counter<'hook' | 'outcome'>;
  private readonly serviceRequests: Histogram<'operation' | 'status'>;

  /**
   * `openCheckouts` answers the open checkouts when Prometheus scrapes (openCheckoutCount); `hooks` are the shop's,
   * each of which has its series from the start.
   */
  constructor(openCheckouts: () => Promise<number>, hooks: MerchantHooks = {}) {
    const registers = [this.registry];
    this.checkoutsCreated = new Counter({
      name: 'kasir_checkouts_created_total',
      help: 'Checkouts this backend created (the top of the funnel).',
      registers,
    });
    this.methodsChosen = new Counter({
      name: 'kasir_methods_chosen_total',
      help: 'Payment methods chosen by shoppers (a first choice or a switch), per method kind.',
      labelNames: ['kind'],
      registers,
    });
    this.depositsSettled = new Counter({
      name: 'kasir_deposits_settled_total',
      help: "Checkouts' deposits that reached their final status, once each, per method kind and status.",
      labelNames: ['kind', 'status'],
      registers,
    });
    this.timeToPay = new Histogram({
      name: 'kasir_time_to_pay_seconds',
      help: "Seconds from a checkout's creation to its deposit's completion, per method kind.",
      labelNames: ['kind'],
      buckets: TIME_TO_PAY_BUCKETS,
      registers,
    });
    this.webhooksReceived = new Counter({
      name: 'kasir_webhooks_received_total',
      help: 'Webhook deliveries received, by how they were answered (ok, duplicate, bad_signature, refused).',
      labelNames: ['outcome'],
      registers,
    });
    this.hooks = new Counter({
      name: 'kasir_hooks_total',
      help: "Runs of the shop's hooks, by hook and outcome (ok, error).",
      labelNames: ['hook', 'outcome'],
      registers,
    });
    this.serviceRequests = new Histogram({
      name: 'kasir_service_request_duration_seconds',
      help: 'Calls to the payment service, in seconds until its answer, by operation and HTTP status (error: no answer).',
      labelNames: ['operation', 'status'],
      buckets: SERVICE_BUCKETS,
      registers,
    });
    new Gauge({
      name: 'kasir_open_checkouts',
      help: "Checkouts created and not settled yet, as this backend knows them (on Redis: the shop's, the same on every copy).",
      registers,
      async collect() {
        this.set(await openCheckouts());
      },
    });
    for (const kind of KINDS) {
      this.methodsChosen.inc({ kind }, 0);
      this.timeToPay.zero({ kind });
      for (const status of ['completed', 'expired'] as const) this.depositsSettled.inc({ kind, status }, 0);
    }
    for (const outcome of WEBHOOK_OUTCOMES) this.webhooksReceived.inc({ outcome }, 0);
    for (const hook of Object.keys(hooks).filter((name) => hooks[name as keyof MerchantHooks]))
      for (const outcome of ['ok', 'error']) this.hooks.inc({ hook, outcome }, 0);
  }

  checkoutCreated(): void {
    this.checkoutsCreated.inc();
  }

  methodChosen(kind: MethodKind): void {
    this.methodsChosen.inc({ kind });
  }

  /** A checkout's deposit reached its final status (told once per deposit: ../webhooks/receiver.ts claims it). */
  settled(deposit: StoredDeposit, createdAt: number | undefined): void {
    const kind = deposit.method.kind;
    this.depositsSettled.inc({ kind, status: deposit.status as Settlement });
    if (deposit.status === 'completed' && createdAt !== undefined) {
      const paidAt = Date.parse(deposit.updatedAt);
      if (Number.isFinite(paidAt)) this.timeToPay.observe({ kind }, Math.max(0, (paidAt - createdAt) / 1000));
    }
  }

  webhook(outcome: WebhookOutcome): void {
    this.webhooksReceived.inc({ outcome });
  }

  hookRun(hook: string, outcome: 'ok' | 'error'): void {
    this.hooks.inc({ hook, outcome });
  }

  serviceCall(operation: string, status: string, seconds: number): void {
    this.serviceRequests.observe({ operation, status }, seconds);
  }
}

/**
 * The open checkouts as this backend knows them: the saved checkouts not settled (on Redis the shop's, every copy's).
 * The one place the gauge is computed: a source that knows the service's open checkouts plugs in here.
 */
export async function openCheckoutCount(shared: SharedState): Promise<number> {
  return (await shared.listCheckouts()).length;
}

/** A settled deposit is counted once however many webhooks, copies and reconcile runs tell it: its claim is kept this long. */
const SETTLED_TTL_MS = 30 * 24 * 3600_000;

/**
 * Counts a checkout's deposit that reached its final status (MerchantService.onSettled), once per deposit in all the
 * copies: the first to claim it counts it.
 */
export function settlementCounter(service: MerchantService, metrics: MerchantMetrics) {
  return async (deposit: UpstreamDeposit, createdAt: number | undefined): Promise<void> => {
    if (!TERMINAL.has(deposit.status)) return;
    const claim = await service.shared.claim(`metrics:settled:${deposit.depositId}`, 10_000);
    if (claim.state !== 'claimed') return;
    metrics.settled(await service.view(deposit), createdAt);
    await service.shared.finish(claim, SETTLED_TTL_MS);
  };
}

/** A method choice's answer, counted when it chose (created or switched) a method. */
export function countChoice<T extends { deposit: StoredDeposit; choice: MethodChoice }>(
  metrics: MerchantMetrics | undefined,
  chosen: T,
): T {
  if (metrics && chosen.choice !== 'unchanged') metrics.methodChosen(chosen.deposit.method.kind);
  return chosen;
}
