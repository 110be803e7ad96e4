// One order, one payment (docs/orders.md): the shop's order keeps one checkout in the shared state (the data dir, or
// Redis: every copy), so a reload, a second tab or a second device resumes it, a paid order shows its outcome and is
// never paid twice. Who opens an order's checkout holds the order's claim meanwhile: two browsers racing on one order
// get one checkout, on one copy or on several.
import type { Decimal } from 'decimal.js';
import { setTimeout as sleep } from 'node:timers/promises';
import type { PaymentServiceClient } from '../client/client.js';
import type { CheckoutSession } from '../client/types.js';
import type { PricedOrder } from '../hooks.js';
import { ApiError } from '../http.js';
import type { Claim, SavedCheckout, SavedOrder, SharedState } from '../state/shared-state.js';
import type { BoundedReader } from '../state/status-cache.js';
import type { Checkout as WidgetCheckout } from '@kasir/checkout';

/** What an order's checkout needs of the merchant service (widget-api/service.ts, which passes itself). */
interface OrderDesk {
  readonly shared: SharedState;
  readonly sessions: BoundedReader<CheckoutSession | null>;
  readonly client: Pick<PaymentServiceClient, 'cancelDeposit'>;
  readonly now: () => number;
  checkAmount(amount: unknown, currency: unknown): { value: Decimal; code: string };
  openCheckout(
    amount: unknown,
    currency: unknown,
    orderId: string | undefined,
    byPage: boolean,
  ): Promise<WidgetCheckout>;
  getCheckout(id: string): Promise<WidgetCheckout>;
  savedCheckout(checkoutId: string): Promise<SavedCheckout | undefined>;
}

/** A claim on an order lapses this long after its holder stopped renewing it (a crash mid-way). */
const ORDER_LEASE_MS = 10_000;
/** How long a request waits for another one opening the same order's checkout: past a lease, so a crashed one's lapses. */
const ORDER_WAIT_MS = ORDER_LEASE_MS + 2_000;
/** How long an order's checkout is remembered: as long as the checkout itself (widget-api/service.ts CHECKOUT_TTL_MS). */
const ORDER_TTL_MS = 30 * 24 * 3600_000;

/** What the order's checkout allows: keep it, keep it while the price is the same, or open a new one. */
type Decision = 'keep' | 'keep-if-same-price' | 'new';

/**
 * The checkout of the shop's order `orderId`: its current one when that is still the order's (open, paid, or expired
 * with money received), else a new one at `price()`. `price` is asked only when the answer may depend on it (nothing
 * paid yet); a changed price opens a new checkout only while nothing was paid, and a pending deposit of the old one is
 * cancelled first, so that it can no longer be paid (its onDepositExpired runs, with paidAmount "0"). A checkout
 * opened `byPage` (a page holding the order's token asked) takes that token to be acted on; one the shop's server
 * made does not.
 */
export async function orderCheckout(
  service: OrderDesk,
  orderId: string,
  price: () => Promise<PricedOrder | null | undefined>,
  byPage: boolean,
): Promise<WidgetCheckout> {
  const { shared } = service;
  const claim = await claimOrder(service, orderId);
  const renew = setInterval(() => void shared.extend(claim, ORDER_LEASE_MS).catch(() => undefined), ORDER_LEASE_MS / 3);
  try {
    const saved = await shared.loadOrder(orderId);
    let priced: PricedOrder | undefined;
    if (saved) {
      const session = await currentSession(service, saved.checkoutId);
      const decision = decide(session, service.now());
      if (decision === 'keep') return await service.getCheckout(saved.checkoutId);
      if (decision === 'keep-if-same-price') {
        priced = await priceOf(price);
        const { value, code } = service.checkAmount(priced.amount, priced.currency);
        if (code === saved.currency && value.eq(saved.amount)) return await service.getCheckout(saved.checkoutId);
        // A changed price while nothing was paid: the old deposit must not stay payable beside the new checkout.
        if (session?.deposit?.status === 'pending' && !(await cancelUnpaid(service, saved.checkoutId))) {
          return await service.getCheckout(saved.checkoutId); // paid meanwhile: it stays the order's checkout
        }
      }
    }
    priced ??= await priceOf(price);
    const { value, code } = service.checkAmount(priced.amount, priced.currency);
    const checkout = await service.openCheckout(value.toFixed(), code, orderId, byPage);
    const order: SavedOrder = { checkoutId: checkout.id, amount: value.toFixed(), currency: code };
    await shared.saveOrder(orderId, order, ORDER_TTL_MS);
    return checkout;
  } finally {
    clearInterval(renew);
    await shared.release(claim).catch(() => undefined);
  }
}

/** Whether `checkoutId` may take a method: not when its order has moved on to a newer checkout (a changed price). */
export async function isCurrentCheckout(service: OrderDesk, checkoutId: string): Promise<boolean> {
  const orderId = (await service.savedCheckout(checkoutId))?.orderId;
  if (orderId === undefined) return true;
  const order = await service.shared.loadOrder(orderId);
  return !order || order.checkoutId === checkoutId;
}

/** The order's claim, waiting while another request (here or on another copy) holds it. */
async function claimOrder(service: OrderDesk, orderId: string): Promise<Claim & { state: 'claimed' }> {
  const deadline = Date.now() + ORDER_WAIT_MS;
  for (;;) {
    const claim = await service.shared.claim(`order-lock:${orderId}`, ORDER_LEASE_MS);
    if (claim.state === 'claimed') return claim;
    if (Date.now() >= deadline)
      throw new ApiError(503, "This order's checkout is being opened by another request; try again");
    await sleep(20);
  }
}

async function priceOf(price: () => Promise<PricedOrder | null | undefined>): Promise<PricedOrder> {
  const priced = await price();
  if (!priced) throw new ApiError(404, 'Order not found');
  return priced;
}

/** The checkout as the service has it now (not from the cache: the decision must see a payment that just arrived). */
async function currentSession(service: OrderDesk, checkoutId: string): Promise<CheckoutSession | null> {
  service.sessions.invalidate(checkoutId);
  return service.sessions.get(checkoutId);
}

function decide(session: CheckoutSession | null, now: number): Decision {
  if (!session) return 'new'; // the service no longer has it
  const deposit = session.deposit;
  if (!deposit) return Date.parse(session.expiresAt) > now ? 'keep-if-same-price' : 'new';
  const paid = (deposit.paidAmount ?? 0) > 0 || (deposit.payments?.length ?? 0) > 0;
  if (deposit.status === 'completed' || paid) return 'keep';
  return deposit.status === 'pending' ? 'keep-if-same-price' : 'new'; // expired or cancelled with nothing paid
}

/**
 * Cancels the old checkout's unpaid deposit; false when it was paid meanwhile (it then stays the order's). The decision
 * was taken from a read before the cancel: a payment may commit in between. So the deposit is read again once the
 * cancel committed (the service cancels under the deposit's lock, and a payment after it is one to a deposit no longer
 * payable): money there keeps the order on this checkout, as owed back or paid.
 */
async function cancelUnpaid(service: OrderDesk, checkoutId: string): Promise<boolean> {
  try {
    await service.client.cancelDeposit(checkoutId);
  } catch (err) {
    const session = await currentSession(service, checkoutId);
    if (decide(session, service.now()) === 'keep') return false;
    if (session?.deposit?.status === 'expired') return true; // it expired by itself meanwhile
    throw err;
  }
  return decide(await currentSession(service, checkoutId), service.now()) !== 'keep';
}
