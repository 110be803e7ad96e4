// What a shopper may see: the widget API's shapes (widget/WIDGET-API.md), built field by field from the
// payment service's resources. Nothing is spread from upstream objects, so no userId, note, payerInfo,
// activity history or secret can ever leave /api.
import { Decimal } from 'decimal.js';
import { paymentUri } from '../common/payment-uri.js';
import type { CheckoutSession, Deposit as UpstreamDeposit, PaymentMethod, SessionCrypto, SessionPaymentMethod } from './client/types.js';
import type { FeesPaidBy, StoredDeposit } from './model.js';

// The shapes themselves are the widget's contract, declared once beside it (type-only: nothing runs across).
export type { Checkout as WidgetCheckout, Deposit as WidgetDeposit, Method as WidgetMethod } from '@kasir/checkout';
import type {
  Checkout as WidgetCheckout, CryptoAsset, DepositStatus, ExchangeRate, MethodKind, Method as WidgetMethod,
} from '@kasir/checkout';

/** Decimal places of a currency's amounts (IDR and other zero-decimal currencies 0, crypto 8, others 2). */
export function precision(currency: string): number {
  if (currency.includes('-')) return 8;
  return ['IDR', 'JPY', 'KRW', 'VND', 'CLP', 'ISK', 'UGX', 'XAF', 'XOF'].includes(currency.toUpperCase()) ? 0 : 2;
}

/** An exact decimal string of a JSON number or numeric string ("150000", never "1.5e+5"). */
function decimalText(value: number | string | Decimal | null | undefined): string {
  if (value === null || value === undefined || value === '') return '0';
  try {
    return new Decimal(value).toFixed();
  } catch {
    return '0';
  }
}

function methodKind(type: string | undefined, code = ''): MethodKind {
  const t = (type ?? '').toLowerCase().replace(/[^a-z]/g, '');
  if (t === 'crypto') return 'crypto';
  if (t === 'qris' || t === 'qr') return 'qris';
  if (t === 'va' || t.includes('virtual')) return 'va';
  if (t.includes('wallet')) return 'ewallet';
  if (t.includes('bank') || t.includes('transfer')) return 'bank';
  if (/qris/i.test(code)) return 'qris';
  if (/_VA$/i.test(code)) return 'va';
  return 'bank';
}

/** "BCA Virtual Account", "QRIS", "OVO", "BCA Bank Transfer". */
function methodName(method: Pick<PaymentMethod, 'bankName' | 'depositPaymentType' | 'bankCode'> & { name?: unknown }): string {
  if (typeof method.name === 'string' && method.name) return method.name;
  const name = method.bankName || method.bankCode;
  const kind = methodKind(method.depositPaymentType, method.bankCode);
  if (kind === 'va' && !/virtual account/i.test(name)) return `${name} Virtual Account`;
  if (kind === 'bank' && !/transfer/i.test(name)) return `${name} Bank Transfer`;
  return name;
}

const num = (v: unknown): Decimal | null => {
  if (typeof v === 'number' && Number.isFinite(v)) return new Decimal(v);
  if (typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v))) return new Decimal(v);
  if (v && typeof v === 'object' && 'amount' in v) return num((v as { amount: unknown }).amount);
  return null;
};

/**
 * Fee and total for the shopper with one method. The session's own figures win (paymentAmount, shopperFee).
 * Without them: merchant bears the fee, the shopper pays the amount, fee 0; shopper bears it, the smallest
 * input whose output after fee (feeFlat + input x feePercentage / 100) reaches the amount, rounded up.
 */
function quote(method: SessionPaymentMethod, amount: string, currency: string, feesPaidBy: FeesPaidBy): { fee: string; total: string } {
  const a = new Decimal(amount);
  const total = num(method.paymentAmount);
  const fee = num(method.shopperFee);
  if (total && fee) return { fee: decimalText(fee), total: decimalText(total) };
  if (feesPaidBy === 'merchant') return { fee: '0', total: decimalText(a) };
  const p = new Decimal(method.feePercentage || 0).div(100);
  const computed = a.plus(method.feeFlat || 0).div(new Decimal(1).minus(p)).toDecimalPlaces(precision(currency), Decimal.ROUND_UP);
  return { fee: decimalText(computed.minus(a)), total: decimalText(computed) };
}

