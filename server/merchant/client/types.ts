// The payment service's resources and request bodies under the names the merchant code uses: aliases of the types
// openapi-typescript generates from the service's OpenAPI document (openapi.ts; `npm run generate:client-types`).
// Nothing here restates a field: change the service's schemas and regenerate. Written here are only the envelope
// (how the client reads any answer), Page<T> over the generated page, and two documented additions below.
import type { components, paths } from './openapi.js';

type Schemas = components['schemas'];
type Method = 'get' | 'post' | 'patch' | 'delete';

/** The `data` of an operation's JSON answer with the given status. */
type DataOf<Path extends keyof paths, M extends Method, Status extends number = 200> =
  NonNullable<paths[Path][M]> extends {
    responses: { [S in Status]: { content: { 'application/json': { data: infer D } } } };
  }
    ? D
    : never;

/** An operation's query parameters. */
type QueryOf<Path extends keyof paths, M extends Method = 'get'> =
  NonNullable<paths[Path][M]> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

/** Every answer of the service: `statusCode` (or `status` on login and verify-login), `message`, and `data` or `error`. */
export interface Envelope<T = unknown> {
  statusCode?: number;
  status?: number;
  message?: string;
  data?: T;
  error?: string;
}

/** 2.1 */
export type User = Schemas['User'];
/**
 * paymentFiat as the payment service's interface names it: its QR value is `qrCode`, which create and read responses carry
 * as `qrData`. The service's document lists only `qrData`; the merchant reads either, so `qrCode` is added here.
 */
export type PaymentFiat = Schemas['Deposit']['paymentFiat'] & { qrCode?: string };
/** 2.2 */
export type Deposit = Omit<Schemas['Deposit'], 'paymentFiat'> & { paymentFiat: PaymentFiat };
export type DepositStatus = Deposit['status'];
/** A checkout's deposit as the service's public routes answer it: what a shopper may see (docs/security.md). */
export type ShopperDeposit = Schemas['ShopperDeposit'];
export type DepositType = Deposit['depositType'];
export type ActivityEntry = Schemas['DepositActivity'];
/** What choosing a checkout's method did (the hosted session API's `choice`): created, unchanged or switched. */
export type MethodChoice = Schemas['MethodChoice']['choice'];
/** 2.3 */
export type PaymentMethod = Schemas['PaymentMethod'];
/** 2.4 (deprecated endpoint) */
export type CurrencyReference = Schemas['CurrencyReference'];
/** 2.5 */
export type CryptoReference = Schemas['CryptoReference'];
/** 2.6 */
export type Checkout = DataOf<'/v1/checkout', 'post'>;
/** 2.7 */
export type Recipient = Schemas['Recipient'];
export type RecipientBank = Schemas['RecipientBank'];
/** 2.8: the pagination envelope of every list, over its own documents. */
export type Page<T> = Omit<Schemas['RecipientPage'], 'docs'> & { docs: T[] };

export type ListDepositsQuery = QueryOf<'/v1/deposit'>;
export type PaymentMethodsQuery = QueryOf<'/v1/deposit/payment-method'>;
export type CryptosQuery = QueryOf<'/v1/reference/cryptos'>;
export type Sort = NonNullable<ListDepositsQuery['sort']>;
/**
 * The document gives the recipient list's `limit` and `page` as digit strings (its schema parses them from text),
 * the deposit list's as integers; the client serialises either, and takes numbers for both lists.
 */
export type ListRecipientsQuery = Omit<QueryOf<'/v1/recipient'>, 'limit' | 'page'> & { limit?: number; page?: number };

export type RegisterBody = Schemas['RegisterRequest'];
export type LoginBody = Schemas['LoginRequest'];
export type VerifyLoginBody = Schemas['VerifyLoginRequest'];
export type VerificationAnswer = DataOf<'/v1/auth/login', 'post'>;
export type VerifyLoginAnswer = DataOf<'/v1/auth/verify-login', 'post'>;
export type CreateFiatDepositBody = Schemas['FiatDepositRequest'];
export type CreateCryptoDepositBody = Schemas['CryptoDepositRequest'];
export type CreateCheckoutBody = Schemas['CheckoutRequest'];
export type RecipientBody = Schemas['CreateRecipientRequest'];
export type RecipientPatch = Schemas['UpdateRecipientRequest'];

/** `GET {checkoutUrl}/:id/session`: the hosted checkout page's own (public, id-keyed) API. */
export type CheckoutSession = Schemas['CheckoutSession'];
/** A payment method as the session lists it: the interface's fields plus what paying with it costs for this checkout. */
export type SessionPaymentMethod = CheckoutSession['methods'][number];
/** A crypto method's asset on its network, as the session lists it: what its wallet payment request needs. */
export type SessionCrypto = Schemas['SessionCrypto'];

/**
 * `POST /v1/deposit/convert-estimation` (docs/design.md, "Quotes, banks, bank transfers"): its body and the quote it
 * holds for 60 s.
 */
export type ConvertEstimationBody = Schemas['ConvertEstimationRequest'];
export type Quote = Schemas['Quote'];
/** `GET /v1/banks` (docs/design.md, "Quotes, banks, bank transfers"). */
export type Bank = Schemas['Bank'];
export type BanksQuery = QueryOf<'/v1/banks'>;
