import { randomUUID } from 'node:crypto';
import { PaymentServiceError, PaymentServiceUnavailableError } from './errors.js';
import { defaultRequestSigner, type RequestSigner } from './signing.js';
import { pooledFetch, type ServiceAnswer, type ServiceFetch } from './pooled-fetch.js';
import type {
  Bank,
  BanksQuery,
  Checkout,
  CheckoutSession,
  ConvertEstimationBody,
  Quote,
  CreateCheckoutBody,
  CreateCryptoDepositBody,
  CreateFiatDepositBody,
  CryptoReference,
  CryptosQuery,
  CurrencyReference,
  Deposit,
  DepositStatus,
  ShopperDeposit,
  Envelope,
  ListDepositsQuery,
  ListRecipientsQuery,
  LoginBody,
  MethodChoice,
  Page,
  PaymentMethod,
  PaymentMethodsQuery,
  Recipient,
  RecipientBody,
  RecipientPatch,
  RegisterBody,
  VerificationAnswer,
  VerifyLoginAnswer,
  VerifyLoginBody,
} from './types.js';

export interface PaymentServiceClientOptions {
  /** The service's origin, to which the interface's `/v1/...` paths are relative (e.g. http://localhost:4010). */
  baseUrl: string;
  /** The hosted checkout page address ({checkout_url}); its session API lives under it. Default `${baseUrl}/checkout`. */
  checkoutUrl?: string;
  clientId?: string;
  clientSecret?: string;
  accessToken?: string;
  /** Per-call timeout in ms (default 10 s). */
  timeoutMs?: number;
  /**
   * How many times a create or a sandbox payment is sent again when the service could not be reached, timed out, or
   * answered that the same request is still in progress (default 2). Each is sent with one Idempotency-Key for all
   * its tries, so a service that keeps keys makes it once (docs/idempotency.md).
   */
  retries?: number;
  /** The fetch to use (default `pooledFetch`, a keep-alive pool); benchmarks and tests pass a counting one. */
  fetch?: ServiceFetch;
  /** Clock for X-Timestamp (default Date.now). */
  now?: () => number;
  /** Signs the server-to-server calls another way than the default scheme (./signing.ts): answers their headers. */
  signRequest?: RequestSigner;
  /**
   * Told of every failure before it is thrown: a refusal or failure answered by the service, or the service not
   * reached (the merchant backend warns with it).
   */
  onFailure?: (err: PaymentServiceError | PaymentServiceUnavailableError) => void;
}

/** How a call authenticates, as the interface marks each endpoint: S = signature headers, A = bearer token, none. */
type AuthMode = 'S' | 'A' | 'none';

export interface CallOptions {
  auth: AuthMode;
  query?: Record<string, string | number | boolean | undefined | null>;
  body?: unknown;
  /** Use the checkout URL instead of the base URL as the prefix. */
  checkout?: boolean;
  signal?: AbortSignal;
  /** Sent as Idempotency-Key on every try of this call; a call with one is retried (PaymentServiceClientOptions.retries). */
  idempotencyKey?: string;
}

/** What a create or a sandbox payment may be given: its own Idempotency-Key (default: a fresh UUID per call). */
export interface IdempotentCall {
  idempotencyKey?: string;
}

/** Waits before the retries of an idempotent call (the last one repeats). */
const RETRY_DELAYS_MS = [250, 1000];

/**
 * A typed client for the whole payment-service interface, every endpoint. Signs S calls, sends the bearer token on
 * A calls, and turns error envelopes into `PaymentServiceError`s. It knows nothing of any implementation: base
 * URL, checkout URL and credentials are configuration.
 */
export class PaymentServiceClient {
  private lastTimestampMs = 0;
  private resolved?: PaymentServiceClientOptions & { checkoutUrl: string };

  /**
   * `options` may be a function: it is asked at the first call (and until it answers), so a backend created before
   * its settings exist (a build) reads none of them until it is used.
   */
  constructor(private readonly source: PaymentServiceClientOptions | (() => PaymentServiceClientOptions)) {}

  private get options(): PaymentServiceClientOptions & { checkoutUrl: string } {
    if (this.resolved) return this.resolved;
    const options = typeof this.source === 'function' ? this.source() : this.source;
    const baseUrl = options.baseUrl.replace(/\/+$/, '');
    return (this.resolved = {
      ...options,
      baseUrl,
      checkoutUrl: (options.checkoutUrl ?? `${baseUrl}/checkout`).replace(/\/+$/, ''),
    });
  }
  get baseUrl(): string {
    return this.options.baseUrl;
  }
  get checkoutUrl(): string {
    return this.options.checkoutUrl;
  }
  private fetchImpl(input: URL, init: RequestInit): Promise<ServiceAnswer> {
    return (this.options.fetch ?? pooledFetch)(input, init);
  }

