// The merchant backend's logic behind /api: checkouts, methods, deposits and their status, independent of HTTP.
import { Decimal } from 'decimal.js';
import { PaymentServiceClient } from '../client/client.js';
import { PaymentServiceError } from '../client/errors.js';
import type { CheckoutSession, Deposit as UpstreamDeposit, PaymentMethod, ShopperDeposit } from '../client/types.js';
import type { MethodDescription } from '../../common/widget-projection.js';
import type { MerchantConfig } from '../config.js';
import type { MerchantHooks, PriceOrderContext } from '../hooks.js';
import { isOrderToken, ORDER_TOKEN_HEADER, orderTokenRefusal } from '../orders/order-token.js';
import type { FeesPaidBy, StoredDeposit } from '../model.js';
import { feesPolicy, passesFees } from '../../common/fee-policy.js';
import type { WalletChoice } from '../../common/widget-api.js';
import { ApiError } from '../http.js';
import { lruMap } from '../state/lru.js';
import { isCurrentCheckout, orderCheckout } from '../orders/order-checkout.js';
import type { MethodChoice } from '../../common/widget-api.js';
import type { SavedCheckout, SharedState } from '../state/shared-state.js';
import { BoundedReader, DepositStatusCache, type CachedDeposit } from '../state/status-cache.js';
import { checkoutView, depositView, orderAmount, type ViewedDeposit, type WidgetCheckout } from './views.js';
import { separatorRefusal, thousandsSeparatorIn } from './separators.js';

interface CheckoutMeta {
  feesPaidBy: FeesPaidBy;
  /** What the order costs (the checkout's amount). */
  amount?: string;
  orderId?: string;
  currency?: string;
  /** The session's methods (or the service's method list): what names a deposit's method. */
  methods?: ReadonlyArray<MethodDescription>;
  /** Created by this backend: the fields of SavedCheckout are the shared state's. */
  saved?: boolean;
}

/** The currencies whose amounts have no decimal places (the others have 2). */
export const ZERO_DECIMAL_CURRENCIES: ReadonlySet<string> = new Set([
  'IDR',
  'JPY',
  'KRW',
  'VND',
  'CLP',
  'ISK',
  'UGX',
  'XAF',
  'XOF',
]);
/** What a shop's order id can be: 1 to 128 letters, digits, `_`, `.`, `:` and `-`. */
const ORDER_ID = /^[\w.:-]{1,128}$/;
/** The largest amount a checkout may ask for, in any currency. */
const MAX_AMOUNT = new Decimal('1e15');
/**
 * How long an id the payment service does not know as a checkout is remembered as unknown (asked again after): a
 * shopper's typo or a guess costs one upstream call per this long, not one per request.
 */
const UNKNOWN_TTL_MS = 30_000;
/** Unknown ids remembered at most (a guesser's spread of ids is bounded per address by the API's rate limit). */
const MAX_UNKNOWN = 10_000;
/** No webhook for this long: streams re-read at the poll's refresh (webhooks may not reach this backend at all). */
const WEBHOOK_QUIET_MS = 10 * 60_000;
/** How long a created checkout's order is remembered: past its payment window and the webhooks' last retry. */
const CHECKOUT_TTL_MS = 30 * 24 * 3600_000;

/** The shop's hooks as the backend calls them: priceOrder without a request where none asked (a refund form). */
type ServiceHooks = Omit<MerchantHooks, 'priceOrder'> & {
  priceOrder?: (orderId: string, context?: PriceOrderContext) => ReturnType<NonNullable<MerchantHooks['priceOrder']>>;
};

export class MerchantService {
  readonly deposits: DepositStatusCache;
  readonly sessions: BoundedReader<CheckoutSession | null>;
  readonly methods: BoundedReader<PaymentMethod[]>;
  /**
   * Which ids are checkouts (true) or not (false), as the public session API tells (it answers only for checkout
   * ids). Only checkouts are reachable through /api: never any other deposit of the merchant, nor a deposit by its
   * reference. A yes is final (one upstream call per checkout at most, none for checkouts created here); a no is
   * asked again after the refresh interval.
   */
  readonly checkouts: BoundedReader<boolean>;
  /** What this copy knows of each checkout, the 50,000 last written (read with peek: a read does not keep one). */
  private readonly meta = lruMap<CheckoutMeta>(50_000);
  /** When a verified webhook last reached this copy (0: none since it started). */
  private lastWebhookAt = 0;
  /** Told of each checkout this copy made, once it is saved (the follower reads it from then on). */
  onOpened?: (checkoutId: string) => void;
  /** Ids the service said are no checkout, until when (negative cache): nothing else is kept of them. */
  private readonly unknown = lruMap<number>(MAX_UNKNOWN);
  readonly hooks: ServiceHooks;

