// Reconciliation (docs/orders.md): catches up on hooks whose webhooks never reached this backend (its receiver down
// past the sender's retries, a wrong secret at the time). Every checkout the backend holds that is not settled (or
// settled since `since`) is read from the payment service, and each event its deposit went through (a partial payment,
// the completion or expiry, a late payment) has its hook run as a delivery would, under the same once-per-event claims
// as the webhook receiver: a hook that ran (here, by a webhook, or by another copy reconciling at the same time) never
// runs again.
import { Decimal } from 'decimal.js';
import { PaymentServiceError } from '../client/errors.js';
import type { Deposit as UpstreamDeposit } from '../client/types.js';
import { ApiError } from '../http.js';
import type { MerchantService } from '../widget-api/service.js';
import type { DeliveryHooks, WebhookEventType } from './receiver.js';

export interface ReconcileOptions {
  /** Also look again at checkouts settled at or after this time (a Date, or ISO 8601 text). */
  since?: Date | string;
  /**
   * Only tell which hooks have not run (`hooksNotRun`), running none and marking nothing: what a process without the
   * shop's hooks (the command without --hooks) may do.
   */
  report?: boolean;
}

/** One order's line of a reconcile. */
export interface ReconcileLine {
  /** The shop's order id, when the checkout was made for one. */
  orderId?: string;
  checkoutId: string;
  /** The deposit's status, `open` before a method was chosen, `lapsed` when the checkout closed unused, `failed` when it could not be read. */
  status: 'pending' | 'completed' | 'expired' | 'open' | 'lapsed' | 'unknown' | 'failed';
  /** What arrived, exact decimal text in `currency` ("0" when nothing). */
  paid: string;
  currency?: string;
  /** The hooks this run ran (none when every event had been handled). */
  hooksRun: string[];
  /** With `report`: the hooks whose events have not been handled yet (none ran). */
  hooksNotRun?: string[];
  /** Why the checkout could not be read or a hook failed (it is tried again by the next run). */
  error?: string;
}

/** Checkouts read from the payment service at once. */
const CONCURRENCY = 4;

export async function reconcile(
  service: MerchantService,
  hooks: DeliveryHooks,
  options: ReconcileOptions = {},
): Promise<ReconcileLine[]> {
  const since = sinceOf(options.since);
  const ids = await service.shared.listCheckouts(since);
  const lines: ReconcileLine[] = new Array(ids.length);
  let next = 0;
  const worker = async () => {
    while (next < ids.length) {
      const index = next++;
      lines[index] = await reconcileCheckout(service, hooks, ids[index]!, options.report === true);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, ids.length) }, worker));
  return lines;
}

/** A reconcile line as one line of text: `orderId checkoutId status paid hooks`. */
export function formatReconcileLine(line: ReconcileLine): string {
  const paid = `${line.paid}${line.currency ? ` ${line.currency}` : ''}`;
  const hooks = line.hooksRun.length ? line.hooksRun.join(',') : 'none';
  const notRun = line.hooksNotRun
    ? ` hooksNotRun=${line.hooksNotRun.length ? line.hooksNotRun.join(',') : 'none'}`
    : '';
  return `orderId=${line.orderId ?? '-'} checkoutId=${line.checkoutId} status=${line.status} paid=${paid} hooksRun=${hooks}${notRun}${line.error ? ` error=${JSON.stringify(line.error)}` : ''}`;
}

function sinceOf(since: Date | string | undefined): number | undefined {
  if (since === undefined) return undefined;
  const at =
    since instanceof Date
      ? since.getTime()
      : typeof since === 'string' && /^\d{4}-\d\d-\d\d/.test(since)
        ? Date.parse(since)
        : NaN;
  if (Number.isNaN(at))
    throw new ApiError(400, `since: an ISO 8601 time, e.g. 2026-11-26T00:00:00Z (got ${JSON.stringify(since)})`);
  return at;
}