  // ---- 4.1 Authentication (no auth header) ----

  register(body: RegisterBody) {
    return this.data<VerificationAnswer>('POST', '/v1/auth/register', { auth: 'none', body });
  }
  login(body: LoginBody) {
    return this.data<VerificationAnswer>('POST', '/v1/auth/login', { auth: 'none', body });
  }
  verifyLogin(body: VerifyLoginBody) {
    return this.data<VerifyLoginAnswer>('POST', '/v1/auth/verify-login', { auth: 'none', body });
  }

  // ---- 4.2 Deposits ----

  listDeposits(query: ListDepositsQuery = {}) {
    return this.data<Page<Deposit>>('GET', '/v1/deposit', { auth: 'S', query: { ...query } });
  }
  getDeposit(depositIdOrReference: string, init: { signal?: AbortSignal } = {}) {
    return this.data<Deposit>('GET', `/v1/deposit/${enc(depositIdOrReference)}`, { auth: 'S', signal: init.signal });
  }
  createFiatDeposit(body: CreateFiatDepositBody, call: IdempotentCall = {}) {
    return this.data<Deposit>('POST', '/v1/deposit/fiat', {
      auth: 'A',
      body,
      idempotencyKey: call.idempotencyKey ?? randomUUID(),
    });
  }
  createCryptoDeposit(body: CreateCryptoDepositBody, call: IdempotentCall = {}) {
    return this.data<Deposit>('POST', '/v1/deposit/crypto', {
      auth: 'A',
      body,
      idempotencyKey: call.idempotencyKey ?? randomUUID(),
    });
  }
  /** PATCH /v1/deposit/:depositId/cancel: answers only statusCode and message. */
  cancelDeposit(depositId: string) {
    return this.call<never>('PATCH', `/v1/deposit/${enc(depositId)}/cancel`, { auth: 'A' });
  }
  /** PATCH /v1/deposit/:depositId (sandbox only; A or S). */
  sandboxUpdateDeposit(depositId: string, status: DepositStatus, auth: 'A' | 'S' = 'A') {
    return this.data<Deposit>('PATCH', `/v1/deposit/${enc(depositId)}`, { auth, body: { status } });
  }
  /**
   * POST /v1/deposit/:depositId/payments (sandbox only; A or S; docs/design.md, "Payments that do not go as planned"):
   * a payment arrives, by default of what is still due.
   */
  sandboxPay(depositId: string, amount?: number | string, auth: 'A' | 'S' = 'A', call: IdempotentCall = {}) {
    return this.data<Deposit>('POST', `/v1/deposit/${enc(depositId)}/payments`, {
      auth,
      body: amount === undefined ? {} : { amount },
      idempotencyKey: call.idempotencyKey ?? randomUUID(),
    });
  }
  listPaymentMethods(query: PaymentMethodsQuery = {}) {
    return this.data<PaymentMethod[]>('GET', '/v1/deposit/payment-method', { auth: 'A', query: { ...query } });
  }
  /** POST /v1/deposit/convert-estimation (A or S): a quote held 60 s, for a deposit's `quoteId`. */
  convertEstimation(body: ConvertEstimationBody, auth: 'A' | 'S' = 'S') {
    return this.data<Quote>('POST', '/v1/deposit/convert-estimation', { auth, body });
  }
  /** GET /v1/banks (A or S): where recipients' bank.bankName comes from. */
  listBanks(query: BanksQuery = {}, auth: 'A' | 'S' = 'S') {
    return this.data<Bank[]>('GET', '/v1/banks', { auth, query: { ...query } });
  }

  // ---- 4.3 References (deprecated, no auth header) ----

  listCurrencies() {
    return this.data<CurrencyReference[]>('GET', '/v1/reference/currencies', { auth: 'none' });
  }
  listCryptos(query: CryptosQuery = {}) {
    return this.data<CryptoReference[]>('GET', '/v1/reference/cryptos', { auth: 'none', query: { ...query } });
  }

  // ---- 4.4 Checkout ----

  createCheckout(body: CreateCheckoutBody, call: IdempotentCall = {}) {
    return this.data<Checkout>('POST', '/v1/checkout', {
      auth: 'S',
      body,
      idempotencyKey: call.idempotencyKey ?? randomUUID(),
    });
  }

  // ---- 4.5 Recipients (S) ----