const cryptoAsset = (c: SessionCrypto): CryptoAsset => ({ symbol: c.symbol, network: c.network, networkName: c.networkName, decimals: c.decimals });

/**
 * A token amount as a person reads and types it (DESIGN.md 12): the exact decimal text of the service's JSON number,
 * without trailing zeros ("9.093665", "0.00272728"); what is shown, copied and counted in the payment request.
 */
const tokenAmount = (value: unknown): string => decimalText(value instanceof Decimal ? value : num(value));

function exchangeRateView(rate: { from?: unknown; to?: unknown; rate?: unknown } | undefined): ExchangeRate | undefined {
  if (!rate || typeof rate.from !== 'string' || typeof rate.to !== 'string' || num(rate.rate) === null) return undefined;
  return { from: rate.from, to: rate.to, rate: decimalText(num(rate.rate)) };
}

/** A crypto the session offers (DESIGN.md 8): the exact token amount, its network, and the rate it is priced at. */
function cryptoMethodView(m: SessionPaymentMethod, crypto: SessionCrypto): WidgetMethod {
  const exchangeRate = exchangeRateView(m.exchangeRate);
  return {
    kind: 'crypto',
    code: String(m.bankCode),
    name: methodName(m),
    image: typeof m.image === 'string' ? m.image : '',
    currency: m.currency || String(m.bankCode),
    fee: '0',
    total: tokenAmount(m.paymentAmount),
    available: typeof m.available === 'boolean' ? m.available : true,
    ...cryptoAsset(crypto),
    ...(exchangeRate ? { exchangeRate } : {}),
  };
}

function methodView(m: SessionPaymentMethod, amount: string, currency: string, feesPaidBy: FeesPaidBy): WidgetMethod {
  if (m.crypto) return cryptoMethodView(m, m.crypto);
  const { fee, total } = quote(m, amount, currency, feesPaidBy);
  const t = new Decimal(total);
  const min = num(m.minimumAmount);
  const max = num(m.maximumAmount);
  return {
    kind: methodKind(m.depositPaymentType, m.bankCode),
    code: String(m.bankCode),
    name: methodName(m),
    image: typeof m.image === 'string' ? m.image : '',
    currency: m.currency || currency,
    fee,
    total,
    available: typeof m.available === 'boolean' ? m.available : (!min || t.greaterThanOrEqualTo(min)) && (!max || max.isZero() || t.lessThanOrEqualTo(max)),
  };
}

/** A method as a deposit's view looks it up: the interface's fields, and a session's crypto details when it has them. */
type KnownMethod = Pick<PaymentMethod, 'bankCode' | 'bankName' | 'depositPaymentType' | 'image'> & { name?: unknown; crypto?: SessionCrypto };

export interface DepositContext {
  /** Who bears the fee on this checkout. */
  feesPaidBy: FeesPaidBy;
  /**
   * The methods known for the deposit's currency, to name the chosen one and find its logo; a crypto deposit finds its
   * network, decimals, chain id and token here (the session's crypto methods) for its payment request.
   */
  methods?: ReadonlyArray<KnownMethod>;
  /** What the order costs, when known: the shopper's fee is what the deposit asks on top of it. */
  orderAmount?: string;
}

type PaidFields = Pick<StoredDeposit, 'paidAmount' | 'remainingAmount' | 'overpaidAmount' | 'paidLate'>;

/**
 * What arrived, what is still due and what arrived beyond it (DESIGN.md 10), as decimal text in the deposit's currency.
 * A service that does not report payments: nothing arrived before completion, and all of it once completed.
 */
function paidFields(d: UpstreamDeposit, format: (value: Decimal) => string): PaidFields {
  const amount = num(d.inputAmount) ?? new Decimal(0);
  const reported = num(d.paidAmount);
  const paid = reported ?? (d.status === 'completed' ? amount : new Decimal(0));
  const remaining = num(d.remainingAmount) ?? (d.status === 'completed' ? new Decimal(0) : Decimal.max(amount.minus(paid), 0));
  const overpaid = num(d.overpaidAmount) ?? Decimal.max(paid.minus(amount), 0);
  const late = Array.isArray(d.payments) && d.payments.some((p) => p?.late === true);
  return { paidAmount: format(paid), remainingAmount: format(remaining), overpaidAmount: format(overpaid), paidLate: late };
}

