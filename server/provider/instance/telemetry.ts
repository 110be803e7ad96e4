// The sandbox seen live (docs/observability.md): its Prometheus metrics (deposits by status, webhook deliveries and how
// long after the change they were answered, the outbox's backlog) and the trace a webhook continues: the change that
// enqueued it was made in some request's span, and its delivery carries that span's `traceparent` to the receiver.
import { propagation, ROOT_CONTEXT, trace, type SpanContext } from '@opentelemetry/api';
import { LRUCache } from 'lru-cache';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { metricsRegistry } from '../../common/observability.js';
import type { Db } from '../db/database.js';
import type { ChangeFeed } from './change-feed.js';
import type { ProviderConfig } from './config.js';

/** What the dispatcher tells of one attempt (DispatcherOptions.onAttempt). */
interface Attempt {
  ok: boolean;
  responseStatus: number | null;
  /** The webhook's body, whose `timestamp` is the change's. */
  payload: string;
}

/** How an attempt ended: a 2xx, another answer (retried), or no answer (unreachable, timed out, no URL set). */
type DeliveryOutcome = 'ok' | 'refused' | 'unreachable';

/** From the change to the receiver's 2xx: milliseconds when it goes at once, hours when it waited for retries. */
const DELIVERY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 30, 300, 1800, 7200, 86400];
/** Deposits whose last change's trace is remembered until their webhook leaves (this copy's recent ones). */
const TRACED_DEPOSITS = 10_000;

/** The `timestamp` of a webhook body (its last field, as the outbox writes it), in ms; NaN when absent. */
function changedAt(payload: string): number {
  const at = payload.lastIndexOf('"timestamp":"');
  if (at < 0) return NaN;
  const start = at + '"timestamp":"'.length;
  return Date.parse(payload.slice(start, payload.indexOf('"', start)));
}

export class SandboxTelemetry {
  /** With metrics on: this instance's registry (never the global one: two services in one process keep apart). */
  readonly registry?: Registry;
  private readonly deliveries?: Counter<'outcome'>;
  private readonly deliverySeconds?: Histogram;
  /** The span each deposit's last change was made in, while an SDK records (nothing is kept otherwise). */
  private readonly traced = new LRUCache<string, SpanContext>({ max: TRACED_DEPOSITS });

  constructor(
    config: ProviderConfig,
    db: Db,
    changes: Pick<ChangeFeed, 'on'>,
    private readonly now: () => Date,
  ) {
    // Announced after the commit, in the request that made the change: its span is the webhook's parent. A change made
    // outside any traced request (the expiry sweep) leaves its webhook out of an older change's trace.
    changes.on((depositId) => {
      const span = trace.getActiveSpan();
      if (depositId && span?.isRecording()) this.traced.set(depositId, span.spanContext());
      else if (this.traced.size) this.traced.delete(depositId);
    });
    if (!config.metrics) return;
    const registers = [(this.registry = metricsRegistry({ processMetrics: false }))];
    new Counter({
      name: 'kasir_sandbox_deposits_total',
      help: 'Deposits the service holds, by status: created (all), completed, expired (read from its database).',
      labelNames: ['status'],
      registers,
      async collect() {
        const rows = await db
          .selectFrom('deposits')
          .select(['status', (eb) => eb.fn.countAll<number | string>().as('count')])
          .groupBy('status')
          .execute();
        const count = (status: string) => Number(rows.find((row) => row.status === status)?.count ?? 0);
        this.reset();
        this.inc(
          { status: 'created' },
          rows.reduce((sum, row) => sum + Number(row.count), 0),
        );
        this.inc({ status: 'completed' }, count('completed'));
        this.inc({ status: 'expired' }, count('expired'));
      },
    });
    this.deliveries = new Counter({
      name: 'kasir_sandbox_webhook_deliveries_total',
      help: 'Webhook delivery attempts by outcome: ok (2xx), refused (another answer; retried), unreachable (no answer).',
      labelNames: ['outcome'],
      registers,
    });
    for (const outcome of ['ok', 'refused', 'unreachable']) this.deliveries.inc({ outcome }, 0);
    this.deliverySeconds = new Histogram({
      name: 'kasir_sandbox_webhook_delivery_seconds',
      help: "Seconds from a deposit's change to the receiver's 2xx to its webhook (retries included).",
      buckets: DELIVERY_BUCKETS,
      registers,
    });
    new Gauge({
      name: 'kasir_sandbox_outbox_pending',
      help: 'Webhooks in the outbox not delivered yet (due now or waiting for a retry).',
      registers,
      async collect() {
        const row = await db
          .selectFrom('webhook_deliveries')
          .select((eb) => eb.fn.countAll<number | string>().as('count'))
          .where('status', '=', 'pending')
          .executeTakeFirst();
        this.set(Number(row?.count ?? 0));
      },
    });
  }

  /** The dispatcher's onAttempt, with metrics on. */
  readonly attempted = (attempt: Attempt): void => {
    const outcome: DeliveryOutcome = attempt.ok ? 'ok' : attempt.responseStatus === null ? 'unreachable' : 'refused';
    this.deliveries?.inc({ outcome });
    const at = changedAt(attempt.payload);
    if (attempt.ok && Number.isFinite(at))
      this.deliverySeconds?.observe(Math.max(0, (this.now().getTime() - at) / 1000));
  };

  /** The `traceparent` (and what else the SDK's propagator writes) of the change a deposit's webhook reports, if traced. */
  readonly traceHeaders = (depositId: string): Record<string, string> | undefined => {
    const parent = this.traced.get(depositId);
    if (!parent) return undefined;
    const headers: Record<string, string> = {};
    propagation.inject(trace.setSpanContext(ROOT_CONTEXT, parent), headers);
    return headers;
  };
}
