// Every change of a deposit's state, in one place (DESIGN.md 3): creation (pending, with its first history entry) and
// the moves from pending to expired (sandbox status update, cancel, e-wallet decline, expiry); payments, which complete
// a deposit or not, are recorded by payments.ts in the same way.
// Each runs in one transaction that appends to activityHistory and, for a move, writes the deposit webhook to the
// outbox, so the event exists if and only if the change was committed. Switching a pending checkout deposit to
// another method is here too: its history entry and payment details in one transaction, and no webhook.
import { Decimal } from 'decimal.js';
import type { Transaction } from 'kysely';
import { ApiError } from '../../common/errors.js';
import type { Database } from '../db/database.js';
import { engineOf } from '../db/engine.js';
import type { NewDeposit } from '../db/deposit-tables.js';
import type { AuthenticatedMerchant, ProviderDeps } from '../deps.js';
import { newRecordId, newUuid } from '../ids.js';
import { findPaymentMethod, placesOf } from '../catalog/index.js';
import { money, toText } from '../money.js';
import { enqueueDepositWebhook } from '../webhooks/outbox.js';
import { cryptoPaymentDetails, fiatPaymentDetails } from './payment-details.js';
import { feeOf, outputOf, priceCryptoDeposit, priceFiatDeposit, type CryptoPricingRequest, type FiatPricingRequest } from './pricing.js';
import { claimQuote, usableQuote } from './quotes.js';
import {
  activitiesOf, depositByRowId, depositStateOf, freeUniqueCode, insertActivity, insertDeposit, insertUniqueCode, merchantOwner, nextActivitySeq,
  organizationName, overduePendingIds, paymentsOf, releaseUniqueCode, uniqueViolation, updatePendingDeposit,
} from './repository.js';
import { paidAmountsOf, toDepositView, type ActivityRow, type DepositRow, type DepositView } from './view.js';

// ---------------------------------------------------------------------------------------------------------
// Errors the routes answer, each in its own words

/** Thrown when a deposit with the requested depositId exists already (the checkout race). */
export class DepositIdTaken extends Error {}
export class DepositNotFound extends Error {}
export class DepositNotPending extends Error {
  constructor(readonly status: string) { super(`Deposit is ${status}`); }
}

// ---------------------------------------------------------------------------------------------------------
// Creation

const ACTIVITY_CREATED = { activity: 'Payee Payment', status: 'pending', description: 'Waiting for payment' } as const;

/** Who a new deposit belongs to. */
interface DepositOwner { merchantId: string; userId: string; organizationId: string }

export function ownerOf(merchant: AuthenticatedMerchant): DepositOwner {
  return { merchantId: merchant.merchantId, userId: merchant.userId, organizationId: merchant.organizationId };
}

/** POST /v1/deposit/fiat (and the hosted checkout's choice of a method). */
export interface FiatDepositRequest extends FiatPricingRequest {
  balanceType: string;
  reference?: string;
  note?: string;
  quoteId?: string;
}

/** POST /v1/deposit/crypto. */
export interface CryptoDepositRequest extends CryptoPricingRequest {
  reference?: string;
  note?: string;
  quoteId?: string;
}

interface CreateOptions { depositId?: string; checkoutId?: string; exchangeInfo?: boolean }

/** The columns that say how a deposit is paid and priced: what a creation writes and a method switch replaces. */
type PaymentColumns = Pick<NewDeposit,
  | 'deposit_type' | 'method_code' | 'input_currency' | 'input_amount' | 'output_currency' | 'output_amount' | 'exchange_rate' | 'fee_amount'
  | 'fee_percentage' | 'fee_currency' | 'payment_fiat' | 'payment_crypto' | 'va_number' | 'balance_type' | 'quote_id' | 'show_exchange_info'
  | 'expired_at'>;

/** A priced deposit, ready to be written: its payment details are drawn per attempt, inside the attempt's transaction. */
interface PaymentPlan {
  /** The columns of one attempt (a fresh VA number or unique code each time); `code` is a bank transfer's unique code. */
  draw(trx: Transaction<Database>, recordId: string, now: Date): Promise<{ columns: PaymentColumns; code?: { account: string; code: number } }>;
  /** The method it pays with: a fiat method's bankCode, or the crypto id. */
  code: string;
  quoteId?: string;
}