  constructor(
    readonly client: PaymentServiceClient,
    readonly config: MerchantConfig,
    readonly shared: SharedState,
    hooks: MerchantHooks = {},
    readonly now: () => number = Date.now,
  ) {
    const { priceOrder } = hooks;
    this.hooks = { ...hooks, priceOrder: priceOrder && ((orderId, context = {}) => priceOrder(orderId, context)) };
    this.deposits = new DepositStatusCache(
      async (id) => {
        try {
          const deposit = await this.client.getDeposit(id);
          // GET /v1/deposit/:x also answers by reference: only the deposit whose id is this checkout's is its deposit.
          return deposit.depositId === id ? await this.view(deposit) : null;
        } catch (err) {
          if (err instanceof PaymentServiceError && err.statusCode === 404) return null; // the interface's row: 404 Deposit not found
          throw err;
        }
        // A status up to two intervals old is answered at once while its re-read runs: polls never wait on the
        // payment service for a status already known (webhooks push changes meanwhile); an older one waits.
      },
      shared,
      { refreshMs: config.statusRefreshMs, staleMs: config.statusRefreshMs, now },
    );
    this.sessions = new BoundedReader(
      async (id) => {
        try {
          const session = await this.client.getCheckoutSession(id);
          // Answered for a checkout id only; a session naming another id is not this checkout's.
          return session && (session.id === undefined || session.id === id) ? session : null;
        } catch (err) {
          if (err instanceof PaymentServiceError && err.statusCode === 404) return null;
          throw err;
        }
      },
      { refreshMs: config.statusRefreshMs, now },
    );
    // A checkout created by any copy is known from the shared state without asking the payment service.
    this.checkouts = new BoundedReader(
      async (id) => {
        if (await this.savedCheckout(id)) return true;
        if ((this.unknown.get(id) ?? 0) > this.now()) return false;
        return !!(await this.sessions.get(id));
      },
      {
        refreshMs: config.statusRefreshMs,
        now,
        isFinal: (known) => known,
      },
    );
    this.methods = new BoundedReader(
      (currency) => this.client.listPaymentMethods({ currency: currency || undefined }),
      { refreshMs: 5 * 60_000, now },
    );
  }

  // ---- checkouts ----

  /**
   * POST /checkouts: `{orderId}` priced by the merchant's priceOrder hook (one checkout per order: ../orders/order-checkout.ts), or an
   * amount from the page, taken only in sandbox mode or with allowClientAmounts (docs/orders.md).
   */
  async createCheckout(body: Record<string, unknown>, request?: Request): Promise<WidgetCheckout> {
    const { priceOrder } = this.hooks;
    if (priceOrder) {
      if (typeof body.orderId !== 'string' || !ORDER_ID.test(body.orderId)) {
        throw new ApiError(
          400,
          'orderId: this shop prices orders itself; send the orderId (letters, digits, _ . : -, at most 128)',
        );
      }
      const orderId = body.orderId;
      // Nothing is read or priced for an order whose token the page does not hold.
      this.checkOrderToken(orderId, body.orderToken ?? request?.headers.get(ORDER_TOKEN_HEADER) ?? undefined);
      // A checkout this opens is the page's: acting on it takes the order's token too (checkCheckoutProof).
      return orderCheckout(this, orderId, async () => priceOrder(orderId, { request }), true);
    }
    if (!this.config.sandbox && !this.config.allowClientAmounts) {
      throw new ApiError(400, 'amount: this shop prices orders on its server (priceOrder or createCheckout)');
    }
    if (body.orderId !== undefined)
      throw new ApiError(400, 'orderId: this shop does not price orders on the server; send amount and currency');
    return this.openCheckout(body.amount, body.currency, undefined);
  }

  /**
   * A checkout created by the shop's own server for an order it priced itself (no priceOrder round trip): the
   * shop renders `<kasir-checkout checkout-id=...>` with the answer's id.
   */
  async createCheckoutFor(order: {
    amount: string | number;
    currency?: string;
    orderId?: string;
  }): Promise<WidgetCheckout> {
    const { orderId, amount, currency = this.config.currencies[0]! } = order;
    if (orderId === undefined) return this.openCheckout(amount, currency, undefined);
    if (!ORDER_ID.test(orderId)) throw new ApiError(400, 'orderId: letters, digits, _ . : -, at most 128');
    // The order's one checkout (../orders/order-checkout.ts): a page rendered again, on any device, gets the same one.
    return orderCheckout(this, orderId, async () => ({ amount, currency }), false);
  }

