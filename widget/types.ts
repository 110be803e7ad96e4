// The widget API's shapes (widget/WIDGET-API.md). Money is a decimal string: the element never does float arithmetic.

export type MethodKind = 'va' | 'qris' | 'ewallet' | 'bank' | 'crypto';
export type DepositStatus = 'pending' | 'completed' | 'expired';

/** What a crypto method and its deposit carry besides the fiat fields (docs/design.md, "Crypto"). */
export interface CryptoAsset {
  /** e.g. "USDC" */
  symbol: string;
  /** e.g. "POLYGON" */
  network: string;
  /** e.g. "Polygon" */
  networkName: string;
  /** The token's decimal places: `total`/`amount` have exactly this many. */
  decimals: number;
}

/** The rate a converted payment is priced at (from a quote of the payment service): 1 `from` = `rate` `to`. */
export interface ExchangeRate {
  from: string;
  to: string;
  rate: string;
}

export interface Method extends Partial<CryptoAsset> {
  kind: MethodKind;
  /** bankCode, or the crypto id (e.g. "USDC-POLYGON") */
  code: string;
  name: string;
  image: string;
  /** The currency of `fee` and `total`: the checkout's, or the crypto id */
  currency: string;
  fee: string;
  total: string;
  available: boolean;
  /** crypto and converted methods */
  exchangeRate?: ExchangeRate;
  /** e-wallet: how the wallet takes the payment (docs/indonesian-payments.md) */
  flow?: EwalletFlow;
}

/**
 * How an e-wallet takes a payment: `push` (a request to the phone number the shopper enters, approved in the app within
 * the wallet's window), `qr-or-app` (a QR on a wide screen, the app link on a phone: the same payment), `redirect` (the
 * wallet's page, which sends the shopper back).
 */
export type EwalletFlow = 'push' | 'qr-or-app' | 'redirect';

/** Why an attempt to pay failed, and when (docs/indonesian-payments.md). */
export interface PaymentFailure {
  reason: 'declined' | 'insufficient_balance' | 'timeout';
  failedAt: string;
}

export interface Deposit extends Partial<CryptoAsset> {
  id: string;
  checkoutId: string;
  status: DepositStatus;
  method: { kind: MethodKind; code: string; name: string; image: string };
  currency: string;
  amount: string;
  fee: string;
  /**
   * What arrived so far, in `currency` (docs/design.md, "Payments that do not go as planned"): "0" before any payment
   */
  paidAmount: string;
  /** What is still due, in `currency`; never below 0 */
  remainingAmount: string;
  /** More than was due arrived: by how much, in `currency`; "0" otherwise */
  overpaidAmount: string;
  /** A payment arrived after the deposit expired or was cancelled: the shop owes a refund */
  paidLate: boolean;
  /**
   * What arrived, as it arrived (docs/money.md): the sum per currency, in the order of first arrival (after a switch,
   * money paid to the earlier method stays in its own currency; `symbol` for a token); absent from older backends
   */
  received?: ReadonlyArray<{ amount: string; currency: string; symbol?: string }>;
  accountNumber?: string;
  accountName?: string;
  qrData?: string;
  checkoutUrl?: string;
  /** ewallet: the app schemes (e.g. "gojek:") its `checkoutUrl` uses; the element opens only its own list per wallet (WIDGET-API.md, "Links") */
  appSchemes?: string[];
  /** Mandiri VA (a bill payment): the biller code and the bill key the shopper enters */
  billerCode?: string;
  billKey?: string;
  /** bank: the unique code (in the currency's smallest unit) added to the amount to tell this transfer apart */
  uniqueCode?: string;
  /** crypto: the wallet address to pay */
  address?: string;
  /** crypto: the wallet payment request the QR encodes (EIP-681 or SEP-7) */
  paymentUri?: string;
  /** Stellar: the memo the payment must carry (one account per shop, a memo per deposit), and its type */
  memo?: string;
  memoType?: 'id' | 'text';
  exchangeRate?: ExchangeRate;
  /** The last failed attempt to pay (docs/indonesian-payments.md): the deposit stays pending, the shopper may try again */
  failure?: PaymentFailure;
  /** e-wallet: how the wallet takes the payment; with `qr-or-app`, `qrData` is the QR and `checkoutUrl` the app link */
  flow?: EwalletFlow;
  /** push e-wallet: the number the request went to, masked (0812****7890) */
  phone?: string;
  /** push e-wallet: when the request awaiting approval times out; absent once it ended (approved, failed) */
  walletExpiresAt?: string;
  expiresAt: string;
  serverTime: string;
  updatedAt: string;
  /** grows by one with each change of the deposit: of two answers, the higher version is the newer */
  version: number;
}

export interface Checkout {
  id: string;
  currency: string;
  amount: string;
  expiresAt: string;
  serverTime: string;
  feesPaidBy: 'merchant' | 'shopper';
  capabilities: { events: boolean };
  methods: Method[];
  deposit: Deposit | null;
}

/** The element's phase, reflected in its `state` attribute. */
export type CheckoutState = 'loading' | 'choosing' | 'pending' | 'completed' | 'expired' | 'error';

/** A bank money owed back can be sent to (the payment service's list for the currency). */
export interface RefundBank {
  code: string;
  name: string;
}

/** What a refund form asks besides the bank, the account number and the holder's name, when the shop does not know it. */
export type RefundField = 'email' | 'address' | 'city' | 'postCode';

/**
 * GET /checkouts/:id/refund-claim: money owed back for the checkout's deposit, and what the form asks to send it
 * (docs/refunds.md). `accepted: false`: this server takes no claims (the payment service's hosted page), so the element
 * offers no form.
 */
/** What is owed back in one currency, as it arrived (a token for crypto), and how much of it the shop was told of. */
export interface RefundOwed {
  /** All that is owed back in `currency`, as the payment service counts it. */
  amount: string;
  currency: string;
  /** Where it can go: `bank`, a bank account (fiat); `crypto`, an address on the network it arrived on. */
  kind: 'bank' | 'crypto';
  /** What of `amount` the shop was told of by claims ("0" before any); the rest is still to claim. */
  claimed: string;
}

export type RefundClaim =
  | { accepted: false }
  | {
      accepted: true;
      /** What is owed back per currency as it arrived; empty when nothing is. */
      owed: RefundOwed[];
      /** The form's currency: what of it is still to claim ("0" when nothing is), as the payment service counts it. */
      amount: string;
      currency: string;
      reason?: 'expired' | 'paid_late' | 'overpaid';
      /** Everything owed was claimed: the shop has the details of each currency. */
      claimed: boolean;
      /** `bank`: a bank account (fiat); `crypto`: an address on the network `currency` arrived on. */
      kind: 'bank' | 'crypto';
      /** bank: the banks of `currency` to choose from. */
      banks?: RefundBank[];
      /** bank: what else to ask (what the shop does not know of the order's customer). */
      ask?: RefundField[];
      /** crypto: the token, its network and the network's kind (the address check: EIP-55, or a Stellar account with an optional memo). */
      symbol?: string;
      network?: string;
      networkName?: string;
      chain?: 'EVM' | 'STELLAR';
    };

/** POST /checkouts/:id/refund-claim: where to send the money owed back (an `amount` is never read: the service's count is). */
export type RefundClaimBody = (
  | {
      bankCode: string;
      accountNumber: string;
      accountName: string;
      email?: string;
      address?: string;
      city?: string;
      postCode?: string;
    }
  | { address: string; memo?: string }
) & {
  /** The currency claimed (one of `owed`); may be left out when one is owed. */
  currency?: string;
};
