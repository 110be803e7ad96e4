// Refund claims (docs/refunds.md): when the payment service counts money owed back for a checkout's deposit (it
// expired or was cancelled with money received, a payment arrived late, or more than was due arrived), the element
// asks the shopper where to send it, per currency as the money arrived (rupiah to a bank account, a token to an address
// on the network it came by), whatever method the deposit has now. GET /checkouts/:id/refund-claim says what is owed
// per currency, what of it was claimed and what the form asks; POST /checkouts/:id/refund-claim takes the answer for
// one currency: a bank account becomes a recipient at the service (POST /v1/recipient, signed), and the shop's
// onRefundRequested hook runs once for what of that currency no claim covered yet, across copies and restarts (the
// shared state's claims, as the other hooks). Money that arrives after a claim is owed too and claimed on its own. The
// amount is always the service's count, never a figure from the page.
import { isSafeShopperText, UNSAFE_TEXT_PROBLEM } from '../../common/shopper-text.js';
import { Decimal } from 'decimal.js';
import { Hono, type Context } from 'hono';
import { rateLimiter } from 'hono-rate-limiter';
import { z } from 'zod';
import type { Bank, Deposit as UpstreamDeposit } from '../client/types.js';
import { PaymentServiceError } from '../client/errors.js';
import type { Logger } from '../../common/log.js';
import { checkoutIdParam, jsonBody, ok, stateChanging } from '../../common/widget-api.js';
import { evmAddressProblem, stellarAddressProblem, stellarMemoProblem } from '../../common/crypto-address.js';
import type { OrderCustomer, RefundRecipient, RefundRequest } from '../hooks.js';
import { ApiError, errorBody } from '../http.js';
import { ZERO_DECIMAL_CURRENCIES, type MerchantService } from '../widget-api/service.js';
import type { Claim } from '../state/shared-state.js';
import { BoundedReader } from '../state/status-cache.js';
import type { RefundClaim, RefundField, RefundOwed } from '@kasir/checkout';

/** A claim held while its recipient is created and the hook runs lapses this long after its holder stopped renewing it. */
const LEASE_MS = 10_000;
/** How long a claim waits for another request holding the same deposit's claim before answering that one was made. */
const BUSY_WAIT_MS = LEASE_MS + 2_000;
/** A deposit's claim is remembered as made for longer than anyone pays a deposit late. */
const CLAIM_TTL_MS = 400 * 24 * 3600_000;
/** What the recipient at the service needs of the customer, besides the bank account. */
const CUSTOMER_FIELDS: readonly RefundField[] = ['email', 'address', 'city', 'postCode'];

/**
 * The shared-state keys of a deposit's claims in one currency: the lock its claims are made under (one at a time, on
 * any copy), and each claim made, named by how many of the deposit's payments it covers (what it covered is what those
 * payments owe: payments are only ever added, so that count says the amount).
 */
const lockKey = (depositId: string, currency: string) => `refund:${depositId}:${currency}`;
const claimKey = (depositId: string, currency: string, payments: number) =>
  `refund:${depositId}:${currency}:${payments}`;

/** A text field a shopper types: refused when it holds a control character or a text-direction mark. */
const shopperString = (error: Parameters<typeof z.string>[0]) =>
  z.string(error).refine(isSafeShopperText, UNSAFE_TEXT_PROBLEM);

