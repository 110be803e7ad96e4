// The widget API's shapes (widget/WIDGET-API.md) for the hosted checkout's own checkouts.
import { etagOf } from '../../common/etag.js';
import { paymentUri } from '../../common/payment-uri.js';
import { findCrypto, findPaymentMethod, PAYMENT_METHODS, type CryptoDef, type RateTable } from '../catalog/index.js';
import { logoUrl } from '../catalog/logos.js';
import { money, toText, type Money } from '../money.js';
import { cryptoOffersFor, offersFor, type CheckoutRow } from './checkout.js';
import { checkoutStillDue } from './payments.js';
import { paidAmountsOf, paymentCryptoOf, paymentFiatOf, type DepositRow } from './view.js';

// The shapes are the widget's contract, declared once beside it (type-only).
export type { Checkout as WidgetCheckout, Deposit as WidgetDeposit } from '@kasir/checkout';
import type { Checkout as WidgetCheckout, CryptoAsset, Deposit as WidgetDeposit, Method as WidgetMethod } from '@kasir/checkout';

export const feesPaidBy = (checkout: CheckoutRow): 'merchant' | 'shopper' => (checkout.input_amount !== null ? 'merchant' : 'shopper');

/** What a crypto method and its deposit carry besides the fiat fields (DESIGN.md 8). */
const cryptoAsset = (crypto: CryptoDef): CryptoAsset => ({
  symbol: crypto.symbol, network: crypto.network, networkName: crypto.networkName, decimals: crypto.decimal,
});

/**
 * A token amount as a person reads and types it (DESIGN.md 12): plain decimal text without trailing zeros
 * ("9.093665", "0.00272728"), the same text the payment request's base units are counted from.
 */
const tokenAmount = (amount: Money | string): string => toText(money(amount));

/** The methods and what each costs; pending after a partial payment, priced for what is still due (DESIGN.md 10). */
function widgetMethods(baseUrl: string, checkout: CheckoutRow, deposit: DepositRow | undefined, rates: RateTable): WidgetMethod[] {
  const due = checkoutStillDue(checkout, deposit);
  const fiat = offersFor(due, rates).map((o): WidgetMethod => ({
    kind: o.quote.method.kind, code: o.quote.method.code, name: o.quote.method.name, image: logoUrl(baseUrl, o.quote.method.logo),
    currency: o.quote.method.currency, fee: toText(o.shopperFee), total: toText(o.quote.inputAmount), available: o.available,
  }));
  const crypto = cryptoOffersFor(due, rates).map((o): WidgetMethod => ({
    kind: 'crypto', code: o.crypto.id, name: `${o.crypto.name} (${o.crypto.networkName})`, image: logoUrl(baseUrl, o.crypto.logo),
    currency: o.crypto.id, fee: '0', total: tokenAmount(o.inputAmount), available: o.withinLimits, ...cryptoAsset(o.crypto),
    exchangeRate: { from: o.crypto.id, to: checkout.output_currency, rate: toText(o.rate) },
  }));
  return [...fiat, ...crypto];
}

/** What the order costs in the checkout's (input) currency. */
export function checkoutAmount(checkout: CheckoutRow, rates: RateTable): string {
  if (checkout.input_amount !== null) return checkout.input_amount;
  const offers = offersFor(checkout, rates);
  return offers.length ? toText(offers[0].amount) : checkout.output_amount!;
}

/** What a deposit asks of the payer: pending after a partial payment, only the rest (DESIGN.md 10). */
function amountAsked(row: Pick<DepositRow, 'status' | 'input_amount' | 'paid_amount'>): string {
  const { remaining } = paidAmountsOf(row);
  return tokenAmount(row.status === 'pending' && !remaining.isZero() ? remaining : row.input_amount);
}

