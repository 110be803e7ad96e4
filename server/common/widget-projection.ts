// The widget API's Checkout, Method and Deposit (widget/WIDGET-API.md): every field is made here, once, for both
// backends, from the payment service's interface shapes: its checkout session (GET /checkout/{id}/session) and its
// Deposit. The merchant backend passes what the service answered over HTTP; the sandbox's hosted
// checkout turns its rows into the same shapes first (provider/deposits/widget-view.ts). Nothing is spread from those
// objects, so no userId, note, payerInfo, activity history or secret can leave a widget API.
import type {
  Checkout,
  CryptoAsset,
  Deposit as WidgetDeposit,
  ExchangeRate,
  Method,
  MethodKind,
} from '@kasir/checkout';
import { Decimal } from 'decimal.js';
import { paymentUri } from './payment-uri.js';
import { maskedMobile, type EwalletFlow } from './ewallet.js';

/** Who bears a method's fee: the merchant (the checkout's input amount is the order) or the shopper (on top). */
export type FeesPaidBy = 'merchant' | 'shopper';

/** A widget Deposit as a backend keeps it: `serverTime` is stamped on it when it is answered. */
export type WidgetDepositRecord = Omit<WidgetDeposit, 'serverTime'>;

/** What a deposit shows besides its id, status, times and version: what its kind of method makes. */
type DepositDetails = Omit<WidgetDepositRecord, 'id' | 'checkoutId' | 'status' | 'expiresAt' | 'updatedAt' | 'version'>;

// ---- The interface's shapes, as far as the widget reads them (both backends' own types are assignable to these) ----

/** A crypto method's asset on its network (the session's SessionCrypto): what its wallet payment request needs. */
interface SessionCrypto {
  symbol: string;
  network: string;
  networkName: string;
  decimals: number;
  blockchainType: 'EVM' | 'STELLAR';
  chainId: number;
  /** Token contract (EVM) or issuer (Stellar); empty for a native coin. */
  address: string;
}

/**
 * A payment method as the service describes it. A method of GET /v1/deposit/payment-method has no
 * `name` and no `crypto`; the session's methods have both.
 */
export interface MethodDescription {
  depositPaymentType: string;
  /** E-wallet: how the wallet takes the payment (docs/indonesian-payments.md). */
  flow?: EwalletFlow;
  bankCode: string;
  bankName: string;
  image: string;
  name?: string;
  crypto?: SessionCrypto;
}

/** A method as the session lists it: what paying with it costs this checkout. */
interface SessionMethod extends MethodDescription {
  name: string;
  currency: string;
  /** What the payer sends (for a crypto the exact token amount). */
  paymentAmount: number;
  /** What the shopper pays on top of the order (0 when the merchant bears the fee). */
  shopperFee: number;
  available: boolean;
  exchangeRate?: ExchangeRate;
}

interface CheckoutSession {
  id: string;
  inputCurrency: string;
  /** What the order costs in inputCurrency, as exact decimal text. */
  orderAmount: string;
  feesPaidBy: FeesPaidBy;
  expiresAt: string;
  methods: readonly SessionMethod[];
}

/** The Deposit, as the payment service's interface defines it. */
interface Deposit {
  depositId: string;
  depositType: 'fiat' | 'crypto';
  inputCurrency: string;
  inputAmount: number;
  status: 'pending' | 'expired' | 'completed';
  fee: { amount: number };
  paymentFiat: {
    bankName?: string;
    bankCode?: string;
    accountName?: string;
    accountNumber?: string;
    checkoutUrl?: string;
    uniqueCode?: string;
    /** E-wallet (docs/indonesian-payments.md): its flow; a push's number (E.164) and window. */
    flow?: EwalletFlow;
    mobileNumber?: string;
    pushExpiresAt?: string;
    /** Mandiri VA (a bill payment): the biller code and the bill key. */
    billerCode?: string;
    billKey?: string;
    /** The QR value: `qrData` in create and read answers, `qrCode` as the interface names it. */
    qrData?: string;
    qrCode?: string;
  };
  paymentCrypto: { payoutWallet?: string; memo?: string; memoType?: 'id' | 'text' };
  paidAmount: number;
  remainingAmount: number;
  overpaidAmount: number;
  payments: ReadonlyArray<{ late: boolean; amount?: number; currency?: string }>;
  exchangeInfo?: { exchangeRate: number; outputCurrency: string };
  /** The last failed attempt to pay, while it is the deposit's latest news (docs/indonesian-payments.md). */
  lastFailure?: { reason: 'declined' | 'insufficient_balance' | 'timeout'; failedAt: string };
  expiredAt: string;
  updatedAt: string;
  version: number;
}

// ---- The projection ----

