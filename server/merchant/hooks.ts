// The merchant's hooks (createKasirApi's priceOrder, onCheckoutCreated, onDeposit*) and what each receives: the shop's
// side of the backend, named once for config.ts (which checks them), widget-api/service.ts and receiver.ts (which call them).
import type { Deposit as UpstreamDeposit } from './client/types.js';

/** What the merchant's `priceOrder` hook answers: the amount its own order costs. */
export interface PricedOrder {
  amount: string | number;
  currency: string;
  /** Who ordered, as far as the shop knows: a refund form (docs/refunds.md) does not ask for these again. */
  customer?: OrderCustomer;
}

/** The order's customer, as the shop's records have it; each field optional. */
export interface OrderCustomer {
  name?: string;
  email?: string;
  address?: string;
  city?: string;
  postCode?: string;
}

/** Where a shopper asked the money owed back to go (docs/refunds.md). */
export type RefundRecipient =
  | {
      type: 'bank';
      /** The recipient created at the payment service (POST /v1/recipient). */
      recipientId: string;
      name: string;
      email: string;
      address: string;
      city: string;
      postCode: string;
      bankCode: string;
      bankName: string;
      accountNumber: string;
      accountName: string;
      currency: string;
      country: string;
    }
  | {
      type: 'crypto';
      /** The crypto id paid with, e.g. "USDC-POLYGON". */
      asset: string;
      /** e.g. "POLYGON", "STELLAR". */
      network: string;
      /** Checked: EIP-55 on an EVM network, a Stellar account id (StrKey) on Stellar. */
      address: string;
      /** Stellar only, when the shopper's wallet needs one (exchanges do). */
      memo?: string;
    };

/** What `onRefundRequested` receives: money owed back, as the payment service counts it, and where to send it. */
export interface RefundRequest {
  /** The same for the deposit every time (a run after a crash gets it again): key the shop's write on it. */
  eventId: string;
  orderId?: string;
  checkoutId: string;
  depositId: string;
  /** What is owed back, exact decimal text in `currency` (the deposit's: a token for crypto). */
  amount: string;
  currency: string;
  /** Why: money for a deposit that expired or was cancelled, a payment after that, or more than was due. */
  reason: 'expired' | 'paid_late' | 'overpaid';
  recipient: RefundRecipient;
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
  /**
   * What arrived for the deposit so far, in `deposit.inputCurrency`: exact decimal text (docs/design.md, "Payments that
   * do not go as planned").
   */
  paidAmount: string;
}

/**
 * One payment that arrived (docs/design.md, "Payments that do not go as planned"): its amount as exact decimal text, in
 * `currency`.
 */
export interface DepositPayment {
  amount: string;
  currency: string;
  /** The bankCode or crypto id it was paid to (after a switch, possibly an earlier method's; docs/money.md). */
  method?: string;
  receivedAt: string;
  /** It arrived after the deposit expired or was cancelled. */
  late: boolean;
}

/** What `onDepositCompleted` receives; `overpaidAmount` is what arrived beyond the amount due ("0" when none). */
export interface CompletedDeposit extends DepositHookEvent {
  overpaidAmount: string;
  /** The same in the order's currency (`deposit.orderCurrency`; docs/money.md): "0" when none. */
  overpaidValue: string;
}

/**
 * What `onDepositExpired` receives; a `paidAmount` above "0" was paid and is owed back. `paidAmount` is in the
 * deposit's current currency (after a switch, that method's price of what arrived); `received` is what arrived, per
 * currency as it arrived: what goes back (docs/refunds.md).
 */
export interface ExpiredDeposit extends DepositHookEvent {
  received: Array<{ amount: string; currency: string }>;
}

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

/** What `priceOrder` gets besides the order id. */
export interface PriceOrderContext {
  /** The shopper's request that asked (POST /checkouts, a refund form's), as a Fetch Request; absent when none did. */
  request?: Request;
}

export interface MerchantHooks {
  /**
   * Prices an order from the merchant's own records, so a shopper cannot pay less by editing the page. When set,
   * POST /api/checkouts takes `{orderId, orderToken}` and refuses a bare amount. Answer null for an unknown order.
   * It runs only once the order's token was checked (docs/security.md); `request` lets the shop check its own session
   * as well.
   */
  priceOrder?: (
    orderId: string,
    context: PriceOrderContext,
  ) => PricedOrder | null | undefined | Promise<PricedOrder | null | undefined>;
  /** Called after a checkout was created (e.g. to store checkoutId next to the order). */
  onCheckoutCreated?: (checkout: {
    checkoutId: string;
    orderId?: string;
    amount: string;
    currency: string;
    url: string;
  }) => void | Promise<void>;
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
   * docs/design.md, "Payments that do not go as planned"): the shopper may pay the rest. If it throws, the webhook is
   * answered 503 and retried.
   */
  onDepositPartiallyPaid?: (event: PartiallyPaidDeposit) => void | Promise<void>;
  /**
   * Called once per payment that arrives after the deposit expired or was cancelled (webhook deposit.paid_late,
   * docs/design.md, "Payments that do not go as planned"): the shop owes it back. If it throws, the webhook is answered
   * 503 and retried.
   */
  onDepositPaidLate?: (event: PaidLateDeposit) => void | Promise<void>;
  /**
   * Called once per deposit when the shopper said where the money owed back should go (the element's refund form,
   * POST /checkouts/:id/refund-claim; docs/refunds.md). Without it the element offers no form. If it throws, the
   * shopper is asked to try again.
   */
  onRefundRequested?: (request: RefundRequest) => void | Promise<void>;
  /**
   * Called once per failed attempt to pay (webhook deposit.payment_failed: declined, insufficient balance, a wallet
   * push not approved in time; docs/indonesian-payments.md): the deposit stays pending and the shopper may try again
   * or choose another method. If it throws, the webhook is answered 503 and retried.
   */
  onPaymentFailed?: (event: FailedPayment) => void | Promise<void>;
}