/** The wallet payment request of a crypto deposit row (its QR's text), for what is still due. */
function depositPaymentUri(row: Pick<DepositRow, 'input_amount' | 'paid_amount' | 'status'>, payoutWallet: string, crypto: CryptoDef): string {
  return paymentUri({
    blockchainType: crypto.blockchainType, payoutWallet, amount: amountAsked(row), decimals: crypto.decimal, chainId: crypto.chainId,
    assetAddress: crypto.address, symbol: crypto.symbol,
  });
}

/** Paid, still due and overpaid as the widget shows them (DESIGN.md 10), in the deposit's currency. */
function paidFields(row: DepositRow, format: (amount: Money) => string): Pick<WidgetDeposit, 'paidAmount' | 'remainingAmount' | 'overpaidAmount' | 'paidLate'> {
  const { paid, remaining, overpaid } = paidAmountsOf(row);
  return { paidAmount: format(paid), remainingAmount: format(remaining), overpaidAmount: format(overpaid), paidLate: row.paid_late === 1 };
}

export function widgetDeposit(baseUrl: string, checkout: CheckoutRow, row: DepositRow, now: Date, rates: RateTable): WidgetDeposit {
  const expiry = { expiresAt: row.expired_at, serverTime: now.toISOString(), updatedAt: row.updated_at, version: row.version };
  const crypto = row.deposit_type === 'crypto' ? findCrypto(row.input_currency) : undefined;
  if (crypto) {
    const address = paymentCryptoOf(row).payoutWallet ?? '';
    return {
      ...paidFields(row, tokenAmount),
      id: row.deposit_id, checkoutId: checkout.id, status: row.status,
      method: { kind: 'crypto', code: crypto.id, name: `${crypto.name} (${crypto.networkName})`, image: logoUrl(baseUrl, crypto.logo) },
      currency: crypto.id, amount: tokenAmount(row.input_amount), fee: '0', ...cryptoAsset(crypto),
      address, paymentUri: depositPaymentUri(row, address, crypto),
      exchangeRate: { from: crypto.id, to: row.output_currency, rate: row.exchange_rate },
      ...expiry,
    };
  }
  const method = findPaymentMethod(row.method_code ?? '') ?? PAYMENT_METHODS[0];
  const fiat = paymentFiatOf(row);
  // The shopper's fee is what the deposit asks on top of the order, less a bank transfer's unique code (not a fee).
  const fee = feesPaidBy(checkout) === 'merchant' ? money(0) : money(row.input_amount).minus(fiat.uniqueCode ?? 0).minus(checkoutAmount(checkout, rates));
  return {
    id: row.deposit_id,
    checkoutId: checkout.id,
    status: row.status,
    method: { kind: method.kind, code: method.code, name: method.name, image: logoUrl(baseUrl, method.logo) },
    currency: row.input_currency,
    amount: row.input_amount,
    fee: toText(fee.isNegative() ? money(0) : fee),
    ...paidFields(row, toText),
    ...(fiat.accountNumber ? { accountNumber: fiat.accountNumber, accountName: fiat.accountName } : {}),
    ...(fiat.qrData ? { qrData: fiat.qrData } : {}),
    ...(fiat.checkoutUrl ? { checkoutUrl: fiat.checkoutUrl } : {}),
    ...(fiat.uniqueCode ? { uniqueCode: fiat.uniqueCode } : {}),
    ...(row.input_currency !== row.output_currency ? { exchangeRate: { from: row.input_currency, to: row.output_currency, rate: row.exchange_rate } } : {}),
    ...expiry,
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
    methods: widgetMethods(baseUrl, checkout, deposit, rates),
    deposit: deposit ? widgetDeposit(baseUrl, checkout, deposit, now, rates) : null,
  };
}

/**
 * A strong ETag over what a poller cares about: status, last change and method (a switch changes updated_at, and
 * the method makes two switches within one millisecond differ too).
 */
export function depositEtag(row: DepositRow): string {
  return etagOf(`${row.deposit_id}|${row.status}|${row.updated_at}|${row.method_code ?? row.input_currency}`);
}