/** Blank form fields are absent ones. */
const blankIsAbsent = (value: unknown) => (typeof value === 'string' && value.trim() === '' ? undefined : value);
const textField = (min: number, max: number, what: string) =>
  z.preprocess(
    blankIsAbsent,
    shopperString({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be text') })
      .trim()
      .min(min, `must be at least ${min} characters`)
      .max(max, `must be at most ${max} characters`)
      .describe(what),
  );

const BankClaimBody = z.object({
  bankCode: textField(1, 64, 'the code of one of the banks listed'),
  // Text, never a number: a JSON number loses leading zeros. Spaces and dashes as people write them are dropped.
  accountNumber: z.preprocess(
    blankIsAbsent,
    shopperString({
      error: (issue) =>
        issue.input === undefined ? 'is required' : 'must be text (a number would lose leading zeros)',
    })
      .max(64, 'must be at most 64 characters')
      .transform((value) => value.replace(/[\s-]/g, ''))
      .pipe(z.string().regex(/^[0-9A-Za-z]{5,34}$/, 'must be 5 to 34 digits or letters')),
  ),
  accountName: textField(2, 100, "the account holder's name"),
  email: z
    .preprocess(
      blankIsAbsent,
      shopperString({ error: 'must be text' })
        .trim()
        .max(254, 'must be at most 254 characters')
        .pipe(z.email({ error: 'must be an email address' })),
    )
    .optional(),
  address: textField(3, 500, 'street address').optional(),
  city: textField(2, 100, 'city').optional(),
  postCode: z
    .preprocess(
      blankIsAbsent,
      shopperString({ error: 'must be text' })
        .max(64, 'must be at most 64 characters')
        .trim()
        .regex(/^[A-Za-z0-9 -]{3,12}$/, 'must be 3 to 12 letters, digits, spaces or dashes'),
    )
    .optional(),
});

const CryptoClaimBody = z.object({
  address: textField(1, 128, 'the wallet address'),
  memo: z
    .preprocess(blankIsAbsent, shopperString({ error: 'must be text' }).trim().max(64, 'must be at most 64 characters'))
    .optional(),
});

/** The currency a claim names (a currency code or crypto id); may be left out when one is owed. */
const ClaimCurrency = z.object({
  currency: z
    .preprocess(
      blankIsAbsent,
      shopperString({ error: 'must be text' })
        .trim()
        .max(32, 'must be at most 32 characters')
        .transform((value) => value.toUpperCase()),
    )
    .optional(),
});

/** A zod failure as the envelope's message: the first problem, after its field's name. */
function invalid(error: z.ZodError): ApiError {
  const issue = error.issues[0];
  return new ApiError(400, `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'is not valid'}`);
}

/** Money owed back in one currency, as it arrived. */
interface OwedIn {
  currency: string;
  amount: Decimal;
  kind: RefundOwed['kind'];
}

/** What is owed back for a deposit, per currency as it arrived, and why. */
interface OwedBack {
  reason: RefundRequest['reason'];
  owed: OwedIn[];
}

/** A fiat currency is a 3-letter code; anything else is a crypto id (a token on its network, e.g. USDC-POLYGON). */
const kindOf = (currency: string): RefundOwed['kind'] => (/^[A-Z]{3}$/.test(currency) ? 'bank' : 'crypto');

/** The places an amount of `currency` is sent in: a fiat's, else the finest a payment in it arrived with. */
function placesIn(deposit: UpstreamDeposit, currency: string): number {
  if (kindOf(currency) === 'bank') return ZERO_DECIMAL_CURRENCIES.has(currency) ? 0 : 2;
  return Math.max(
    0,
    ...deposit.payments.filter((p) => p.currency === currency).map((p) => new Decimal(p.amount).decimalPlaces()),
  );
}

/**
 * What arrived beyond a completed order, per payment (by index), in each payment's currency. The order keeps its value
 * from the payments in the order they arrived: the payments after the one that completed it are owed whole, and of that
 * one its share beyond the order. That share is exact where the service counts it (the money beyond the order all
 * arrived in the current method's currency: `overpaidAmount`, or in the order's own currency: its value); otherwise it
 * is the payment's amount times the part of its value beyond the order, cut down to its currency's places.
 */
function beyondTheOrder(deposit: UpstreamDeposit): Map<number, Decimal> {
  const { payments } = deposit;
  // What the order kept, in its currency; the payments' values add up to paidValue exactly.
  const kept = new Decimal(deposit.paidValue).minus(deposit.overpaidValue);
  const beyond = new Map<number, Decimal>();
  let before = new Decimal(0);
  let crossing = -1;
  payments.forEach((p, i) => {
    const value = new Decimal(p.value);
    const full = before.greaterThanOrEqualTo(kept);
    before = before.plus(value);
    if (full) beyond.set(i, new Decimal(p.amount));
    else if (before.greaterThan(kept)) crossing = i;
  });
  if (crossing < 0) return beyond;
  const p = payments[crossing]!;
  const value = new Decimal(p.value);
  const share = before
    .minus(kept)
    .minus(payments.slice(crossing + 1).reduce((sum, q) => sum.plus(q.value), new Decimal(0)));
  const later = payments.slice(crossing + 1).reduce((sum, q) => sum.plus(q.amount), new Decimal(0));
  if (payments.slice(crossing).every((q) => q.currency === deposit.inputCurrency))
    beyond.set(crossing, new Decimal(deposit.overpaidAmount).minus(later));
  else if (p.currency === deposit.orderCurrency) beyond.set(crossing, share);
  else
    beyond.set(
      crossing,
      new Decimal(p.amount)
        .times(share)
        .dividedBy(value)
        .toDecimalPlaces(placesIn(deposit, p.currency), Decimal.ROUND_DOWN),
    );
  return beyond;
}

/**
 * A service that keeps no ledger (no `payments`, no values in the order's currency): what it counts as paid, as one
 * payment in the deposit's currency, which is then the order's.
 */
function withLedger(given: UpstreamDeposit): UpstreamDeposit {
  const deposit = {
    ...given,
    payments: given.payments ?? [],
    orderCurrency: given.orderCurrency ?? given.inputCurrency,
    paidValue: given.paidValue ?? given.paidAmount ?? 0,
    overpaidValue: given.overpaidValue ?? given.overpaidAmount ?? 0,
  };
  if (deposit.payments.length || !(deposit.paidAmount > 0)) return deposit;
  const payment = {
    amount: deposit.paidAmount,
    currency: deposit.inputCurrency,
    method: deposit.inputCurrency,
    value: deposit.paidValue,
    receivedAt: deposit.updatedAt,
    late: false,
  };
  return { ...deposit, payments: [payment] };
}

/** How many payments the deposit's ledger holds (what a claim is named by). */
const paymentsOf = (deposit: UpstreamDeposit) => withLedger(deposit).payments.length;

/**
 * What is owed back for a deposit as the service counts it, per currency as the money arrived, counting its first
 * `count` payments (all of them by default; fewer: what a claim made when only those had arrived covered).
 * Expired or cancelled: every payment, in its own currency. Completed with more than was due: what arrived beyond the
 * order (beyondTheOrder). Undefined when nothing is owed.
 */
export function owedBack(given: UpstreamDeposit, count?: number): OwedBack | undefined {
  const deposit = withLedger(given);
  const counted = count ?? deposit.payments.length;
  let owing: Map<number, Decimal>;
  let reason: RefundRequest['reason'];
  if (deposit.status === 'expired') {
    owing = new Map(deposit.payments.map((p, i) => [i, new Decimal(p.amount)]));
    reason = deposit.payments.slice(0, counted).some((p) => p.late) ? 'paid_late' : 'expired';
  } else if (deposit.status === 'completed' && new Decimal(deposit.overpaidValue ?? 0).greaterThan(0)) {
    owing = beyondTheOrder(deposit);
    reason = 'overpaid';
  } else return undefined;
  const sums = new Map<string, Decimal>();
  for (const [i, amount] of owing) {
    const { currency } = deposit.payments[i]!;
    if (i < counted) sums.set(currency, (sums.get(currency) ?? new Decimal(0)).plus(amount));
  }
  const owed = [...sums]
    .filter(([, amount]) => amount.greaterThan(0))
    .map(([currency, amount]) => ({ currency, amount, kind: kindOf(currency) }));
  return owed.length ? { reason, owed } : undefined;
}

/** The customer fields the shop gave, trimmed; blank ones left out. */
function knownCustomer(customer: OrderCustomer | undefined): OrderCustomer {
  const known: OrderCustomer = {};
  for (const field of ['name', ...CUSTOMER_FIELDS] as const) {
    const value = customer?.[field];
    if (typeof value === 'string' && value.trim()) known[field] = value.trim();
  }
  return known;
}

export interface RefundClaimsOptions {
  log: Logger;
  now?: () => number;
  /** The client's address, as the backend's other limits count it. */
  addressOf: (c: Context) => string;
}

/**
 * Each read or claim asks the payment service (what is owed is never taken from a cache): per client address, at most
 * this many in ten minutes, counted in the shared state (Redis: the shop's, not each copy's). A shopper needs a few.
 */
const REQUESTS_PER_TEN_MINUTES = 100;

/** The logic of refund claims over the backend's service (its payment-service client, shared state and hooks). */
class RefundClaims {
  /** The service's banks per currency (GET /v1/banks), re-read every five minutes. */
  private readonly banks: BoundedReader<Bank[]>;

  constructor(
    private readonly service: MerchantService,
    private readonly options: RefundClaimsOptions,
  ) {
    this.banks = new BoundedReader((currency) => service.client.listBanks({ currency }), {
      refreshMs: 5 * 60_000,
      now: options.now,
    });
  }

  /** Claims are taken only when the shop has a hook to hear them: otherwise the element keeps its "the shop will refund" words. */
  get accepted(): boolean {
    return typeof this.service.hooks.onRefundRequested === 'function';
  }

  /** GET /checkouts/:id/refund-claim. */
  async describe(id: string): Promise<RefundClaim> {
    if (!this.accepted) return { accepted: false };
    const deposit = await this.depositOf(id);
    return this.offer(id, deposit, await this.claimedOf(deposit));
  }

  /**
   * What is owed for the deposit per currency and what of it was claimed, and the form for the first currency with
   * money still to claim (else the first owed).
   */
  private async offer(id: string, deposit: UpstreamDeposit, claimed: Map<string, Decimal>): Promise<RefundClaim> {
    const back = owedBack(deposit);
    const owed = (back?.owed ?? []).map((o) => ({ ...o, claimed: claimed.get(o.currency) ?? new Decimal(0) }));
    const open = owed.find((o) => o.amount.greaterThan(o.claimed));
    const form = open ?? owed[0];
    const currency = form?.currency ?? deposit.inputCurrency;
    const kind = form?.kind ?? (deposit.depositType === 'crypto' ? 'crypto' : 'bank');
    const base = {
      accepted: true as const,
      owed: owed.map((o) => ({
        amount: o.amount.toFixed(),
        currency: o.currency,
        kind: o.kind,
        claimed: o.claimed.toFixed(),
      })),
      amount: open ? open.amount.minus(open.claimed).toFixed() : '0',
      currency,
      ...(back ? { reason: back.reason } : {}),
      claimed: owed.length > 0 && !open,
      kind,
    };
    // Everything claimed: nothing more to ask (and nothing more to read from the service).
    if (base.claimed) return base;
    if (kind === 'crypto') return { ...base, ...(await this.network(id, currency)) };
    const customer = await this.customerOf(id);
    return {
      ...base,
      banks: (await this.banks.get(currency)).map((bank) => ({ code: bank.bankCode, name: bank.bankName })),
      ask: CUSTOMER_FIELDS.filter((field) => !customer[field]),
    };
  }

  /**
   * POST /checkouts/:id/refund-claim for one currency (named, or the one owed): checked, the recipient made, the hook
   * run once for what of it no claim covered yet; answers the offer as now known.
   */
  async claim(id: string, body: Record<string, unknown>): Promise<RefundClaim> {
    const hook = this.service.hooks.onRefundRequested;
    if (!hook) throw new ApiError(404, 'This shop takes no refund details here; please contact the shop');
    // Whatever the body says: only the service's count decides, and an `amount` in the body is never read.
    const first = owedBack(await this.depositOf(id));
    if (!first) throw new ApiError(400, 'Nothing is owed back for this payment');
    const named = ClaimCurrency.safeParse(body);
    if (!named.success) throw invalid(named.error);
    const currencies = first.owed.map((o) => o.currency);
    const currency = named.data.currency ?? (currencies.length === 1 ? currencies[0]! : undefined);
    if (!currency) throw new ApiError(400, `currency: name the currency to refund (${currencies.join(' or ')})`);
    if (!currencies.includes(currency))
      throw new ApiError(400, `currency: nothing is owed back in ${currency} (owed: ${currencies.join(', ')})`);
    // One claim of a currency at a time, on any copy: what the others covered is read under it.
    const lock = await this.take(lockKey(id, currency));
    if (lock.state !== 'claimed') throw new ApiError(409, 'A refund was already requested');
    const renew = setInterval(
      () => void this.service.shared.extend(lock, LEASE_MS).catch(() => undefined),
      LEASE_MS / 3,
    );
    let deposit: UpstreamDeposit;
    try {
      // Read again under the lock: money may have arrived since.
      deposit = await this.depositOf(id);
      const owed = owedBack(deposit)?.owed.find((o) => o.currency === currency);
      const covered = await this.coveredOf(deposit, currency);
      const rest = owed ? owed.amount.minus(this.claimedBy(deposit, currency, covered)) : new Decimal(0);
      if (!rest.greaterThan(0)) throw new ApiError(409, 'A refund was already requested');
      const key = claimKey(id, currency, paymentsOf(deposit));
      // Under the lock only a reader's look at the key can hold it, and only for a moment: waited for.
      const claim = await this.take(key);
      if (claim.state !== 'claimed') throw new ApiError(409, 'A refund was already requested');
      try {
        const recipient =
          kindOf(currency) === 'crypto'
            ? await this.cryptoRecipient(id, currency, body)
            : await this.bankRecipient(id, deposit, currency, body);
        const request: RefundRequest = {
          eventId: key,
          ...(await this.orderIdOf(id)),
          checkoutId: id,
          depositId: deposit.depositId,
          amount: rest.toFixed(),
          currency,
          reason: owedBack(deposit)!.reason,
          recipient,
        };
        try {
          await hook(request);
        } catch (err) {
          this.options.log.warn(
            { hook: 'onRefundRequested', checkoutId: id, err: err instanceof Error ? err.message : String(err) },
            `onRefundRequested threw: ${err instanceof Error ? err.message : String(err)} (the shopper is asked to send the details again)`,
          );
          throw new ApiError(503, 'The shop could not take the refund details just now; please try again in a moment');
        }
      } catch (err) {
        await this.service.shared.release(claim).catch(() => undefined);
        throw err;
      }
      try {
        await this.service.shared.finish(claim, CLAIM_TTL_MS);
      } catch (err) {
        // The hook ran: the shopper is told so. Until the claim's lease lapses the lock keeps a second claim out.
        this.options.log.error(
          { checkoutId: id, err: err instanceof Error ? err.message : String(err) },
          'refund claim not marked done: the shared state is unreachable',
        );
      }
    } finally {
      clearInterval(renew);
      await this.service.shared.release(lock).catch(() => undefined);
    }
    return this.offer(id, deposit, await this.claimedOf(deposit));
  }

  /** The checkout's deposit as the service has it now (404 for what is not a checkout of this shop, or has no deposit). */
  private async depositOf(id: string): Promise<UpstreamDeposit> {
    await this.service.requireCheckout(id);
    let deposit: UpstreamDeposit;
    try {
      deposit = await this.service.client.getDeposit(id);
    } catch (err) {
      if (err instanceof PaymentServiceError && err.statusCode === 404)
        throw new ApiError(404, 'No payment method has been chosen for this checkout yet');
      throw err;
    }
    // GET /v1/deposit/:x also answers by reference: only the deposit whose id is the checkout's is its deposit.
    if (deposit.depositId !== id) throw new ApiError(404, 'Checkout not found');
    return deposit;
  }

  /** A key's claim, waiting while another request (on any copy) holds it. */
  private async take(key: string): Promise<Claim> {
    const deadline = Date.now() + BUSY_WAIT_MS;
    for (;;) {
      const claim = await this.service.shared.claim(key, LEASE_MS);
      if (claim.state !== 'busy' || Date.now() >= deadline) return claim;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /**
   * How many of the deposit's payments the claims made in `currency` covered (0: none made). A claim being made right
   * now is not counted: the shop has not been told yet.
   */
  private async coveredOf(deposit: UpstreamDeposit, currency: string): Promise<number> {
    for (let count = paymentsOf(deposit); count > 0; count--) {
      const claim = await this.service.shared.claim(claimKey(deposit.depositId, currency, count), 1_000);
      if (claim.state === 'done') return count;
      if (claim.state === 'claimed') await this.service.shared.release(claim);
    }
    return 0;
  }

  /** What the claims covering the first `covered` payments told the shop of `currency`. */
  private claimedBy(deposit: UpstreamDeposit, currency: string, covered: number): Decimal {
    if (covered === 0) return new Decimal(0);
    return owedBack(deposit, covered)?.owed.find((o) => o.currency === currency)?.amount ?? new Decimal(0);
  }

  /** What the shop was told of, per owed currency. */
  private async claimedOf(deposit: UpstreamDeposit): Promise<Map<string, Decimal>> {
    const claimed = new Map<string, Decimal>();
    for (const { currency } of owedBack(deposit)?.owed ?? [])
      claimed.set(currency, this.claimedBy(deposit, currency, await this.coveredOf(deposit, currency)));
    return claimed;
  }

  private async orderIdOf(id: string): Promise<{ orderId?: string }> {
    const orderId = (await this.service.savedCheckout(id))?.orderId;
    return orderId === undefined ? {} : { orderId };
  }

  /** The order's customer as the shop's priceOrder tells it (asked again: nothing of it is kept here). */
  private async customerOf(id: string): Promise<OrderCustomer> {
    const { priceOrder } = this.service.hooks;
    const { orderId } = await this.orderIdOf(id);
    if (!priceOrder || orderId === undefined) return {};
    try {
      return knownCustomer((await priceOrder(orderId))?.customer);
    } catch (err) {
      // The form then asks for all of it: the shopper is not stopped by the shop's lookup.
      this.options.log.warn(
        { hook: 'priceOrder', orderId, err: err instanceof Error ? err.message : String(err) },
        'priceOrder threw while a refund form asked for the customer',
      );
      return {};
    }
  }

  /** A crypto id's network: from the checkout's session where it names it, else from the crypto id. */
  private async network(
    id: string,
    currency: string,
  ): Promise<{ symbol: string; network: string; networkName: string; chain: 'EVM' | 'STELLAR' }> {
    const [symbol = currency, network = ''] = currency.split('-');
    const session = await this.service.sessions.get(id).catch(() => null);
    const crypto = session?.methods.find((method) => method.bankCode === currency)?.crypto;
    return crypto
      ? {
          symbol: crypto.symbol,
          network: crypto.network,
          networkName: crypto.networkName,
          chain: crypto.blockchainType,
        }
      : { symbol, network, networkName: network, chain: network.toUpperCase() === 'STELLAR' ? 'STELLAR' : 'EVM' };
  }

  private async cryptoRecipient(id: string, currency: string, body: Record<string, unknown>): Promise<RefundRecipient> {
    const parsed = CryptoClaimBody.safeParse(body);
    if (!parsed.success) throw invalid(parsed.error);
    const { address, memo } = parsed.data;
    const { network, chain } = await this.network(id, currency);
    const problem = chain === 'STELLAR' ? stellarAddressProblem(address) : evmAddressProblem(address);
    if (problem) throw new ApiError(400, `address: ${problem}`);
    if (memo !== undefined) {
      if (chain !== 'STELLAR') throw new ApiError(400, 'memo: only a Stellar address takes a memo');
      const memoProblem = stellarMemoProblem(memo);
      if (memoProblem) throw new ApiError(400, `memo: ${memoProblem}`);
    }
    // No recipient at the service: its recipients are bank payees (bank.accountName, currency and country required).
    return { type: 'crypto', asset: currency, network, address, ...(memo === undefined ? {} : { memo }) };
  }

  private async bankRecipient(
    id: string,
    deposit: UpstreamDeposit,
    currency: string,
    body: Record<string, unknown>,
  ): Promise<RefundRecipient> {
    const parsed = BankClaimBody.safeParse(body);
    if (!parsed.success) throw invalid(parsed.error);
    const form = parsed.data;
    const bank = (await this.banks.get(currency)).find((b) => b.bankCode.toUpperCase() === form.bankCode.toUpperCase());
    if (!bank) throw new ApiError(400, `bankCode: choose one of the banks listed for ${currency}`);
    // What the shop knows of its customer wins; the form asks the rest.
    const customer = await this.customerOf(id);
    const details = {
      email: customer.email ?? form.email,
      address: customer.address ?? form.address,
      city: customer.city ?? form.city,
      postCode: customer.postCode ?? form.postCode,
    };
    for (const field of CUSTOMER_FIELDS) if (!details[field]) throw new ApiError(400, `${field}: is required`);
    const name = customer.name ?? form.accountName;
    const created = await this.service.client.createRecipient({
      name,
      email: details.email!,
      address: details.address!,
      city: details.city!,
      postCode: details.postCode!,
      recipientType: 'Individual',
      reference: `Refund of deposit ${deposit.depositId}`,
      bank: {
        accountName: form.accountName,
        accountNumber: form.accountNumber,
        bankName: bank.bankName,
        paymentCode: bank.bankCode,
        currency,
        country: bank.country,
      },
    });
    return {
      type: 'bank',
      recipientId: created.id,
      name,
      email: details.email!,
      address: details.address!,
      city: details.city!,
      postCode: details.postCode!,
      bankCode: bank.bankCode,
      bankName: bank.bankName,
      accountNumber: form.accountNumber,
      accountName: form.accountName,
      currency,
      country: bank.country,
    };
  }
}

/** GET and POST /checkouts/:id/refund-claim, to mount at the widget API's root. */
export function refundClaimRoutes(service: MerchantService, options: RefundClaimsOptions): Hono {
  const claims = new RefundClaims(service, options);
  const app = new Hono();
  app.use(
    '/checkouts/:id/refund-claim',
    rateLimiter({
      windowMs: 600_000,
      limit: REQUESTS_PER_TEN_MINUTES,
      standardHeaders: 'draft-7',
      keyGenerator: options.addressOf,
      store: service.shared.rateLimitStore('ratelimit:refund-claims:'),
      handler: (c) =>
        c.json(errorBody(429, 'Too many refund requests from this address; try again in a few minutes'), 429),
    }),
  );
  app.get('/checkouts/:id/refund-claim', async (c) => ok(c, await claims.describe(checkoutIdParam(c))));
  app.post('/checkouts/:id/refund-claim', stateChanging, async (c) => {
    const id = checkoutIdParam(c);
    return ok(c, await claims.claim(id, await jsonBody(c)), 201, 'Refund details received');
  });
  return app;
}