  listRecipients(query: ListRecipientsQuery = {}) {
    return this.data<Page<Recipient>>('GET', '/v1/recipient', { auth: 'S', query: { ...query } });
  }
  getRecipient(id: string) {
    return this.data<Recipient>('GET', `/v1/recipient/${enc(id)}`, { auth: 'S' });
  }
  createRecipient(body: RecipientBody) {
    return this.data<Recipient>('POST', '/v1/recipient', { auth: 'S', body });
  }
  /** PATCH /v1/recipient?id=<id> (the recipient is identified by `?id=`, docs/design.md, "Recipients"). */
  updateRecipient(id: string, body: RecipientPatch) {
    return this.data<Recipient>('PATCH', '/v1/recipient', { auth: 'S', query: { id }, body });
  }
  deleteRecipient(id: string) {
    return this.data<Recipient>('DELETE', '/v1/recipient', { auth: 'S', query: { id } });
  }

  // ---- The hosted checkout's session API (public, keyed by the unguessable checkout id) ----

  getCheckoutSession(checkoutId: string, init: { signal?: AbortSignal } = {}) {
    return this.data<CheckoutSession>('GET', `/${enc(checkoutId)}/session`, {
      auth: 'none',
      checkout: true,
      signal: init.signal,
    });
  }
  /** Chooses the payment method: creates the deposit whose depositId is the checkout id. */
  async createCheckoutDeposit(checkoutId: string, paymentMethod: string) {
    return (await this.chooseCheckoutMethod(checkoutId, paymentMethod)).deposit;
  }
  /** The same, with what the choice did as the service says it (`choice`): created, unchanged or switched. */
  async chooseCheckoutMethod(
    checkoutId: string,
    paymentMethod: string,
    wallet: { mobileNumber?: string; returnUrl?: string } = {},
  ): Promise<{ deposit: ShopperDeposit; choice: MethodChoice }> {
    // An e-wallet's flow may need the shopper's number (push) or where to come back (redirect): docs/indonesian-payments.md.
    // Signed when it names a page to come back to: the service's public route takes the shop's page only from its backend.
    const answer = await this.call<ShopperDeposit>('POST', `/${enc(checkoutId)}/deposit`, {
      auth: wallet.returnUrl ? 'S' : 'none',
      checkout: true,
      body: { paymentMethod, ...wallet },
    });
    const { choice } = answer as Envelope<ShopperDeposit> & { choice?: MethodChoice };
    // A service without the field (older): 201 is a creation; a 200 cannot be told apart, so it claims no switch.
    return {
      deposit: answer.data as ShopperDeposit,
      choice: choice ?? (answer.statusCode === 201 ? 'created' : 'unchanged'),
    };
  }

  // ---- The transport ----

  /** One call; answers `data`. */
  async data<T>(method: string, path: string, options: CallOptions): Promise<T> {
    return (await this.call<T>(method, path, options)).data as T;
  }

  /** One call; answers the whole success envelope, or throws a typed error. */
  async call<T>(method: string, path: string, options: CallOptions): Promise<Envelope<T>> {
    try {
      try {
        return await this.sendRetried<T>(method, path, options);
      } catch (err) {
        // Two identical signed non-GET calls in the same millisecond would carry the same signature, and the
        // service rejects the second as a replay; the timestamps are made unique per client, so a replay
        // answer can only come from another copy of this backend sharing the credentials: retry once, with a new
        // timestamp. The answer has no field that tells a replay from refused credentials (which a retry refuses
        // again, at the cost of one call), so any 401 on a signed write is retried: no guessing from its message.
        if (
          err instanceof PaymentServiceError &&
          err.statusCode === 401 &&
          options.auth === 'S' &&
          method.toUpperCase() !== 'GET'
        ) {
          return await this.sendRetried<T>(method, path, options);
        }
        throw err;
      }
    } catch (err) {
      if (err instanceof PaymentServiceError || err instanceof PaymentServiceUnavailableError)
        this.options.onFailure?.(err);
      throw err;
    }
  }

