// The payment service's resources and request bodies, as its interface (spec sections 2 and 4) names them.
// Fields the interface marks as present only in some responses are optional.

/** Every answer of the service: `statusCode` (or `status` on login and verify-login), `message`, and `data` or `error`. */
export interface Envelope<T = unknown> {
  statusCode?: number;
  status?: number;
  message?: string;
  data?: T;
  error?: string;
}

export type DepositStatus = 'pending' | 'expired' | 'completed';
export type DepositType = 'fiat' | 'crypto';

/** 2.1 */
export interface User {
  id: string;
  name: string;
  policy: string;
  email: string;
  organizationId: { _id: string; orgName: string };
  role: string;
  is_active: boolean;
  invitation_date?: string;
  invitation_expiration_date?: string;
  iskyc: boolean;
  kyc_url?: string;
  country?: string;
  countryCode?: string;
  legalFullName?: string;
  providerId?: string;
  otp_code?: string;
  credentials?: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}

export interface ActivityEntry {
  activity: string;
  status: string;
  description: string;
  updatedAt: string;
  _id?: string;
}

export interface PaymentFiat {
  bankName?: string;
  bankCode?: string;
  accountName?: string;
  accountNumber?: string;
  qrCode?: string;
  /** Create and read responses carry the QR value under this name. */
  qrData?: string;
  checkoutUrl?: string;
}

/** 2.2 */
export interface Deposit {
  id?: string;
  depositId: string;
  depositType: DepositType;
  userId?: string;
  inputCurrency: string;
  inputAmount: number;
  outputCurrency?: string;
  exchangeRate?: number;
  outputAmount?: number;
  fee?: { amount: number; percentage: number; currency: string };
  paymentFiat?: PaymentFiat;
  paymentCrypto?: { payoutWallet?: string; network?: string };
  status: DepositStatus;
  activityHistory?: ActivityEntry[];
  reference?: string;
  note?: string;
  bankNote?: string;
  isReconciled?: boolean;
  payerInfo?: { transactionCode?: string; name?: string; bankName?: string; accountNumber?: string; mid?: string };
  exchangeInfo?: { exchangeRate: number; outputCurrency: string; outputAmount: number };
  expiredAt: string;
  createdAt: string;
  updatedAt: string;
}

/** 2.3 */
export interface PaymentMethod {
  depositPaymentType: string;
  bankName: string;
  bankCode: string;
  currency: string;
  minimumAmount: number;
  maximumAmount: number;
  image: string;
  feeFlat: number;
  feePercentage: number;
}

/** 2.4 (deprecated endpoint) */
export interface CurrencyReference {
  _id: string;
  id: string;
  value: string;
  currency: string;
  countryCode: string;
  logo: string;
  name: string;
  country: string;
  symbol: string;
  requireBankName: boolean;
  requireIfsc: boolean;
  requireIban: boolean;
  requireAchOrWire: boolean;
  requireAccountNumber: boolean;
}

/** 2.5 */
export interface CryptoReference {
  _id: string;
  id: string;
  symbol: string;
  name: string;
  label: string;
  address: string;
  logo: string;
  priceId: string;
  chainId: number;
  is_native: boolean;
  decimal: number;
  currencies: string[];
}

/** 2.6 */
export interface Checkout {
  id: string;
  url: string;
}

export interface RecipientBank {
  accountName: string;
  bankName?: string;
  paymentCode?: string;
  currency?: string;
  country?: string;
  achNumber?: string;
  fedwireNumber?: string;
  ibanNumber?: string;
  accountNumber?: string | number;
  accountType?: 'Checking' | 'Savings';
  ifsc?: string;
  _id?: string;
}

/** 2.7 */
export interface Recipient {
  id: string;
  name: string;
  recipientType?: 'Individual' | 'Business';
  email: string;
  organizationId?: string;
  userId?: string;
  address: string;
  city: string;
  postCode: string;
  reference?: string;
  bank: RecipientBank[];
  createdAt: string;
  updatedAt: string;
}

/** 2.8 */
export interface Page<T> {
  docs: T[];
  totalDocs: number;
  offset: number;
  limit: number;
  totalPages: number;
  page: number;
  pagingCounter: number;
  hasPrevPage: boolean;
  hasNextPage: boolean;
  prevPage: number | null;
  nextPage: number | null;
}

export type Sort = 'createdAt' | '-createdAt' | 'updatedAt' | '-updatedAt';

export interface RegisterBody {
  email: string;
  password: string;
  fullName: string;
  nationalID?: string;
  country?: string;
  countryCode?: string;
}

export interface ListDepositsQuery {
  limit?: number;
  page?: number;
  sort?: Sort;
  status?: DepositStatus;
  depositType?: DepositType;
}

export interface CreateFiatDepositBody {
  inputCurrency: string;
  inputAmount?: number;
  outputCurrency: string;
  outputAmount?: { fiat: number } | { crypto: number };
  balanceType: string;
  paymentMethod: string;
  reference?: string;
  note?: string;
  quoteId?: string;
}

export interface CreateCryptoDepositBody {
  inputCurrency: string;
  inputAmount: number;
  outputCurrency?: string;
  reference?: string;
  note?: string;
  quoteId?: string;
}

export type CreateCheckoutBody =
  | { inputCurrency: string; inputAmount: number; outputCurrency?: string }
  | { inputCurrency: string; outputAmount: number; outputCurrency?: string };

export interface ListRecipientsQuery {
  limit?: number;
  page?: number;
  sort?: Sort;
  search?: string;
  country?: string;
  currency?: string;
}

export interface RecipientBody {
  name: string;
  email: string;
  address: string;
  city: string;
  postCode: string;
  recipientType?: 'Individual' | 'Business';
  organizationId?: string;
  reference?: string;
  bank: RecipientBank;
}

export type RecipientPatch = Partial<Omit<RecipientBody, 'bank'>> & { bank?: Partial<RecipientBank> };

/**
 * A payment method as the hosted checkout's session lists it: the interface's fields plus what paying
 * with it costs for this checkout. The computed fields' names are read tolerantly (see client.ts).
 */
export interface SessionPaymentMethod extends PaymentMethod {
  /** The amount the payer transfers with this method. */
  paymentAmount?: number;
  /** The method's whole fee (whoever bears it). */
  fee?: number;
  /** What the payer pays on top of the order's amount (0 when the merchant bears the fee). */
  shopperFee?: number;
  outputAmount?: number;
  /** False when the payment amount is outside the method's limits. */
  available?: boolean;
  [extra: string]: unknown;
}

/** `GET {checkoutUrl}/:id/session`: the hosted checkout page's own (public, id-keyed) API. */
export interface CheckoutSession {
  id: string;
  inputCurrency: string;
  inputAmount: number | null;
  outputCurrency: string;
  outputAmount: number | null;
  /**
   * What the order costs in inputCurrency (a decimal string; a number accepted): inputAmount, or for a checkout
   * created with outputAmount (possibly in another currency) the input that converts to it before fees.
   * Optional: a service that does not send it is read from inputAmount / outputAmount (see views.ts).
   */
  orderAmount?: string | number;
  feesPaidBy?: 'merchant' | 'shopper';
  expiresAt: string;
  expired?: boolean;
  methods: SessionPaymentMethod[];
  deposit: Deposit | null;
  [extra: string]: unknown;
}
