// Refund claims (docs/refunds.md): when the payment service counts money owed back for a checkout's deposit (it
// expired or was cancelled with money received, a payment arrived late, or more than was due arrived), the element
// asks the shopper where to send it. GET /checkouts/:id/refund-claim says what is owed and what the form asks;
// POST /checkouts/:id/refund-claim takes the answer once per deposit: a bank account becomes a recipient at the service
// (POST /v1/recipient, signed), and the shop's onRefundRequested hook runs once, across copies and restarts (the
// shared state's claims, as the other hooks). The amount is always the service's count, never a figure from the page.
import { Decimal } from 'decimal.js';
import { Hono, type Context } from 'hono';
import { rateLimiter } from 'hono-rate-limiter';
import { z } from 'zod';
import type { Bank, Deposit as UpstreamDeposit } from './client/types.js';
import { PaymentServiceError } from './client/errors.js';
import type { Logger } from '../common/log.js';
import { checkoutIdParam, jsonBody, ok, stateChanging } from '../common/widget-api.js';
import { evmAddressProblem, stellarAddressProblem, stellarMemoProblem } from '../common/crypto-address.js';
import type { OrderCustomer, RefundRecipient, RefundRequest } from './hooks.js';
import { ApiError, errorBody } from './http.js';
import type { MerchantService } from './service.js';
import type { Claim } from './shared-state.js';
import { BoundedReader } from './status-cache.js';
import type { RefundClaim, RefundField } from '@kasir/checkout';

/** A claim held while its recipient is created and the hook runs lapses this long after its holder stopped renewing it. */
const LEASE_MS = 10_000;
/** How long a claim waits for another request holding the same deposit's claim before answering that one was made. */
const BUSY_WAIT_MS = LEASE_MS + 2_000;
/** A deposit's claim is remembered as made for longer than anyone pays a deposit late. */
const CLAIM_TTL_MS = 400 * 24 * 3600_000;
/** What the recipient at the service needs of the customer, besides the bank account. */
const CUSTOMER_FIELDS: readonly RefundField[] = ['email', 'address', 'city', 'postCode'];

/** The shared-state key of a deposit's claim. */
const claimKey = (depositId: string) => `refund:${depositId}`;

/** Blank form fields are absent ones. */
const blankIsAbsent = (value: unknown) => (typeof value === 'string' && value.trim() === '' ? undefined : value);
const textField = (min: number, max: number, what: string) =>
  z.preprocess(
    blankIsAbsent,
    z
      .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be text') })
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
    z
      .string({
        error: (issue) =>
          issue.input === undefined ? 'is required' : 'must be text (a number would lose leading zeros)',
      })
      .transform((value) => value.replace(/[\s-]/g, ''))
      .pipe(z.string().regex(/^[0-9A-Za-z]{5,34}$/, 'must be 5 to 34 digits or letters')),
  ),
  accountName: textField(2, 100, "the account holder's name"),
  email: z
    .preprocess(
      blankIsAbsent,
      z
        .string({ error: 'must be text' })
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
      z
        .string({ error: 'must be text' })
        .trim()
        .regex(/^[A-Za-z0-9 -]{3,12}$/, 'must be 3 to 12 letters, digits, spaces or dashes'),
    )
    .optional(),
});

const CryptoClaimBody = z.object({
  address: textField(1, 128, 'the wallet address'),
  memo: z
    .preprocess(blankIsAbsent, z.string({ error: 'must be text' }).trim().max(64, 'must be at most 64 characters'))
    .optional(),
});

/** A zod failure as the envelope's message: the first problem, after its field's name. */
function invalid(error: z.ZodError): ApiError {
  const issue = error.issues[0];
  return new ApiError(400, `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'is not valid'}`);
}