/** Attempts of a write whose drawn VA number or unique code turned out taken by a concurrent write. */
const MAX_DRAWS = 8;

/** What else a write of payment details holds in its transaction: the unique code's row and the quote's claim. */
async function writePaymentExtras(trx: Transaction<Database>, merchantId: string, rowId: string, plan: PaymentPlan, code: { account: string; code: number } | undefined, now: Date) {
  await releaseUniqueCode(trx, rowId);
  if (code) await insertUniqueCode(trx, { deposit_row_id: rowId, merchant_id: merchantId, account_number: code.account, unique_code: code.code });
  if (plan.quoteId) await claimQuote(trx, merchantId, plan.quoteId, rowId, now);
}

type DepositIdentity = Pick<NewDeposit, 'id' | 'deposit_id' | 'merchant_id' | 'user_id' | 'reference' | 'note' | 'checkout_id' | 'created_at' | 'updated_at'>;

/**
 * Inserts a pending deposit, its first history entry, its unique code and its quote's claim in one transaction,
 * drawing its payment details again when a VA number or unique code is taken; a taken reference is a 409, a taken
 * depositId a DepositIdTaken.
 */
async function insertPending(deps: ProviderDeps, identity: DepositIdentity, plan: PaymentPlan, now: Date): Promise<DepositView> {
  for (let attempt = 0; ; attempt++) {
    try {
      const { row, activity } = await deps.db.transaction().execute(async (trx) => {
        const { columns, code } = await plan.draw(trx, identity.id, now);
        const row = await insertDeposit(trx, { ...identity, ...columns, status: 'pending' });
        await writePaymentExtras(trx, identity.merchant_id, row.id, plan, code, now);
        const activity: ActivityRow = { id: newRecordId(), deposit_row_id: row.id, seq: 1, ...ACTIVITY_CREATED, updated_at: row.created_at };
        await insertActivity(trx, activity);
        return { row, activity };
      });
      return toDepositView(row, [activity], []);
    } catch (err) {
      const which = uniqueViolation(err);
      if (which === 'reference') throw new ApiError(409, `reference: a deposit with reference '${identity.reference}' already exists`);
      if (which === 'deposit_id') throw new DepositIdTaken();
      if ((which === 'va_number' || which === 'unique_code') && attempt < MAX_DRAWS) continue;
      throw err;
    }
  }
}

/** The merchant's name on its deposits (accountName, QRIS merchant name), cached a few seconds per instance. */
async function accountNameOf(deps: ProviderDeps, organizationId: string): Promise<string> {
  const cache = deps.caches.organizationNames;
  const cached = cache.get(organizationId, Date.now());
  if (cached !== undefined) return cached;
  const name = (await organizationName(deps.db, organizationId)) ?? 'Kasir Merchant';
  cache.set(organizationId, name, Date.now());
  return name;
}

function expiresAt(deps: ProviderDeps, now: Date, kind: keyof ProviderDeps['config']['expirySeconds']): string {
  return new Date(now.getTime() + deps.config.expirySeconds[kind] * 1000).toISOString();
}