/**
 * Exact decimal text of an interface amount ("150000", never "1.5e+5"; "0.00272728", no trailing zeros). For a token
 * amount this is the text that is shown, copied and counted in the payment request (docs/design.md, "The shopper's
 * choice, on any device").
 */
const decimalText = (value: number | string | Decimal): string => new Decimal(value).toFixed();

/**
 * The service's depositPaymentType spellings of each widget kind, compared in lower case without separators
 * ("bank_transfer" is "banktransfer"). Every kind has its row (a new MethodKind fails to compile here until it has
 * one); a type no row names is no kind (UnknownMethodKindError), never a default.
 */
const PAYMENT_TYPES = {
  va: ['va', 'virtualaccount'],
  bank: ['banktransfer', 'bank', 'transfer'],
  qris: ['qris', 'qr'],
  ewallet: ['ewallet', 'wallet'],
  crypto: ['crypto'],
} as const satisfies Record<MethodKind, readonly string[]>;

const KIND_OF_PAYMENT_TYPE = new Map<string, MethodKind>(
  (Object.entries(PAYMENT_TYPES) as [MethodKind, readonly string[]][]).flatMap(([kind, types]) =>
    types.map((type) => [type, kind] as const),
  ),
);

/** A depositPaymentType no kind of the widget names: the method cannot be shown (never as another kind). */
export class UnknownMethodKindError extends Error {
  constructor(readonly depositPaymentType: string) {
    super(`unknown depositPaymentType "${depositPaymentType}": no kind of method of the widget is it`);
    this.name = 'UnknownMethodKindError';
  }
}

/** The kind a depositPaymentType names, if any. */
const kindNamed = (type: string): MethodKind | undefined =>
  KIND_OF_PAYMENT_TYPE.get(type.toLowerCase().replace(/[^a-z]/g, ''));

/** The widget's kind of a method: the service's depositPaymentType in any of its spellings. */
export function methodKind(type: string): MethodKind {
  const kind = kindNamed(type);
  if (!kind) throw new UnknownMethodKindError(type);
  return kind;
}

/** The payment types warned of already: one warning per type a process meets. */
const warnedTypes = new Set<string>();

/** Whether a method is of a kind the widget shows; one process warning per unknown type otherwise. */
function shownMethod(m: Pick<MethodDescription, 'depositPaymentType' | 'bankCode' | 'crypto'>): boolean {
  if (m.crypto) return true;
  try {
    methodKind(m.depositPaymentType);
    return true;
  } catch (err) {
    if (!(err instanceof UnknownMethodKindError)) throw err;
    if (!warnedTypes.has(err.depositPaymentType)) {
      warnedTypes.add(err.depositPaymentType);
      process.emitWarning(`${err.message}; its methods (${m.bankCode} first) are left out of the checkout`, {
        code: 'KASIR_UNKNOWN_METHOD_KIND',
      });
    }
    return false;
  }
}

/**
 * A deposit's kind when its method is not known: what its payment details are (a wallet's flow or page, a QR, a
 * bill key or a VA code, an account to transfer to). Details that tell no kind are an error, not a bank.
 */
function kindOfDetails(pf: Deposit['paymentFiat'], code: string): MethodKind {
  if (pf.flow || pf.checkoutUrl) return 'ewallet';
  if (pf.qrData || pf.qrCode) return 'qris';
  if (pf.billKey || /_VA$/i.test(code)) return 'va';
  if (pf.accountNumber) return 'bank';
  throw new UnknownMethodKindError(`(none; details of ${code || 'no method'})`);
}

/**
 * Its `name`, or without one (GET /v1/deposit/payment-method has none): "BCA Virtual Account", "QRIS", "OVO", "BCA Bank
 * Transfer".
 */
function methodName(method: Pick<MethodDescription, 'bankName' | 'bankCode' | 'depositPaymentType' | 'name'>): string {
  if (method.name) return method.name;
  const name = method.bankName || method.bankCode;
  const kind = kindNamed(method.depositPaymentType);
  if (kind === 'va' && !/virtual account/i.test(name)) return `${name} Virtual Account`;
  if (kind === 'bank' && !/transfer/i.test(name)) return `${name} Bank Transfer`;
  return name;
}

const cryptoAsset = (c: SessionCrypto): CryptoAsset => ({
  symbol: c.symbol,
  network: c.network,
  networkName: c.networkName,
  decimals: c.decimals,
});

const rateView = (rate: ExchangeRate): ExchangeRate => ({ from: rate.from, to: rate.to, rate: decimalText(rate.rate) });

/**
 * A method the session offers, with what it costs: the session's own figures (docs/design.md, "Crypto" for a crypto).
 */