/** The rate a converted deposit is priced at (its exchangeInfo), when it converts. */
function depositExchangeRate(d: UpstreamDeposit): ExchangeRate | undefined {
  const info = d.exchangeInfo;
  if (!info || info.outputCurrency === d.inputCurrency) return undefined;
  return exchangeRateView({ from: d.inputCurrency, to: info.outputCurrency, rate: info.exchangeRate });
}

/**
 * A crypto deposit (DESIGN.md 8): the exact token amount, the address, and the wallet payment request its QR encodes
 * (server/common/payment-uri.ts). Network, decimals, chain id and token come from the session's method; without it
 * (a service whose session does not say) the id's parts name the asset, and there is no paymentUri to show.
 */
function cryptoDepositView(d: UpstreamDeposit, known: KnownMethod | undefined, base: Omit<StoredDeposit, 'method' | 'amount' | 'fee' | keyof PaidFields>): StoredDeposit {
  const crypto = known?.crypto;
  const [symbol, network = ''] = d.inputCurrency.split('-');
  const decimals = crypto?.decimals ?? Math.max(new Decimal(d.inputAmount).decimalPlaces(), 0);
  const amount = tokenAmount(d.inputAmount);
  const paid = paidFields(d, (value) => tokenAmount(value));
  // Pending after a partial payment, the payment request asks for the rest only (DESIGN.md 10).
  const asked = statusOf(d) === 'pending' && new Decimal(paid.remainingAmount).greaterThan(0) ? paid.remainingAmount : amount;
  const address = d.paymentCrypto?.payoutWallet;
  const exchangeRate = depositExchangeRate(d);
  const view: StoredDeposit = {
    ...base,
    method: { kind: 'crypto', code: d.inputCurrency, name: known ? methodName(known) : d.inputCurrency, image: known?.image ?? '' },
    amount,
    fee: '0',
    ...paid,
    ...(crypto ? cryptoAsset(crypto) : { symbol, network, networkName: network, decimals }),
    ...(exchangeRate ? { exchangeRate } : {}),
  };
  if (address) {
    view.address = address;
    if (crypto) {
      view.paymentUri = paymentUri({
        blockchainType: crypto.blockchainType, payoutWallet: address, amount: asked, decimals: crypto.decimals, chainId: crypto.chainId,
        assetAddress: crypto.address, symbol: crypto.symbol,
      });
    }
  }
  return view;
}

const statusOf = (d: Pick<UpstreamDeposit, 'status'>): DepositStatus => (d.status === 'completed' || d.status === 'expired' ? d.status : 'pending');