/** Prices a fiat deposit (from its quote when it names one) and plans its payment details. */
async function fiatPlan(deps: ProviderDeps, owner: DepositOwner, req: FiatDepositRequest, depositId: string, options: CreateOptions): Promise<PaymentPlan> {
  const held = req.quoteId === undefined ? undefined : await usableQuote(deps, owner.merchantId, req.quoteId);
  const quote = priceFiatDeposit(req, deps.config.rates, held);
  const { method } = quote;
  const accountName = await accountNameOf(deps, owner.organizationId);
  const inPlaces = placesOf(method.currency)!;
  const outPlaces = placesOf(req.outputCurrency)!;
  const account = method.collectionAccount?.accountNumber;
  return {
    quoteId: req.quoteId,
    code: method.code,
    async draw(trx, recordId, now) {
      // A bank transfer's amount is raised by its unique code (in the currency's smallest unit), and priced on that.
      const code = account ? { account, code: await freeUniqueCode(trx, owner.merchantId, account, method.code) } : undefined;
      const inputAmount = code ? quote.inputAmount.plus(money(code.code).dividedBy(money(10).pow(inPlaces))) : quote.inputAmount;
      const fee = code ? feeOf(inputAmount, money(method.feeFlat), money(method.feePercentage), inPlaces) : quote.fee;
      const outputAmount = code ? outputOf(inputAmount, fee, quote.rate, outPlaces) : quote.outputAmount;
      const { paymentFiat, vaNumber } = fiatPaymentDetails({
        method, accountName, amount: toText(inputAmount), recordId, depositId, merchantId: owner.merchantId, baseUrl: deps.config.baseUrl,
      });
      if (code) paymentFiat.uniqueCode = String(code.code);
      return {
        code,
        columns: {
          deposit_type: 'fiat', method_code: method.code, input_currency: req.inputCurrency, input_amount: toText(inputAmount),
          output_currency: req.outputCurrency, output_amount: toText(outputAmount), exchange_rate: toText(quote.rate), fee_amount: toText(fee),
          fee_percentage: method.feePercentage, fee_currency: method.currency, payment_fiat: JSON.stringify(paymentFiat), payment_crypto: '{}',
          va_number: vaNumber, balance_type: req.balanceType, quote_id: req.quoteId ?? null,
          show_exchange_info: options.exchangeInfo || req.outputCurrency !== req.inputCurrency ? 1 : 0, expired_at: expiresAt(deps, now, method.kind),
        },
      };
    },
  };
}

/** Prices a crypto deposit (from its quote when it names one) and plans its payout wallet. */
async function cryptoPlan(deps: ProviderDeps, owner: DepositOwner, req: CryptoDepositRequest, options: CreateOptions): Promise<PaymentPlan> {
  const held = req.quoteId === undefined ? undefined : await usableQuote(deps, owner.merchantId, req.quoteId);
  const quote = priceCryptoDeposit(req, deps.config.rates, held);
  const { crypto, outputCurrency } = quote;
  return {
    quoteId: req.quoteId,
    code: crypto.id,
    async draw(_trx, _recordId, now) {
      return {
        columns: {
          deposit_type: 'crypto', method_code: null, input_currency: crypto.id, input_amount: toText(quote.inputAmount), output_currency: outputCurrency,
          output_amount: toText(quote.outputAmount), exchange_rate: toText(quote.rate), fee_amount: toText(quote.fee), fee_percentage: '0',
          fee_currency: crypto.id, payment_fiat: '{}', payment_crypto: JSON.stringify(cryptoPaymentDetails(crypto)), va_number: null,
          balance_type: 'crypto', quote_id: req.quoteId ?? null, show_exchange_info: options.exchangeInfo || outputCurrency !== crypto.id ? 1 : 0,
          expired_at: expiresAt(deps, now, 'crypto'),
        },
      };
    },
  };
}

function identityOf(owner: DepositOwner, req: { reference?: string; note?: string }, depositId: string, options: CreateOptions, now: Date): DepositIdentity {
  return {
    id: newRecordId(), deposit_id: depositId, merchant_id: owner.merchantId, user_id: owner.userId, reference: req.reference, note: req.note,
    checkout_id: options.checkoutId, created_at: now.toISOString(), updated_at: now.toISOString(),
  };
}

/** Creates a pending fiat deposit (POST /v1/deposit/fiat and the hosted checkout). */
export async function createFiatDeposit(deps: ProviderDeps, owner: DepositOwner, req: FiatDepositRequest, options: CreateOptions = {}): Promise<DepositView> {
  const depositId = options.depositId ?? newUuid();
  const plan = await fiatPlan(deps, owner, req, depositId, options);
  const now = deps.now();
  return insertPending(deps, identityOf(owner, req, depositId, options, now), plan, now);
}

