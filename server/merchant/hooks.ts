// The merchant's hooks (createKasirApi's priceOrder, onCheckoutCreated, onDeposit*) and what each receives: the shop's
// side of the backend, named once for config.ts (which checks them), service.ts and webhooks.ts (which call them).
import type { Deposit as UpstreamDeposit } from './client/types.js';

/** What the merchant's `priceOrder` hook answers: the amount its own order costs. */
export interface PricedOrder {
  amount: string | number;
  currency: string;
}

/** What every deposit hook receives (one shape for all of them; see README "Idempotent hooks"). */
export interface DepositHookEvent {
  checkoutId: string;
  /** The merchant's order id, when the checkout was created from one (by this backend or another copy of it). */
  orderId?: string;
  /** The deposit as the payment service sent it in the (verified) webhook. */
  deposit: UpstreamDeposit;
  /**
   * The event's id: the `webhook-id` of its delivery, the same on every retry of it. Key the shop's own write on it,
   * in the write's transaction: a hook that runs again after a crash (between its return and the backend's mark that
   * it ran) gets the same id.
   */
  eventId: string;
  /** @deprecated The same value as `eventId`, under its first name. */
  webhookId: string;
  /** What arrived for the deposit so far, in `deposit.inputCurrency`: exact decimal text (DESIGN.md 10). */
  paidAmount: string;
}

/** One payment that arrived (DESIGN.md 10): its amount as exact decimal text, in `currency`. */
export interface DepositPayment {
  amount: string;
  currency: string;
  receivedAt: string;
  /** It arrived after the deposit expired or was cancelled. */
  late: boolean;
}

/** What `onDepositCompleted` receives; `overpaidAmount` is what arrived beyond the amount due ("0" when none). */
export interface CompletedDeposit extends DepositHookEvent {
  overpaidAmount: string;
}

/** What `onDepositExpired` receives; a `paidAmount` above "0" was paid and is owed back. */
export type ExpiredDeposit = DepositHookEvent;

/** What `onDepositPartiallyPaid` receives: the payment that arrived, and what is still due. */
export interface PartiallyPaidDeposit extends DepositHookEvent {
  payment: DepositPayment;
  remainingAmount: string;
}

/** What `onDepositPaidLate` receives: the payment that arrived after expiry (owed back). */
export interface PaidLateDeposit extends DepositHookEvent {
  payment: DepositPayment;
}

/** What `onPaymentFailed` receives: why the attempt failed and when (docs/indonesian-payments.md); the deposit stays pending. */
export interface FailedPayment extends DepositHookEvent {
  reason: 'declined' | 'insufficient_balance' | 'timeout';
  failedAt: string;
}

export interface MerchantHooks {
  /**
   * Prices an order from the merchant's own records, so a shopper cannot pay less by editing the page. When set,
   * POST /api/checkouts takes `{orderId}` and refuses a bare amount. Answer null for an unknown order.
   */
  priceOrder?: (orderId: string) => PricedOrder | null | undefined | Promise<PricedOrder | null | undefined>;
  /** Called after a checkout was created (e.g. to store checkoutId next to the order). */
  onCheckoutCreated?: (checkout: { checkoutId: string; orderId?: string; amount: string; currency: string; url: string }) => void | Promise<void>;
  /**
   * Called once per deposit when its completion webhook lands (verified, deduplicated). If it throws, the
   * webhook is answered 503 and the payment service retries it later.
   */
  onDepositCompleted?: (event: CompletedDeposit) => void | Promise<void>;
  /**
   * Called once per deposit when its expiry webhook lands (the shopper did not pay in time, or cancelled), e.g. to
   * release the order's stock; `paidAmount` above "0" is money to refund. If it throws, the webhook is answered 503 and retried.
   */
  onDepositExpired?: (event: ExpiredDeposit) => void | Promise<void>;
  /**
   * Called once per payment that arrives short while the deposit is pending (webhook deposit.partially_paid,
   * DESIGN.md 10): the shopper may pay the rest. If it throws, the webhook is answered 503 and retried.
   */
  onDepositPartiallyPaid?: (event: PartiallyPaidDeposit) => void | Promise<void>;
  /**
   * Called once per payment that arrives after the deposit expired or was cancelled (webhook deposit.paid_late,
   * DESIGN.md 10): the shop owes it back. If it throws, the webhook is answered 503 and retried.
   */
  onDepositPaidLate?: (event: PaidLateDeposit) => void | Promise<void>;
  /**
   * Called once per failed attempt to pay (webhook deposit.payment_failed: declined, insufficient balance, a wallet
   * push not approved in time; docs/indonesian-payments.md): the deposit stays pending and the shopper may try again
   * or choose another method. If it throws, the webhook is answered 503 and retried.
   */
  onPaymentFailed?: (event: FailedPayment) => void | Promise<void>;
}