  /**
   * send(), and with an Idempotency-Key again on what a retry can mend: the service not reached or timed out (the
   * request may have been made: the key makes the retry answer it rather than make it twice), or its answer that the
   * same request is still in progress (409 with Retry-After). A caller's abort is never retried.
   */
  private async sendRetried<T>(method: string, path: string, options: CallOptions): Promise<Envelope<T>> {
    const retries = options.idempotencyKey === undefined ? 0 : (this.options.retries ?? 2);
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await this.send<T>(method, path, options);
      } catch (err) {
        const mendable =
          err instanceof PaymentServiceUnavailableError || (err instanceof PaymentServiceError && err.inProgress);
        if (!mendable || attempt >= retries || options.signal?.aborted) throw err;
        await new Promise((resolve) =>
          setTimeout(resolve, RETRY_DELAYS_MS[Math.min(attempt, RETRY_DELAYS_MS.length - 1)]),
        );
      }
    }
  }

  private async send<T>(method: string, path: string, options: CallOptions): Promise<Envelope<T>> {
    method = method.toUpperCase();
    const url = new URL((options.checkout ? this.checkoutUrl : this.baseUrl) + path + queryString(options.query));
    // The path and query exactly as they go on the request line (the URL's own serialization is what fetch sends).
    const target = url.pathname + url.search;
    const call = `${method} ${url.pathname}`;
    const raw = options.body === undefined ? '' : JSON.stringify(options.body);
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (raw) headers['Content-Type'] = 'application/json';
    if (options.idempotencyKey !== undefined) headers['Idempotency-Key'] = options.idempotencyKey;
    if (options.auth === 'A') {
      if (!this.options.accessToken) throw new Error('The payment-service client has no accessToken for a bearer call');
      headers.Authorization = `Bearer ${this.options.accessToken}`;
    }
    // A shop's own signer signs the bearer calls too (SNAP BI signs every call, its token included).
    if (options.auth === 'S' || (options.auth === 'A' && this.options.signRequest)) {
      const { clientId, clientSecret, accessToken } = this.options;
      if (!clientId || !clientSecret)
        throw new Error('The payment-service client has no clientId/clientSecret for a signed call');
      const sign = this.options.signRequest ?? defaultRequestSigner;
      Object.assign(
        headers,
        await sign({
          method,
          path: target,
          body: raw,
          timestamp: this.timestamp(),
          clientId,
          clientSecret,
          accessToken,
        }),
      );
    }

    // A timer of its own, cleared once the answer is read: AbortSignal.timeout's would stay armed for the whole timeout
    // after every call (a timer and a signal per call kept alive, a cost the follower's thousands of reads felt).
    const timeout = new AbortController();
    const timer = setTimeout(
      () => timeout.abort(new DOMException('The payment service did not answer in time', 'TimeoutError')),
      this.options.timeoutMs ?? 10_000,
    );
    timer.unref?.();
    const signal = options.signal ? AbortSignal.any([options.signal, timeout.signal]) : timeout.signal;
    let res: ServiceAnswer;
    let text: string;
    try {
      res = await this.fetchImpl(url, { method, headers, body: raw || undefined, signal, redirect: 'error' });
      text = await res.text().catch(() => '');
    } catch (err) {
      const why = err instanceof Error && err.name === 'TimeoutError' ? 'timed out' : 'could not be reached';
      const code = (err instanceof Error && (err.cause as NodeJS.ErrnoException | undefined)?.code) || undefined;
      throw new PaymentServiceUnavailableError(
        `The payment service at ${url.origin} ${why}${code ? ` (${code})` : ''} on ${call}`,
        call,
        { cause: err },
        url.origin,
      );
    } finally {
      clearTimeout(timer);
    }
    let body: Envelope<T>;
    try {
      body = JSON.parse(text) as Envelope<T>;
      if (!body || typeof body !== 'object') throw new Error('not an object');
    } catch {
      if (!res.ok)
        throw new PaymentServiceError(
          res.status,
          res.statusText || 'Error',
          `HTTP ${res.status} without an envelope`,
          res.status,
          call,
          options.auth,
        );
      throw new PaymentServiceUnavailableError(
        `The payment service at ${url.origin} answered something other than JSON on ${call}`,
        call,
        undefined,
        url.origin,
      );
    }
    const statusCode =
      typeof body.statusCode === 'number'
        ? body.statusCode
        : typeof body.status === 'number'
          ? body.status
          : res.status;
    if (statusCode >= 400 || !res.ok || body.error !== undefined) {
      const code = statusCode >= 400 ? statusCode : res.status >= 400 ? res.status : 400;
      const error = new PaymentServiceError(
        code,
        body.error ?? 'Error',
        body.message ?? 'Request failed',
        res.status,
        call,
        options.auth,
      );
      // The service's answer that a request with this Idempotency-Key is still in progress: a 409 with Retry-After.
      if (options.idempotencyKey !== undefined && res.status === 409 && res.headers.has('retry-after'))
        error.inProgress = true;
      throw error;
    }
    return { ...body, statusCode };
  }

  /** ISO 8601 UTC with milliseconds, strictly increasing per client so no two signed calls share one. */
  private timestamp(): string {
    const ms = Math.max((this.options.now ?? Date.now)(), this.lastTimestampMs + 1);
    this.lastTimestampMs = ms;
    return new Date(ms).toISOString();
  }
}

const enc = (segment: string) => encodeURIComponent(segment);

function queryString(query: CallOptions['query']): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== '') params.append(key, String(value));
  }
  const s = params.toString();
  return s ? `?${s}` : '';
}