/** Creates a pending crypto deposit (POST /v1/deposit/crypto and the hosted checkout). */
export async function createCryptoDeposit(deps: ProviderDeps, owner: DepositOwner, req: CryptoDepositRequest, options: CreateOptions = {}): Promise<DepositView> {
  const plan = await cryptoPlan(deps, owner, req, options);
  const now = deps.now();
  return insertPending(deps, identityOf(owner, req, options.depositId ?? newUuid(), options, now), plan, now);
}

// ---------------------------------------------------------------------------------------------------------
// Switching a pending checkout deposit to another method

/** How many times one deposit's method can change (its history: the creation, then one entry per switch). */
const MAX_SWITCHES = 20;

/** The new method of a switch: a fiat method's request, or a crypto one's. */
export type SwitchRequest = { depositType: 'fiat'; request: FiatDepositRequest } | { depositType: 'crypto'; request: CryptoDepositRequest };

/**
 * Switches a pending deposit to another method (the hosted checkout, DESIGN.md 3): the same row (same depositId)
 * gets the new method's price and payment details, its old VA number or unique code is released, its version grows,
 * and the history records the switch; no webhook, since the status does not change. One transaction with the row
 * locked, its time taken once the lock is held (so times and versions follow commit order): two concurrent switches
 * run one after the other, and one to the method the deposit has by then changes nothing (`switched` false). Throws
 * DepositNotFound, or DepositNotPending when the deposit is no longer pending (expired first when overdue).
 */
export async function switchDepositMethod(deps: ProviderDeps, depositId: string, to: SwitchRequest): Promise<{ view: DepositView; switched: boolean }> {
  const found = await depositStateOf(deps.db, depositId);
  if (!found) throw new DepositNotFound();
  if (found.status === 'pending' && found.expired_at <= deps.now().toISOString()) await expireIfOverdue(deps, found.id);
  const current = await depositByRowId(deps.db, found.id);
  if (!current) throw new DepositNotFound();
  const owner = { merchantId: current.merchant_id, userId: current.user_id, organizationId: await organizationOf(deps, current.merchant_id) };
  const options = { exchangeInfo: current.show_exchange_info === 1 };
  const plan = to.depositType === 'fiat'
    ? await fiatPlan(deps, owner, to.request, depositId, options)
    : await cryptoPlan(deps, owner, to.request, options);
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        return await deps.db.transaction().execute(async (trx) => {
          const row = await depositByRowId(trx, found.id, { lock: true });
          if (!row) throw new DepositNotFound();
          const now = deps.now();
          if (row.status !== 'pending' || row.expired_at <= now.toISOString()) throw new DepositNotPending(row.status === 'pending' ? 'expired' : row.status);
          const from = row.method_code ?? row.input_currency;
          // A concurrent choice of this method committed first: its details stand (new ones would void what it shows).
          if (from === plan.code) return { view: toDepositView(row, await activitiesOf(trx, row.id), await paymentsOf(trx, row.id), { detail: true }), switched: false };
          // The public checkout page can switch; a bound keeps its history (and quotes) from growing without end.
          const seq = await nextActivitySeq(trx, row.id);
          if (seq > MAX_SWITCHES + 1) throw new ApiError(400, `paymentMethod: the payment method was changed ${MAX_SWITCHES} times already; it cannot change again`);
          const { columns, code } = await plan.draw(trx, row.id, now);
          // After a partial payment the new method asks only the rest; what was paid stays (DESIGN.md 10).
          const updated = await updatePendingDeposit(trx, row.id, { ...carryPaid(row, columns), updated_at: now.toISOString() });
          if (!updated) throw new DepositNotPending(row.status);
          await writePaymentExtras(trx, row.merchant_id, row.id, plan, code, now);
          await insertActivity(trx, {
            id: newRecordId(), deposit_row_id: row.id, seq, activity: 'Payment Method Changed', status: 'pending',
            description: `Payment method changed from ${from} to ${plan.code}; the ${from} payment details are no longer valid`, updated_at: now.toISOString(),
          });
          return { view: toDepositView(updated, await activitiesOf(trx, row.id), await paymentsOf(trx, row.id), { detail: true }), switched: true };
        });
      } catch (err) {
        const which = uniqueViolation(err);
        if ((which === 'va_number' || which === 'unique_code') && attempt < MAX_DRAWS) continue;
        throw err;
      }
    }
  } finally {
    deps.changes.announce(depositId);
  }
}