  /**
   * Throws the 401 naming orderToken unless `token` is `orderId`'s, under the shop's order secret and not expired.
   * Sandbox mode takes an order id alone (a token sent is still checked when there is a secret to check it with).
   */
  checkOrderToken(orderId: string, token: unknown): void {
    const secret = this.config.orderSecret;
    const missing = token === undefined || token === null || token === '';
    if (this.config.sandbox && (missing || !secret)) return;
    if (!secret) throw orderTokenRefusal('unset');
    if (missing) throw orderTokenRefusal('missing');
    if (!isOrderToken(secret, orderId, token, this.now())) throw orderTokenRefusal('invalid');
  }

  /**
   * What acting on a checkout (choosing, switching, cancelling, a refund claim) takes: for one a page opened for an
   * order, that order's token; for one the shop's server made, nothing but its id.
   */
  async checkCheckoutProof(id: string, token: unknown): Promise<void> {
    const saved = await this.savedCheckout(id);
    if (saved?.byPage && saved.orderId !== undefined) this.checkOrderToken(saved.orderId, token);
  }

  /** A new checkout at this price (the amount checked first); its order, if any, saved for every copy. */
  async openCheckout(
    amount: unknown,
    currency: unknown,
    orderId: string | undefined,
    byPage = false,
  ): Promise<WidgetCheckout> {
    const { value, code } = this.checkAmount(amount, currency);
    // The policy per kind goes with it (docs/indonesian-payments.md: QRIS is never surcharged).
    const policy = feesPolicy(this.config.feesPaidBy);
    const feesPaidBy: FeesPaidBy = passesFees(policy) ? 'shopper' : 'merchant';
    const created = await this.client.createCheckout(
      feesPaidBy === 'shopper'
        ? { inputCurrency: code, outputAmount: value.toNumber(), outputCurrency: code, feesPaidBy: policy }
        : { inputCurrency: code, inputAmount: value.toNumber(), outputCurrency: code },
    );
    this.checkouts.put(created.id, true);
    const saved: SavedCheckout = {
      feesPaidBy,
      currency: code,
      amount: value.toFixed(),
      createdAt: this.now(),
      ...(orderId === undefined ? {} : { orderId }),
      ...(byPage && orderId !== undefined ? { byPage: true as const } : {}),
    };
    this.remember(created.id, { ...saved, saved: true });
    // Before the shopper sees the checkout: whichever copy receives its webhook (now or after a restart) gets the order.
    await this.shared.saveCheckout(created.id, saved, CHECKOUT_TTL_MS);
    this.onOpened?.(created.id);
    await this.hooks.onCheckoutCreated?.({
      checkoutId: created.id,
      orderId,
      amount: value.toFixed(),
      currency: code,
      url: created.url,
    });
    return this.getCheckout(created.id);
  }

  /** GET /checkouts/:id: the hosted checkout's session, as a shopper may see it. */
  async getCheckout(id: string): Promise<WidgetCheckout> {
    if (!(await this.isCheckout(id))) throw new ApiError(404, 'Checkout not found');
    const session = await this.sessions.get(id);
    if (!session) throw new ApiError(404, 'Checkout not found');
    this.checkouts.put(id, true);
    const now = new Date(this.now());
    const amount = orderAmount(session, this.meta.peek(id)?.amount);
    // Before the deposit's view: it names the method and measures the shopper's fee with these.
    this.remember(id, {
      feesPaidBy: session.feesPaidBy,
      currency: session.inputCurrency,
      methods: session.methods,
      amount,
    });
    if (session.deposit) await this.deposits.update(await this.view(session.deposit));
    return checkoutView({ ...session, id, orderAmount: amount }, this.deposits.peek(id)?.deposit ?? null, now);
  }

  /**
   * POST /checkouts/:id/deposit: chooses the method. The payment service decides and says what the choice did
   * (`choice`: created, unchanged, or switched), which passes through: this copy's cache may be behind another copy's
   * switch, so it never guesses. Another method while the deposit is pending switches it, or the service refuses with
   * a 4xx whose message passes through.
   */
  async chooseMethod(
    id: string,
    method: string,
    wallet: WalletChoice = {},
  ): Promise<{ deposit: StoredDeposit; choice: MethodChoice }> {
    await this.requireCheckout(id);
    if (!(await isCurrentCheckout(this, id)))
      throw new ApiError(409, 'This order has a newer checkout (its price changed): reload the page');
    let chosen: { deposit: ShopperDeposit; choice: MethodChoice };
    try {
      // The shop's own return page, when it has one, wins over the page the element is on (docs/indonesian-payments.md).
      const back = wallet.returnUrl && this.config.returnUrl ? { ...wallet, returnUrl: this.config.returnUrl } : wallet;
      chosen = await this.client.chooseCheckoutMethod(id, method, back);
    } catch (err) {
      if (err instanceof PaymentServiceError && err.statusCode === 404) throw new ApiError(404, 'Checkout not found');
      throw err;
    }
    if (chosen.deposit.depositId !== id) throw new ApiError(404, 'Checkout not found');
    this.sessions.invalidate(id);
    // The cache keeps the highest version: a slower answer of an earlier choice never replaces a later one.
    const entry = await this.deposits.update(await this.view(chosen.deposit));
    return { deposit: entry.deposit!, choice: chosen.choice };
  }

