// The hosted checkout's own widget API (widget/WIDGET-API.md): its rows in the interface's shapes, the checkout
// session (what GET /checkout/{id}/session answers) and the Deposit (view.ts), then the projection the merchant
// backend applies to the same shapes over HTTP (server/common/widget-projection.ts).
import { etagOf } from '../../common/etag.js';
import {
  toWidgetCheckout,
  toWidgetDeposit,
  type FeesPaidBy,
  type WidgetDepositRecord,
} from '../../common/widget-projection.js';
import {
  findCrypto,
  findPaymentMethod,
  type CryptoDef,
  type PaymentMethodDef,
  type RateTable,
} from '../catalog/index.js';
import { logoUrl } from '../catalog/logos.js';
import { money, toNumber, toText } from './money.js';
import { passesFees } from '../../common/fee-policy.js';
import { checkoutFeesPolicy, cryptoOffersFor, offersFor, type CheckoutRow } from './checkout.js';
import { checkoutStillDue } from './payments.js';
import { uniqueCodeValue } from './ledger.js';
import { METHOD_KINDS } from './method-kinds.js';
import type { DepositRow, DepositView } from './view.js';

// The shapes are the widget's contract, declared once beside it (type-only).
export type { Checkout as WidgetCheckout } from '@kasir/checkout';
import type { Checkout as WidgetCheckout } from '@kasir/checkout';

// The checkout passes fees on when any kind's fee is the shopper's (a QRIS total is the order amount all the same).
const feesPaidBy = (checkout: CheckoutRow): FeesPaidBy =>
  passesFees(checkoutFeesPolicy(checkout)) ? 'shopper' : 'merchant';

/** What the order costs in the checkout's (input) currency. */
export function checkoutAmount(checkout: CheckoutRow, rates: RateTable): string {
  if (checkout.input_amount !== null) return checkout.input_amount;
  const offers = offersFor(checkout, rates);
  return offers.length ? toText(offers[0].amount) : checkout.output_amount!;
}

/**
 * A fiat method of the catalog as the session describes it (GET /v1/deposit/payment-method's fields and a display
 * name), before its price.
 */
const fiatMethod = (baseUrl: string, method: PaymentMethodDef) => ({
  depositPaymentType: METHOD_KINDS[method.kind].depositPaymentType,
  bankName: method.bankName,
  bankCode: method.code,
  name: method.name,
  currency: method.currency,
  minimumAmount: toNumber(method.minimumAmount),
  maximumAmount: toNumber(method.maximumAmount),
  image: logoUrl(baseUrl, method.logo),
  feeFlat: toNumber(method.feeFlat),
  feePercentage: toNumber(method.feePercentage),
  ...(method.flow ? { flow: method.flow } : {}),
});

/**
 * A crypto of the catalog as the session describes it (docs/design.md, "Crypto": what its wallet payment request
 * needs), before its price.
 */
const cryptoMethod = (baseUrl: string, crypto: CryptoDef) => ({
  depositPaymentType: METHOD_KINDS.crypto.depositPaymentType,
  bankName: crypto.name,
  bankCode: crypto.id,
  name: `${crypto.name} (${crypto.networkName})`,
  currency: crypto.id,
  minimumAmount: 0,
  maximumAmount: toNumber(crypto.maximumAmount),
  image: logoUrl(baseUrl, crypto.logo),
  feeFlat: 0,
  feePercentage: 0,
  crypto: {
    symbol: crypto.symbol,
    network: crypto.network,
    networkName: crypto.networkName,
    decimals: crypto.decimal,
    blockchainType: crypto.blockchainType,
    chainId: crypto.chainId,
    address: crypto.address,
  },
});

/**
 * The checkout session (GET /checkout/{id}/session): the fiat methods, then the cryptos that pair with the input
 * currency, each with what paying with it costs; pending after a partial payment, priced for what is still due
 * (docs/design.md, "Payments that do not go as planned").
 */
export function checkoutSession(
  baseUrl: string,
  checkout: CheckoutRow,
  deposit: { row: DepositRow; view: DepositView } | undefined,
  now: Date,
  rates: RateTable,
) {
  const due = checkoutStillDue(
    checkout,
    deposit && {
      status: deposit.view.status,
      paid: deposit.view.payments.length > 0,
      lacking: money(deposit.view.remainingValue).minus(uniqueCodeValue(deposit.row)),
    },
  );
  const fiat = offersFor(due, rates).map(({ quote, shopperFee, available }) => ({
    ...fiatMethod(baseUrl, quote.method),
    paymentAmount: toNumber(quote.inputAmount),
    fee: toNumber(quote.fee),
    shopperFee: toNumber(shopperFee),
    outputAmount: toNumber(quote.outputAmount),
    available,
  }));
  const crypto = cryptoOffersFor(due, rates).map(({ crypto, inputAmount, rate, outputAmount, withinLimits }) => ({
    ...cryptoMethod(baseUrl, crypto),
    paymentAmount: toNumber(inputAmount),
    fee: 0,
    shopperFee: 0,
    outputAmount: toNumber(outputAmount),
    available: withinLimits,
    exchangeRate: { from: crypto.id, to: checkout.output_currency, rate: toText(rate) },
  }));
  return {
    id: checkout.id,
    inputCurrency: checkout.input_currency,
    inputAmount: checkout.input_amount === null ? null : toNumber(checkout.input_amount),
    outputCurrency: checkout.output_currency,
    outputAmount: checkout.output_amount === null ? null : toNumber(checkout.output_amount),
    orderAmount: checkoutAmount(checkout, rates),
    feesPaidBy: feesPaidBy(checkout),
    expiresAt: checkout.expires_at,
    expired: checkout.expires_at <= now.toISOString(),
    methods: [...fiat, ...crypto],
    deposit: deposit?.view ?? null,
  };
}

/** The catalog's description of the method a deposit pays with (its bankCode, or its crypto id). */
function depositMethod(baseUrl: string, view: DepositView) {
  if (view.depositType === 'crypto') {
    const crypto = findCrypto(view.inputCurrency);
    return crypto && cryptoMethod(baseUrl, crypto);
  }
  const method = findPaymentMethod(view.paymentFiat.bankCode ?? '');
  return method && fiatMethod(baseUrl, method);
}

/** The checkout's deposit as the widget shows it; `orderAmount` is checkoutAmount(), the shopper's fee is on top of it. */
export function widgetDeposit(
  baseUrl: string,
  checkout: CheckoutRow,
  view: DepositView,
  orderAmount: string,
): WidgetDepositRecord {
  return toWidgetDeposit(view, { feesPaidBy: feesPaidBy(checkout), method: depositMethod(baseUrl, view), orderAmount });
}

export function widgetCheckout(
  baseUrl: string,
  checkout: CheckoutRow,
  deposit: { row: DepositRow; view: DepositView } | undefined,
  now: Date,
  rates: RateTable,
): WidgetCheckout {
  const session = checkoutSession(baseUrl, checkout, deposit, now, rates);
  const view = session.deposit && widgetDeposit(baseUrl, checkout, session.deposit, session.orderAmount);
  return toWidgetCheckout(session, { events: false, now, deposit: view });
}

/**
 * A strong ETag over what a poller cares about: status, last change and method (a switch changes updated_at, and
 * the method makes two switches within one millisecond differ too).
 */
export function depositEtag(row: DepositRow): string {
  return etagOf(`${row.deposit_id}|${row.status}|${row.updated_at}|${row.method_code ?? row.input_currency}`);
}