export function depositView(d: UpstreamDeposit, ctx: DepositContext): StoredDeposit {
  const status = statusOf(d);
  if (d.depositType === 'crypto') {
    const known = ctx.methods?.find((m) => m.bankCode === d.inputCurrency);
    const base = { id: d.depositId, checkoutId: d.depositId, status, currency: d.inputCurrency, expiresAt: d.expiredAt, updatedAt: d.updatedAt, version: d.version };
    return cryptoDepositView(d, known, base);
  }
  const pf = d.paymentFiat ?? {};
  const code = pf.bankCode ?? '';
  const known = ctx.methods?.find((m) => m.bankCode === code);
  const qrData = pf.qrData || pf.qrCode;
  const kind = known
    ? methodKind(known.depositPaymentType, code)
    : qrData ? 'qris' : pf.checkoutUrl ? 'ewallet' : methodKind(undefined, code);
  const exchangeRate = depositExchangeRate(d);
  const view: StoredDeposit = {
    id: d.depositId,
    checkoutId: d.depositId,
    status,
    method: {
      kind,
      code,
      name: known ? methodName(known) : methodName({ bankName: pf.bankName ?? code, bankCode: code, depositPaymentType: kind }),
      image: known?.image ?? '',
    },
    currency: d.inputCurrency,
    amount: decimalText(d.inputAmount),
    fee: ctx.feesPaidBy === 'shopper' ? shopperFee(d, ctx.orderAmount) : '0',
    ...paidFields(d, decimalText),
    ...(exchangeRate ? { exchangeRate } : {}),
    expiresAt: d.expiredAt,
    updatedAt: d.updatedAt,
    version: d.version,
  };
  if (kind === 'va' || kind === 'bank') {
    if (pf.accountNumber) view.accountNumber = String(pf.accountNumber);
    if (pf.accountName) view.accountName = pf.accountName;
  }
  if (kind === 'bank' && pf.uniqueCode && /^\d{1,3}$/.test(pf.uniqueCode)) view.uniqueCode = pf.uniqueCode;
  if (kind === 'qris' && qrData) view.qrData = qrData;
  if (kind === 'ewallet' && pf.checkoutUrl && /^https?:\/\//i.test(pf.checkoutUrl)) view.checkoutUrl = pf.checkoutUrl;
  return view;
}

function shopperFee(d: UpstreamDeposit, orderAmount: string | undefined): string {
  if (orderAmount) {
    // A bank transfer's unique code raises the amount but is not a fee.
    const fee = new Decimal(d.inputAmount).minus(num(d.paymentFiat?.uniqueCode) ?? 0).minus(orderAmount);
    return decimalText(fee.isNegative() ? 0 : fee);
  }
  return decimalText(d.fee?.amount ?? 0);
}

/** The session's methods (named `methods`; `paymentMethods` accepted too). */
export function sessionMethods(s: CheckoutSession): SessionPaymentMethod[] {
  const list = (s as { methods?: unknown }).methods ?? (s as { paymentMethods?: unknown }).paymentMethods;
  return Array.isArray(list) ? (list as SessionPaymentMethod[]) : [];
}

/** Which amount the checkout was created with tells who bears the fee; the configured policy breaks a tie. */
export function sessionFeesPaidBy(s: Pick<CheckoutSession, 'inputAmount' | 'outputAmount' | 'feesPaidBy'>, fallback: FeesPaidBy): FeesPaidBy {
  if (s.feesPaidBy === 'merchant' || s.feesPaidBy === 'shopper') return s.feesPaidBy;
  const hasIn = s.inputAmount !== null && s.inputAmount !== undefined;
  const hasOut = s.outputAmount !== null && s.outputAmount !== undefined;
  if (hasIn && !hasOut) return 'merchant';
  if (hasOut && !hasIn) return 'shopper';
  return fallback;
}

/**
 * What the order costs, in the checkout's input currency. The session's `orderAmount` wins. A service that does
 * not send it: inputAmount; outputAmount when it is in the input currency (never an amount of another currency,
 * e.g. a crypto outputAmount); else what the methods say the order costs before the shopper's fee; else what this
 * backend remembers from creating the checkout.
 */
export function orderAmount(s: CheckoutSession, known?: string): string {
  const given = num(s.orderAmount);
  if (given && !given.isNegative()) return decimalText(given);
  if (s.inputAmount !== null && s.inputAmount !== undefined) return decimalText(s.inputAmount);
  const sameCurrency = !s.outputCurrency || s.outputCurrency.toUpperCase() === s.inputCurrency.toUpperCase();
  if (sameCurrency && s.outputAmount !== null && s.outputAmount !== undefined) return decimalText(s.outputAmount);
  for (const m of sessionMethods(s)) {
    const total = num(m.paymentAmount);
    const fee = num(m.shopperFee);
    if (total && fee && (!m.currency || m.currency === s.inputCurrency)) return decimalText(total.minus(fee));
  }
  return known ?? '0';
}

export function checkoutView(s: CheckoutSession, feesPaidBy: FeesPaidBy, deposit: StoredDeposit | null, now: Date, knownAmount?: string): WidgetCheckout {
  const currency = s.inputCurrency;
  const amount = orderAmount(s, knownAmount);
  return {
    id: s.id,
    currency,
    amount,
    expiresAt: s.expiresAt,
    serverTime: now.toISOString(),
    feesPaidBy,
    capabilities: { events: true },
    methods: sessionMethods(s).map((m) => methodView(m, amount, currency, feesPaidBy)),
    deposit: deposit ? { ...deposit, serverTime: now.toISOString() } : null,
  };
}