/** The organization of a merchant account (whose name a deposit's accountName carries). */
async function organizationOf(deps: ProviderDeps, merchantId: string): Promise<string> {
  return (await merchantOwner(deps.db, merchantId)).organizationId;
}

// ---------------------------------------------------------------------------------------------------------
// Moves from pending

// A payment (completed, partial, late) is recorded by payments.ts, in the same way.
export type TransitionKind = 'sandbox-expired' | 'cancelled' | 'declined' | 'expired';

const TRANSITIONS: Record<TransitionKind, { to: 'expired'; activity: string; description: string }> = {
  'sandbox-expired': { to: 'expired', activity: 'Deposit Expired', description: 'Expired by the sandbox status update' },
  cancelled: { to: 'expired', activity: 'Deposit Cancelled', description: 'Cancelled by the client' },
  declined: { to: 'expired', activity: 'Payment Declined', description: 'The payer declined the e-wallet payment' },
  expired: { to: 'expired', activity: 'Deposit Expired', description: 'No payment was received before the deposit expired' },
};

/**
 * Moves a pending deposit (read in this transaction) on: the new status, its history entry and its webhook. An
 * expiry applies only once expiredAt has passed. Throws DepositNotPending when the deposit is not (or no longer) so.
 */
async function applyTransition(trx: Transaction<Database>, row: DepositRow, kind: TransitionKind, now: Date): Promise<DepositView> {
  const t = TRANSITIONS[kind];
  const at = now.toISOString();
  const updated = await updatePendingDeposit(trx, row.id, { status: t.to, updated_at: at }, kind === 'expired' ? at : undefined);
  if (!updated) throw new DepositNotPending(row.status);
  // A finished bank transfer's unique code is free for the next transfer to its account (only a transfer holds one).
  if (findPaymentMethod(row.method_code ?? '')?.collectionAccount) await releaseUniqueCode(trx, row.id);
  // The history read once: its next sequence number and the webhook's view (the sweeper's cost is these statements).
  const history = await activitiesOf(trx, row.id);
  const entry: ActivityRow = {
    id: newRecordId(), deposit_row_id: row.id, seq: Math.max(0, ...history.map((a) => a.seq)) + 1, activity: t.activity, status: t.to, description: t.description, updated_at: at,
  };
  await insertActivity(trx, entry);
  const view = toDepositView(updated, [...history, entry], await paymentsOf(trx, row.id), { detail: true });
  await enqueueDepositWebhook(trx, {
    type: 'deposit.expired',
    merchantId: row.merchant_id, depositId: row.deposit_id, reference: row.reference, status: t.to, data: view,
  }, now);
  return view;
}

/** Expires one deposit if it is pending past its expiredAt (atomically; a no-op otherwise). */
export async function expireIfOverdue(deps: ProviderDeps, rowId: string): Promise<boolean> {
  return (await expireRowsIfOverdue(deps, [rowId])) === 1;
}

/**
 * Expires those of a few deposits that are pending past their expiredAt, in one transaction (each with its history
 * entry and webhook): one commit for several expiries is what lets a backlog drain fast on SQLite. Returns how many it moved.
 */
async function expireRowsIfOverdue(deps: ProviderDeps, rowIds: string[]): Promise<number> {
  try {
    const views = await deps.db.transaction().execute(async (trx) => {
      const moved: DepositView[] = [];
      for (const rowId of [...rowIds].sort()) {
        const row = await depositByRowId(trx, rowId, { lock: true });
        const now = deps.now(); // once the lock is held: times follow commit order
        if (!row || row.status !== 'pending' || row.expired_at > now.toISOString()) continue;
        moved.push(await applyTransition(trx, row, 'expired', now));
      }
      return moved;
    });
    for (const view of views) deps.changes.announce(view.depositId);
    return views.length;
  } catch (err) {
    // One of several changed under us (cannot happen with the row locked, but never lose the others): one at a time.
    if (err instanceof DepositNotPending && rowIds.length > 1) {
      let moved = 0;
      for (const id of rowIds) moved += await expireRowsIfOverdue(deps, [id]);
      return moved;
    }
    if (err instanceof DepositNotPending) return 0;
    throw err;
  }
}