function toWidgetMethod(m: SessionMethod): Method {
  const view: Method = {
    kind: m.crypto ? 'crypto' : methodKind(m.depositPaymentType),
    code: m.bankCode,
    name: methodName(m),
    image: m.image,
    currency: m.currency,
    fee: m.crypto ? '0' : decimalText(m.shopperFee),
    total: decimalText(m.paymentAmount),
    available: m.available,
    ...(m.flow ? { flow: m.flow } : {}),
  };
  if (!m.crypto) return view;
  return { ...view, ...cryptoAsset(m.crypto), ...(m.exchangeRate ? { exchangeRate: rateView(m.exchangeRate) } : {}) };
}

/** The method a deposit pays with: its bankCode, or for a crypto deposit the crypto id. */
export const depositMethodCode = (d: Pick<Deposit, 'depositType' | 'inputCurrency' | 'paymentFiat'>): string =>
  d.depositType === 'crypto' ? d.inputCurrency : (d.paymentFiat.bankCode ?? '');

export interface DepositContext {
  /** Who bears the fee on this checkout. */
  feesPaidBy: FeesPaidBy;
  /**
   * The deposit's method (depositMethodCode) as the service describes it, when known: its name, logo and kind; for a
   * crypto its network, decimals, chain id and token, without which there is no payment request to show.
   */
  method?: MethodDescription;
  /** What the order costs, when known: the shopper's fee is what the deposit asks on top of it. */
  orderAmount?: string;
}

/**
 * What arrived as it arrived (docs/money.md): the payments summed per currency, in the order of first arrival, each
 * with its token's symbol (a crypto id's first part); none before any payment.
 */
function receivedOf(d: Deposit): NonNullable<WidgetDeposit['received']> {
  const sums = new Map<string, Decimal>();
  for (const p of d.payments) {
    if (typeof p.amount !== 'number' || !p.currency) continue;
    sums.set(p.currency, (sums.get(p.currency) ?? new Decimal(0)).plus(decimalText(p.amount)));
  }
  return [...sums].map(([currency, amount]) => ({
    amount: amount.toFixed(),
    currency,
    ...(/^[A-Z]{3}$/.test(currency) ? {} : { symbol: currency.split('-')[0] }),
  }));
}

/**
 * What arrived, what is still due and what arrived beyond it (docs/design.md, "Payments that do not go as planned"), in
 * the deposit's currency; and as it arrived.
 */
const paidFields = (
  d: Deposit,
): Pick<WidgetDeposit, 'paidAmount' | 'remainingAmount' | 'overpaidAmount' | 'paidLate' | 'received'> => ({
  paidAmount: decimalText(d.paidAmount),
  remainingAmount: decimalText(d.remainingAmount),
  overpaidAmount: decimalText(d.overpaidAmount),
  paidLate: d.payments.some((p) => p.late),
  received: receivedOf(d),
});

/** The rate a converted deposit is priced at (its exchangeInfo), when it converts. */
function depositExchangeRate(d: Deposit): ExchangeRate | undefined {
  const info = d.exchangeInfo;
  if (!info || info.outputCurrency === d.inputCurrency) return undefined;
  return { from: d.inputCurrency, to: info.outputCurrency, rate: decimalText(info.exchangeRate) };
}

/** The shopper's fee: what the deposit asks on top of the order, less a bank transfer's unique code (not a fee). */
function shopperFee(d: Deposit, orderAmount: string | undefined): string {
  if (orderAmount === undefined) return decimalText(d.fee.amount);
  const fee = new Decimal(d.inputAmount).minus(d.paymentFiat.uniqueCode ?? 0).minus(orderAmount);
  return decimalText(fee.isNegative() ? 0 : fee);
}

/**
 * A crypto deposit (docs/design.md, "Crypto"): the exact token amount, the address, and the wallet payment request its
 * QR encodes (payment-uri.ts), which asks for the rest only when a part has been paid (docs/design.md, "Payments that
 * do not go as planned"). Without its method the id's parts name the asset, and there is no payment request to show.
 */
function cryptoDeposit(d: Deposit, known: MethodDescription | undefined): DepositDetails {
  const crypto = known?.crypto;
  const [symbol, network = ''] = d.inputCurrency.split('-');
  const amount = decimalText(d.inputAmount);
  const paid = paidFields(d);
  const exchangeRate = depositExchangeRate(d);
  const address = d.paymentCrypto.payoutWallet;
  const { memo, memoType = 'text' } = d.paymentCrypto;
  const asked =
    d.status === 'pending' && new Decimal(paid.remainingAmount).greaterThan(0) ? paid.remainingAmount : amount;
  return {
    method: {
      kind: 'crypto',
      code: d.inputCurrency,
      name: known ? methodName(known) : d.inputCurrency,
      image: known?.image ?? '',
    },
    currency: d.inputCurrency,
    amount,
    fee: '0',
    ...paid,
    ...(crypto
      ? cryptoAsset(crypto)
      : { symbol, network, networkName: network, decimals: Math.max(new Decimal(d.inputAmount).decimalPlaces(), 0) }),
    ...(exchangeRate ? { exchangeRate } : {}),
    ...(address ? { address } : {}),
    ...(memo ? { memo, memoType } : {}),
    ...(address && crypto
      ? {
          paymentUri: paymentUri({
            blockchainType: crypto.blockchainType,
            payoutWallet: address,
            amount: asked,
            decimals: crypto.decimals,
            chainId: crypto.chainId,
            assetAddress: crypto.address,
            symbol: crypto.symbol,
            ...(memo ? { memo, memoType } : {}),
          }),
        }
      : {}),
  };
}