  /** Whether `method` is one of the checkout's bank transfers (each holds one of the shop's unique codes while pending). */
  async isBankTransfer(id: string, method: string): Promise<boolean> {
    const session = await this.sessions.get(id).catch(() => null);
    return session?.methods.some((m) => m.bankCode === method && m.depositPaymentType === 'bank_transfer') ?? false;
  }

  /** GET /checkouts/:id/deposit: from the cache, re-read at most once per refresh interval. */
  async readDeposit(id: string): Promise<CachedDeposit & { deposit: StoredDeposit }> {
    if (this.checkouts.peek(id) !== true) await this.requireCheckout(id);
    const entry = await this.deposits.get(id);
    if (!entry.deposit) throw new ApiError(404, 'No payment method has been chosen for this checkout yet');
    return entry as CachedDeposit & { deposit: StoredDeposit };
  }

  /** readDeposit's answer when it needs no wait (a known checkout whose deposit is cached), else undefined. */
  depositNow(id: string): (CachedDeposit & { deposit: StoredDeposit }) | undefined {
    if (this.checkouts.peek(id) !== true) return undefined;
    const entry = this.deposits.current(id);
    return entry?.deposit ? (entry as CachedDeposit & { deposit: StoredDeposit }) : undefined;
  }

  /** POST /checkouts/:id/cancel. */
  async cancel(id: string): Promise<StoredDeposit> {
    await this.requireDeposit(id);
    await this.client.cancelDeposit(id);
    const deposit = await this.client.getDeposit(id);
    if (deposit.depositId !== id) throw new ApiError(404, 'Checkout not found');
    return (await this.deposits.update(await this.view(deposit))).deposit!;
  }

  /** Sandbox only: PATCH /v1/deposit/:id {status}. */
  sandboxSet(id: string, status: 'completed' | 'expired'): Promise<StoredDeposit> {
    return this.sandboxChange(id, () => this.client.sandboxUpdateDeposit(id, status));
  }

  /**
   * Sandbox only: POST /v1/deposit/:id/payments {amount?} (docs/design.md, "Payments that do not go as planned"): a
   * payment, by default of what is still due.
   */
  sandboxPay(id: string, amount?: string): Promise<StoredDeposit> {
    return this.sandboxChange(id, () => this.client.sandboxPay(id, amount));
  }

  /** A sandbox call on the checkout's deposit (400 before a method is chosen), its answer cached as the deposit. */
  private async sandboxChange(id: string, change: () => Promise<UpstreamDeposit>): Promise<StoredDeposit> {
    await this.requireCheckout(id);
    const deposit = await this.deposits.get(id).catch(() => null);
    if (!deposit?.deposit) throw new ApiError(400, 'Choose a payment method first: this checkout has no deposit yet');
    const updated = await change();
    if (updated.depositId !== id) throw new ApiError(404, 'Checkout not found');
    return (await this.deposits.update(await this.view(updated))).deposit!;
  }

  /** A verified webhook reached this copy: webhooks arrive, and streams need not re-read as often as polls. */
  noteWebhook(): void {
    this.lastWebhookAt = this.now();
  }

  /** Whether webhooks reach this copy: one arrived within the last 10 minutes. */
  webhooksArriving(): boolean {
    return this.lastWebhookAt > 0 && this.now() - this.lastWebhookAt < WEBHOOK_QUIET_MS;
  }

  /** Whether the id is a checkout's (for SSE). */
  async exists(id: string): Promise<boolean> {
    return this.isCheckout(id);
  }

  /**
   * Whether the id is a checkout's: a yes is kept (final), a no only in the negative cache, so unknown ids (a guesser's
   * thousands) leave no entry in the readers.
   */
  async isCheckout(id: string): Promise<boolean> {
    if (this.checkouts.peek(id) === true) return true;
    const known = await this.checkouts.get(id);
    if (!known) {
      if ((this.unknown.get(id) ?? 0) <= this.now()) this.unknown.set(id, this.now() + UNKNOWN_TTL_MS);
      this.checkouts.forget(id);
      this.sessions.forget(id);
    }
    return known;
  }

