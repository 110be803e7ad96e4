// What a shopper may see: the widget API's shapes (widget/WIDGET-API.md), made by the one projection both backends
// share (server/common/widget-projection.ts) from the payment service's answers as they came over HTTP. Here is only
// what this backend knows besides them: the methods it has seen for a deposit, and the order it created.
import { Decimal } from 'decimal.js';
import {
  depositMethodCode,
  toWidgetCheckout,
  toWidgetDeposit,
  type MethodDescription,
} from '../../common/widget-projection.js';
import type { CheckoutSession } from '../client/types.js';
import type { FeesPaidBy, StoredDeposit } from '../model.js';

// The shapes themselves are the widget's contract, declared once beside it (type-only: nothing runs across).
export type { Checkout as WidgetCheckout, Deposit as WidgetDeposit, Method as WidgetMethod } from '@kasir/checkout';
import type { Checkout as WidgetCheckout } from '@kasir/checkout';

export interface DepositContext {
  /** Who bears the fee on this checkout. */
  feesPaidBy: FeesPaidBy;
  /**
   * The methods known for the deposit's currency (the session's, or the service's method list), to name the chosen
   * one and find its logo; a crypto deposit finds its network, decimals, chain id and token here for its payment request.
   */
  methods?: ReadonlyArray<MethodDescription>;
  /** What the order costs, when known: the shopper's fee is what the deposit asks on top of it. */
  orderAmount?: string;
}

/** A deposit as the service answers it: the whole Deposit (signed routes, webhooks) or the shopper's (public routes). */
export type ViewedDeposit = Parameters<typeof toWidgetDeposit>[0] & Parameters<typeof depositMethodCode>[0];

export function depositView(d: ViewedDeposit, ctx: DepositContext): StoredDeposit {
  const code = depositMethodCode(d);
  return toWidgetDeposit(d, {
    feesPaidBy: ctx.feesPaidBy,
    method: ctx.methods?.find((m) => m.bankCode === code),
    orderAmount: ctx.orderAmount,
  });
}

/** A JSON number or numeric string as a decimal, else null. */
const num = (v: unknown): Decimal | null => {
  if (typeof v === 'number' && Number.isFinite(v)) return new Decimal(v);
  if (typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v))) return new Decimal(v);
  return null;
};

/**
 * What the order costs, in the checkout's input currency. The session's `orderAmount` wins. A service that does
 * not send it: inputAmount; outputAmount when it is in the input currency (never an amount of another currency,
 * e.g. a crypto outputAmount); else what the methods say the order costs before the shopper's fee; else what this
 * backend remembers from creating the checkout.
 */
export function orderAmount(s: CheckoutSession, known?: string): string {
  const given = num(s.orderAmount);
  if (given && !given.isNegative()) return given.toFixed();
  if (s.inputAmount !== null && s.inputAmount !== undefined) return new Decimal(s.inputAmount).toFixed();
  const sameCurrency = !s.outputCurrency || s.outputCurrency.toUpperCase() === s.inputCurrency.toUpperCase();
  if (sameCurrency && s.outputAmount !== null && s.outputAmount !== undefined)
    return new Decimal(s.outputAmount).toFixed();
  for (const m of s.methods) {
    const total = num(m.paymentAmount);
    const fee = num(m.shopperFee);
    if (total && fee && (!m.currency || m.currency === s.inputCurrency)) return total.minus(fee).toFixed();
  }
  return known ?? '0';
}

/** The checkout a shopper sees (its orderAmount as orderAmount() reads it), with the deposit as this backend keeps it. */
export function checkoutView(s: CheckoutSession, deposit: StoredDeposit | null, now: Date): WidgetCheckout {
  return toWidgetCheckout(s, { events: true, now, deposit });
}