/** What is owed back for a deposit, as the service counts it; undefined when nothing is. */
function owedBack(deposit: UpstreamDeposit): { amount: Decimal; reason: RefundRequest['reason'] } | undefined {
  const paid = new Decimal(deposit.paidAmount ?? 0);
  const over = new Decimal(deposit.overpaidAmount ?? 0);
  if (deposit.status === 'expired' && paid.greaterThan(0)) {
    return { amount: paid, reason: (deposit.payments ?? []).some((payment) => payment.late) ? 'paid_late' : 'expired' };
  }
  if (deposit.status === 'completed' && over.greaterThan(0)) return { amount: over, reason: 'overpaid' };
  return undefined;
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
    return this.offer(id, deposit, owedBack(deposit) ? await this.claimed(id) : false);
  }

  /** What is owed for the deposit and what the form asks, with whether a claim was made. */
  private async offer(id: string, deposit: UpstreamDeposit, claimed: boolean): Promise<RefundClaim> {
    const owed = owedBack(deposit);
    const base = {
      accepted: true as const,
      amount: owed ? owed.amount.toFixed() : '0',
      currency: deposit.inputCurrency,
      ...(owed ? { reason: owed.reason } : {}),
      claimed,
    };
    // Claimed: nothing more to ask (and nothing more to read from the service).
    if (claimed) return { ...base, kind: deposit.depositType === 'crypto' ? 'crypto' : 'bank' };
    if (deposit.depositType === 'crypto') return { ...base, kind: 'crypto', ...(await this.network(id, deposit)) };
    const customer = await this.customerOf(id);
    return {
      ...base,
      kind: 'bank',
      banks: (await this.banks.get(deposit.inputCurrency)).map((bank) => ({
        code: bank.bankCode,
        name: bank.bankName,
      })),
      ask: CUSTOMER_FIELDS.filter((field) => !customer[field]),
    };
  }

  /** POST /checkouts/:id/refund-claim: checked, the recipient made, the hook run once; answers the claim as now known. */
  async claim(id: string, body: Record<string, unknown>): Promise<RefundClaim> {
    const hook = this.service.hooks.onRefundRequested;
    if (!hook) throw new ApiError(404, 'This shop takes no refund details here; please contact the shop');
    const deposit = await this.depositOf(id);
    // Whatever the body says: only the service's count decides, and an `amount` in the body is never read.
    const owed = owedBack(deposit);
    if (!owed) throw new ApiError(400, 'Nothing is owed back for this payment');
    const claim = await this.take(id);
    if (claim.state !== 'claimed') throw new ApiError(409, 'A refund was already requested');
    const renew = setInterval(
      () => void this.service.shared.extend(claim, LEASE_MS).catch(() => undefined),
      LEASE_MS / 3,
    );
    try {
      const recipient =
        deposit.depositType === 'crypto'
          ? await this.cryptoRecipient(id, deposit, body)
          : await this.bankRecipient(id, deposit, body);
      const request: RefundRequest = {
        eventId: claimKey(id),
        ...(await this.orderIdOf(id)),
        checkoutId: id,
        depositId: deposit.depositId,
        amount: owed.amount.toFixed(),
        currency: deposit.inputCurrency,
        reason: owed.reason,
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
    } finally {
      clearInterval(renew);
    }
    try {
      await this.service.shared.finish(claim, CLAIM_TTL_MS);
    } catch (err) {
      // The hook ran: the shopper is told so. Until the claim's lease lapses a second claim is still refused.
      this.options.log.error(
        { checkoutId: id, err: err instanceof Error ? err.message : String(err) },
        'refund claim not marked done: the shared state is unreachable',
      );
    }
    return this.offer(id, deposit, true);
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

  /** The deposit's claim, waiting while another request (on any copy) holds it. */
  private async take(id: string): Promise<Claim> {
    const deadline = Date.now() + BUSY_WAIT_MS;
    for (;;) {
      const claim = await this.service.shared.claim(claimKey(id), LEASE_MS);
      if (claim.state !== 'busy' || Date.now() >= deadline) return claim;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /** Whether a claim was made (or is being made) for the deposit: a claim taken and let go at once when not. */
  private async claimed(id: string): Promise<boolean> {
    const claim = await this.service.shared.claim(claimKey(id), 1_000);
    if (claim.state !== 'claimed') return true;
    await this.service.shared.release(claim);
    return false;
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

  /** A crypto deposit's network: from the checkout's session where it names it, else from the crypto id. */
  private async network(
    id: string,
    deposit: UpstreamDeposit,
  ): Promise<{ symbol: string; network: string; networkName: string; chain: 'EVM' | 'STELLAR' }> {
    const [symbol = deposit.inputCurrency, network = ''] = deposit.inputCurrency.split('-');
    const session = await this.service.sessions.get(id).catch(() => null);
    const crypto = session?.methods.find((method) => method.bankCode === deposit.inputCurrency)?.crypto;
    return crypto
      ? {
          symbol: crypto.symbol,
          network: crypto.network,
          networkName: crypto.networkName,
          chain: crypto.blockchainType,
        }
      : { symbol, network, networkName: network, chain: network.toUpperCase() === 'STELLAR' ? 'STELLAR' : 'EVM' };
  }

  private async cryptoRecipient(
    id: string,
    deposit: UpstreamDeposit,
    body: Record<string, unknown>,
  ): Promise<RefundRecipient> {
    const parsed = CryptoClaimBody.safeParse(body);
    if (!parsed.success) throw invalid(parsed.error);
    const { address, memo } = parsed.data;
    const { network, chain } = await this.network(id, deposit);
    const problem = chain === 'STELLAR' ? stellarAddressProblem(address) : evmAddressProblem(address);
    if (problem) throw new ApiError(400, `address: ${problem}`);
    if (memo !== undefined) {
      if (chain !== 'STELLAR') throw new ApiError(400, 'memo: only a Stellar address takes a memo');
      const memoProblem = stellarMemoProblem(memo);
      if (memoProblem) throw new ApiError(400, `memo: ${memoProblem}`);
    }
    // No recipient at the service: its recipients are bank payees (bank.accountName, currency and country required).
    return { type: 'crypto', asset: deposit.inputCurrency, network, address, ...(memo === undefined ? {} : { memo }) };
  }

  private async bankRecipient(
    id: string,
    deposit: UpstreamDeposit,
    body: Record<string, unknown>,
  ): Promise<RefundRecipient> {
    const parsed = BankClaimBody.safeParse(body);
    if (!parsed.success) throw invalid(parsed.error);
    const form = parsed.data;
    const currency = deposit.inputCurrency;
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