async function reconcileCheckout(
  service: MerchantService,
  hooks: DeliveryHooks,
  checkoutId: string,
  report: boolean,
): Promise<ReconcileLine> {
  const saved = await service.savedCheckout(checkoutId).catch(() => undefined);
  const line: ReconcileLine = {
    ...(saved?.orderId === undefined ? {} : { orderId: saved.orderId }),
    checkoutId,
    status: 'unknown',
    paid: '0',
    currency: saved?.currency,
    hooksRun: [],
  };
  let deposit: UpstreamDeposit | undefined;
  try {
    deposit = await service.client.getDeposit(checkoutId);
    if (deposit.depositId !== checkoutId) deposit = undefined; // answered by reference: not this checkout's
  } catch (err) {
    if (!(err instanceof PaymentServiceError && err.statusCode === 404))
      return { ...line, status: 'failed', error: messageOf(err) };
  }
  if (!deposit) return noDeposit(service, line, report);
  line.status = deposit.status;
  line.paid = amountText(deposit.paidAmount);
  line.currency = deposit.inputCurrency;
  if (report) {
    try {
      return { ...line, hooksNotRun: await hooksNotRun(service, hooks, deposit) };
    } catch (err) {
      return { ...line, error: messageOf(err) };
    }
  }
  // What shoppers see too (the cache, every copy's streams).
  await service.deposits.update(await service.view(deposit)).catch(() => undefined);
  try {
    line.hooksRun.push(...(await runMissedHooks(hooks, deposit)));
  } catch (err) {
    return { ...line, error: messageOf(err) }; // not settled: the next run tries again
  }
  await service.settleIfFinal(deposit);
  return line;
}

/**
 * Runs the hook of each event the deposit went through whose hook has not run (by a webhook, reconcile or the
 * follower, on any copy), once, as a delivery would; answers the names of the hooks it ran. Throws when a hook threw
 * or is running elsewhere (the next pass tries again). Each event's id is the same whoever runs it.
 */
export async function runMissedHooks(hooks: DeliveryHooks, deposit: UpstreamDeposit): Promise<string[]> {
  const ran: string[] = [];
  for (const [type, snapshot] of eventsOf(deposit)) {
    const hook = await hooks.hookOf(
      type,
      snapshot,
      `reconcile_${type}_${deposit.depositId}_${snapshot.payments?.length ?? 0}`,
    );
    if (hook && (await hooks.runHookOnce(hook.key, hook.name, hook.run))) ran.push(hook.name);
  }
  return ran;
}

/**
 * The hooks of the deposit's events that have not run, by name (none run, nothing marked): each event's claim is
 * taken and let go at once, or found done.
 */
async function hooksNotRun(service: MerchantService, hooks: DeliveryHooks, deposit: UpstreamDeposit) {
  const names: string[] = [];
  for (const [type, snapshot] of eventsOf(deposit)) {
    const hook = await hooks.hookOf(type, snapshot, '');
    if (!hook) continue;
    const claim = await service.shared.claim(hook.key, 1000);
    if (claim.state === 'done') continue;
    if (claim.state === 'claimed') await service.shared.release(claim);
    names.push(hook.name);
  }
  return names;
}

/** A checkout without a deposit: open while its window to choose lasts, then lapsed (settled: nothing can happen). */
async function noDeposit(service: MerchantService, line: ReconcileLine, report = false): Promise<ReconcileLine> {
  try {
    const session = await service.client.getCheckoutSession(line.checkoutId);
    if (session && Date.parse(session.expiresAt) > service.now()) return { ...line, status: 'open' };
    if (!report) await service.shared.markSettled(line.checkoutId, service.now()).catch(() => undefined);
    return { ...line, status: session ? 'lapsed' : 'unknown' };
  } catch (err) {
    return { ...line, status: 'failed', error: messageOf(err) };
  }
}

/**
 * The events a deposit went through, in order, each with the deposit as its webhook carried it (as far as it can be
 * told now: the payments up to that one): a partial payment for each payment before the one that completed it (or
 * every one, when it did not complete), then the completion or expiry, then each payment that arrived late; the last
 * failed attempt first.
 */
function eventsOf(deposit: UpstreamDeposit): Array<[WebhookEventType, UpstreamDeposit]> {
  const payments = Array.isArray(deposit.payments) ? deposit.payments : [];
  const events: Array<[WebhookEventType, UpstreamDeposit]> = [];
  const late: Array<[WebhookEventType, UpstreamDeposit]> = [];
  let lastOnTime = -1;
  payments.forEach((payment, index) => {
    if (payment.late !== true) lastOnTime = index;
  });
  payments.forEach((payment, index) => {
    const snapshot = { ...deposit, payments: payments.slice(0, index + 1) };
    if (payment.late === true) late.push(['deposit.paid_late', snapshot]);
    else if (!(deposit.status === 'completed' && index === lastOnTime))
      events.push(['deposit.partially_paid', snapshot]);
  });
  if (deposit.status === 'completed') events.push(['deposit.completed', deposit]);
  if (deposit.status === 'expired') events.push(['deposit.expired', deposit]);
  // The last failed attempt (each has its own hook, keyed by its time); earlier ones are no longer told.
  const failed: Array<[WebhookEventType, UpstreamDeposit]> = deposit.lastFailure
    ? [['deposit.payment_failed', deposit]]
    : [];
  return [...failed, ...events, ...late];
}

function amountText(value: unknown): string {
  return typeof value === 'number' && Number.isFinite(value) ? new Decimal(value).toFixed() : '0';
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
