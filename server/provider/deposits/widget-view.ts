// The widget API's shapes (widget/WIDGET-API.md) for the hosted checkout's own checkouts.
import { etagOf } from '../../common/etag.js';
import { findPaymentMethod, PAYMENT_METHODS, type RateTable } from '../catalog/index.js';
import { logoUrl } from '../catalog/logos.js';
import { money, toText } from '../money.js';
import { offersFor, type CheckoutRow } from './checkout.js';
import type { DepositRow } from './view.js';

// The shapes are the widget's contract, declared once beside it (type-only).
export type { Checkout as WidgetCheckout, Deposit as WidgetDeposit } from '@kasir/checkout';
import type { Checkout as WidgetCheckout, Deposit as WidgetDeposit, Method as WidgetMethod } from '@kasir/checkout';

export const feesPaidBy = (checkout: CheckoutRow): 'merchant' | 'shopper' => (checkout.input_amount !== null ? 'merchant' : 'shopper');

function widgetMethods(baseUrl: string, checkout: CheckoutRow, rates: RateTable): WidgetMethod[] {
  return offersFor(checkout, rates).map((o) => ({
    kind: o.quote.method.kind, code: o.quote.method.code, name: o.quote.method.name, image: logoUrl(baseUrl, o.quote.method.logo),
    currency: o.quote.method.currency, fee: toText(o.shopperFee), total: toText(o.quote.inputAmount), available: o.available,
  }));
}

/** What the order costs in the checkout's (input) currency. */
export function checkoutAmount(checkout: CheckoutRow, rates: RateTable): string {
  if (checkout.input_amount !== null) return checkout.input_amount;
  const offers = offersFor(checkout, rates);
  return offers.length ? toText(offers[0].amount) : checkout.output_amount!;
}

export function widgetDeposit(baseUrl: string, checkout: CheckoutRow, row: DepositRow, now: Date, rates: RateTable): WidgetDeposit {
  const method = findPaymentMethod(row.method_code ?? '') ?? PAYMENT_METHODS[0];
  const fiat = JSON.parse(row.payment_fiat) as Record<string, string | undefined>;
  const fee = feesPaidBy(checkout) === 'merchant' ? money(0) : money(row.input_amount).minus(checkoutAmount(checkout, rates));
  return {
    id: row.deposit_id,
    checkoutId: checkout.id,
    status: row.status,
    method: { kind: method.kind, code: method.code, name: method.name, image: logoUrl(baseUrl, method.logo) },
    currency: row.input_currency,
    amount: row.input_amount,
    fee: toText(fee.isNegative() ? money(0) : fee),
    ...(fiat.accountNumber ? { accountNumber: fiat.accountNumber, accountName: fiat.accountName } : {}),
    ...(fiat.qrData ? { qrData: fiat.qrData } : {}),
    ...(fiat.checkoutUrl ? { checkoutUrl: fiat.checkoutUrl } : {}),
    expiresAt: row.expired_at,
    serverTime: now.toISOString(),
    updatedAt: row.updated_at,
  };
}

export function widgetCheckout(baseUrl: string, checkout: CheckoutRow, deposit: DepositRow | undefined, now: Date, rates: RateTable): WidgetCheckout {
  return {
    id: checkout.id,
    currency: checkout.input_currency,
    amount: checkoutAmount(checkout, rates),
    expiresAt: checkout.expires_at,
    serverTime: now.toISOString(),
    feesPaidBy: feesPaidBy(checkout),
    capabilities: { events: false },
    methods: widgetMethods(baseUrl, checkout, rates),
    deposit: deposit ? widgetDeposit(baseUrl, checkout, deposit, now, rates) : null,
  };
}

/** A strong ETag over what a poller cares about: status and last change. */
export function depositEtag(row: DepositRow): string {
  return etagOf(`${row.deposit_id}|${row.status}|${row.updated_at}`);
}