  /** The shopper's view of an upstream deposit, with the checkout's fee policy and method names. */
  async view(deposit: ViewedDeposit): Promise<StoredDeposit> {
    const meta: CheckoutMeta | undefined =
      this.meta.peek(deposit.depositId) ?? (await this.savedCheckout(deposit.depositId));
    const methods = meta?.methods ?? this.methods.peek(deposit.inputCurrency);
    if (!methods) void this.methods.get(deposit.inputCurrency).catch(() => undefined); // names and logos next time
    return depositView(deposit, {
      feesPaidBy: meta?.feesPaidBy ?? (passesFees(feesPolicy(this.config.feesPaidBy)) ? 'shopper' : 'merchant'),
      methods,
      orderAmount: meta?.amount,
    });
  }

  /** What was saved when a copy of this backend created the checkout (its order), if one did. */
  async savedCheckout(checkoutId: string): Promise<SavedCheckout | undefined> {
    const local = this.meta.peek(checkoutId);
    if (local?.saved) return local as CheckoutMeta & SavedCheckout;
    const saved = await this.shared.loadCheckout(checkoutId).catch(() => undefined);
    if (saved) this.remember(checkoutId, { ...saved, saved: true });
    return saved;
  }

  /** Marks a checkout this backend created as settled once its deposit's outcome is final (reconcile passes it by). */
  async settleIfFinal(deposit: UpstreamDeposit): Promise<void> {
    if (deposit.status !== 'completed' && deposit.status !== 'expired') return;
    const saved = await this.savedCheckout(deposit.depositId);
    if (!saved) return;
    await this.shared.markSettled(deposit.depositId, this.now()).catch(() => undefined);
    await this.onSettled?.(deposit, saved.createdAt).catch(() => undefined);
  }

  /** Told of each checkout's deposit settled (the metrics count it: ../observability/metrics.ts settlementCounter). */
  onSettled?: (deposit: UpstreamDeposit, createdAt: number | undefined) => Promise<void>;

  /** 404 unless the id is a checkout's (the only deposits /api may reach). */
  async requireCheckout(id: string): Promise<void> {
    if (!(await this.isCheckout(id))) throw new ApiError(404, 'Checkout not found');
  }

  private async requireDeposit(id: string) {
    await this.requireCheckout(id);
    const entry = await this.deposits.get(id);
    if (!entry.deposit) throw new ApiError(404, 'No payment method has been chosen for this checkout yet');
    return entry.deposit;
  }

  private remember(id: string, meta: CheckoutMeta) {
    const previous = this.meta.peek(id);
    this.meta.set(id, {
      ...previous,
      ...Object.fromEntries(Object.entries(meta).filter(([, v]) => v !== undefined)),
    } as CheckoutMeta);
  }

  /** An amount and currency as this shop takes them, or a 400 naming the field. */
  checkAmount(amount: unknown, currency: unknown): { value: Decimal; code: string } {
    if (typeof currency !== 'string' || !/^[A-Za-z]{3}$/.test(currency))
      throw new ApiError(400, 'currency: a 3-letter currency code, e.g. IDR');
    const code = currency.toUpperCase();
    if (!this.config.currencies.includes(code))
      throw new ApiError(400, `currency: this shop accepts ${this.config.currencies.join(', ')}`);
    const raw = typeof amount === 'number' ? String(amount) : amount;
    const dp = ZERO_DECIMAL_CURRENCIES.has(code) ? 0 : 2;
    const separator = typeof raw === 'string' ? thousandsSeparatorIn(raw, dp) : undefined;
    if (separator) throw new ApiError(400, separatorRefusal('amount', raw as string, separator, dp));
    if (typeof raw !== 'string' || !/^\d{1,64}(\.\d{1,64})?$/.test(raw.trim()))
      throw new ApiError(400, 'amount: a positive decimal number, e.g. "150000"');
    const value = new Decimal(raw.trim());
    if (value.lte(0)) throw new ApiError(400, 'amount: must be positive');
    if (value.gt(MAX_AMOUNT)) throw new ApiError(400, `amount: at most ${MAX_AMOUNT.toFixed()} ${code}`);
    if (value.decimalPlaces() > dp)
      throw new ApiError(
        400,
        `amount: ${code} amounts have ${dp ? `at most ${dp} decimal places` : 'no decimal places'}`,
      );
    return { value, code };
  }
}