/**
 * Moves a pending deposit to expired in one transaction with its history entry and webhook.
 * A deposit past its expiredAt is expired first, so it can no longer be paid. Throws DepositNotFound or
 * DepositNotPending.
 */
export async function transitionDeposit(deps: ProviderDeps, depositId: string, kind: Exclude<TransitionKind, 'expired'>, merchantId?: string): Promise<DepositView> {
  const found = await depositStateOf(deps.db, depositId, merchantId);
  if (!found) throw new DepositNotFound();
  if (found.status === 'pending' && found.expired_at <= deps.now().toISOString()) await expireIfOverdue(deps, found.id);
  try {
    return await deps.db.transaction().execute(async (trx) => {
      // Locked on PostgreSQL: a concurrent transition waits, then reads (and reports) the status it left.
      const row = await depositByRowId(trx, found.id, { lock: true });
      if (!row) throw new DepositNotFound();
      const now = deps.now(); // once the lock is held: times follow commit order
      if (row.status !== 'pending') throw new DepositNotPending(row.status);
      return applyTransition(trx, row, kind, now);
    });
  } finally {
    deps.changes.announce(depositId);
  }
}

/** How many overdue deposits one query of the sweep takes. */
const SWEEP_BATCH = 200;

/**
 * How many expiries share one transaction: ten on SQLite, whose write transactions never overlap; one on PostgreSQL,
 * where a transaction holding the merchant's counts rows (migration 009) while it waits for a second deposit's lock
 * could deadlock with a payment holding that deposit and waiting for the counts.
 */
const sweepStep = (deps: ProviderDeps) => (engineOf(deps.db) === 'sqlite' ? 10 : 1);

/**
 * Expires overdue pending deposits (of one merchant, or all), at most `max`, until none is due or `stop()` says so;
 * returns how many it moved. A few expiries share one short transaction and the event loop is yielded after each, so
 * on SQLite (whose calls hold the process) a read waits for one such step at most, never for a batch.
 */
export async function expireOverdue(deps: ProviderDeps, merchantId?: string, max = Number.POSITIVE_INFINITY, stop: () => boolean = () => false): Promise<number> {
  let moved = 0;
  while (moved < max && !stop()) {
    const ids = await overduePendingIds(deps.db, deps.now().toISOString(), Math.min(SWEEP_BATCH, max - moved), merchantId);
    let movedNow = 0;
    const step = sweepStep(deps);
    for (let i = 0; i < ids.length && !stop(); i += step) {
      movedNow += await expireRowsIfOverdue(deps, ids.slice(i, i + step));
      await yieldToEventLoop();
    }
    moved += movedNow;
    // A short batch was the last one due; a batch that moved nothing (another copy took it) is not retried at once.
    if (ids.length < SWEEP_BATCH || movedNow === 0) break;
  }
  return moved;
}

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

type SwitchColumns = Pick<NewDeposit, 'input_currency' | 'input_amount' | 'output_amount' | 'paid_amount'>;

/**
 * The columns of a method switch after a partial payment: the new method asks only the rest (its priced amount), and
 * what was paid is carried over in the new currency at the same price (the rest's amount times paid / still due), so
 * the deposit shows paid + remaining = its amount; the order's outputAmount stays. Without a payment: as priced.
 */
function carryPaid<C extends SwitchColumns>(row: Pick<DepositRow, 'input_amount' | 'paid_amount' | 'output_amount' | 'status'>, columns: C): C {
  const { paid, remaining } = paidAmountsOf(row);
  if (paid.isZero() || remaining.isZero()) return columns;
  const rest = money(columns.input_amount);
  const carried = rest.times(paid).dividedBy(remaining).toDecimalPlaces(placesOf(columns.input_currency) ?? 2, Decimal.ROUND_DOWN);
  return { ...columns, input_amount: toText(rest.plus(carried)), paid_amount: toText(carried), output_amount: row.output_amount };
}