/** A fiat deposit: its amount, the shopper's fee, and what the payer needs for its kind of method. */
function fiatDeposit(d: Deposit, ctx: DepositContext): DepositDetails {
  const pf = d.paymentFiat;
  const code = pf.bankCode ?? '';
  const known = ctx.method;
  const qrData = pf.qrData || pf.qrCode;
  // Without its method (or with one of a type no kind names), the payment details tell the kind.
  const kind = known && shownMethod(known) ? methodKind(known.depositPaymentType) : kindOfDetails(pf, code);
  const exchangeRate = depositExchangeRate(d);
  return {
    method: {
      kind,
      code,
      name: methodName(known ?? { bankName: pf.bankName ?? code, bankCode: code, depositPaymentType: kind }),
      image: known?.image ?? '',
    },
    currency: d.inputCurrency,
    amount: decimalText(d.inputAmount),
    fee: ctx.feesPaidBy === 'shopper' ? shopperFee(d, ctx.orderAmount) : '0',
    ...paidFields(d),
    ...(exchangeRate ? { exchangeRate } : {}),
    ...((kind === 'va' || kind === 'bank') && pf.accountNumber ? { accountNumber: pf.accountNumber } : {}),
    ...((kind === 'va' || kind === 'bank') && pf.accountName ? { accountName: pf.accountName } : {}),
    ...(kind === 'va' && pf.billerCode && pf.billKey ? { billerCode: pf.billerCode, billKey: pf.billKey } : {}),
    ...(kind === 'bank' && pf.uniqueCode && /^\d{1,3}$/.test(pf.uniqueCode) ? { uniqueCode: pf.uniqueCode } : {}),
    ...(kind === 'qris' && qrData ? { qrData } : {}),
    ...(kind === 'ewallet' && pf.checkoutUrl && /^https?:\/\//i.test(pf.checkoutUrl)
      ? { checkoutUrl: pf.checkoutUrl }
      : {}),
    ...(kind === 'ewallet' ? walletDetails(d, pf, qrData) : {}),
  };
}

/** An e-wallet deposit's flow (docs/indonesian-payments.md): a push's masked number and window, a qr-or-app's QR. */
function walletDetails(
  d: Deposit,
  pf: Deposit['paymentFiat'],
  qrData: string | undefined,
): Pick<WidgetDepositRecord, 'flow' | 'phone' | 'walletExpiresAt' | 'qrData'> {
  const flow = pf.flow;
  if (!flow) return {};
  return {
    flow,
    ...(flow === 'push' && pf.mobileNumber ? { phone: maskedMobile(pf.mobileNumber) } : {}),
    ...(flow === 'push' && pf.pushExpiresAt && d.status === 'pending' ? { walletExpiresAt: pf.pushExpiresAt } : {}),
    ...(flow === 'qr-or-app' && qrData ? { qrData } : {}),
  };
}

/** A checkout's deposit as the widget shows it (its id is the checkout's). */
export function toWidgetDeposit(d: Deposit, ctx: DepositContext): WidgetDepositRecord {
  return {
    id: d.depositId,
    checkoutId: d.depositId,
    status: d.status,
    ...(d.depositType === 'crypto' ? cryptoDeposit(d, ctx.method) : fiatDeposit(d, ctx)),
    ...(d.status === 'pending' && d.lastFailure
      ? { failure: { reason: d.lastFailure.reason, failedAt: d.lastFailure.failedAt } }
      : {}),
    expiresAt: d.expiredAt,
    updatedAt: d.updatedAt,
    version: d.version,
  };
}

/** A checkout as the widget shows it: the session's methods and what each costs, and the deposit stamped with `now`. */
export function toWidgetCheckout(
  s: CheckoutSession,
  o: { events: boolean; now: Date; deposit: WidgetDepositRecord | null },
): Checkout {
  const serverTime = o.now.toISOString();
  return {
    id: s.id,
    currency: s.inputCurrency,
    amount: s.orderAmount,
    expiresAt: s.expiresAt,
    serverTime,
    feesPaidBy: s.feesPaidBy,
    capabilities: { events: o.events },
    methods: s.methods.filter(shownMethod).map(toWidgetMethod),
    deposit: o.deposit ? { ...o.deposit, serverTime } : null,
  };
}
