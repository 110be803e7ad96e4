// Every change of a deposit's state, in one place (DESIGN.md 3): creation (pending, with its first history entry) and
// the moves from pending to completed or expired (payment, sandbox status update, cancel, e-wallet decline, expiry).
// Each runs in one transaction that appends to activityHistory and, for a move, writes the deposit webhook to the
// outbox, so the event exists if and only if the change was committed. A new kind of change (switching a pending
// checkout deposit to another method) belongs here too.
import type { Transaction } from 'kysely';
import { ApiError } from '../../common/errors.js';
import type { Database } from '../db/database.js';
import type { DepositUpdate, NewDeposit } from '../db/deposit-tables.js';
import type { AuthenticatedMerchant, ProviderDeps } from '../http/env.js';
import { newRecordId, newUuid } from '../ids.js';
import { toText } from '../money.js';
import { enqueueDepositWebhook } from '../webhooks/outbox.js';
import { cryptoPaymentDetails, fiatPaymentDetails, sandboxPayerInfo } from './payment-details.js';
import { priceCryptoDeposit, priceFiatDeposit, type CryptoPricingRequest, type FiatPricingRequest } from './pricing.js';
import {
  activitiesOf, depositByRowId, depositStateOf, insertActivity, insertDeposit, nextActivitySeq, organizationName, overduePendingIds,
  uniqueViolation, updatePendingDeposit,
} from './repository.js';
import { toDepositView, type ActivityRow, type DepositRow, type DepositView } from './view.js';

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

/**
 * Inserts a pending deposit and its first history entry in one transaction. `build` is called again for another
 * attempt when the VA number it drew is taken; a taken reference is a 409, a taken depositId a DepositIdTaken.
 */
async function insertPending(deps: ProviderDeps, build: () => NewDeposit): Promise<DepositView> {
  for (let attempt = 0; ; attempt++) {
    const deposit = build();
    try {
      const { row, activity } = await deps.db.transaction().execute(async (trx) => {
        const row = await insertDeposit(trx, deposit);
        const activity: ActivityRow = { id: newRecordId(), deposit_row_id: row.id, seq: 1, ...ACTIVITY_CREATED, updated_at: row.created_at };
        await insertActivity(trx, activity);
        return { row, activity };
      });
      return toDepositView(row, [activity]);
    } catch (err) {
      const which = uniqueViolation(err);
      if (which === 'reference') throw new ApiError(409, `reference: a deposit with reference '${deposit.reference}' already exists`);
      if (which === 'deposit_id') throw new DepositIdTaken();
      if (which === 'va_number' && attempt < 8) continue;
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

/** Creates a pending fiat deposit (POST /v1/deposit/fiat and the hosted checkout). */
export async function createFiatDeposit(deps: ProviderDeps, owner: DepositOwner, req: FiatDepositRequest, options: CreateOptions = {}): Promise<DepositView> {
  const quote = priceFiatDeposit(req, deps.config.rates);
  const { method } = quote;
  const accountName = await accountNameOf(deps, owner.organizationId);
  const now = deps.now();
  const id = newRecordId();
  const depositId = options.depositId ?? newUuid();
  const inputAmount = toText(quote.inputAmount);
  return insertPending(deps, () => {
    const { paymentFiat, vaNumber } = fiatPaymentDetails({
      method, accountName, amount: inputAmount, recordId: id, depositId, merchantId: owner.merchantId, baseUrl: deps.config.baseUrl,
    });
    return {
      id, deposit_id: depositId, merchant_id: owner.merchantId, user_id: owner.userId, deposit_type: 'fiat', method_code: method.code,
      input_currency: req.inputCurrency, input_amount: inputAmount, output_currency: req.outputCurrency, output_amount: toText(quote.outputAmount),
      exchange_rate: toText(quote.rate), fee_amount: toText(quote.fee), fee_percentage: method.feePercentage, fee_currency: method.currency,
      payment_fiat: JSON.stringify(paymentFiat), payment_crypto: '{}', va_number: vaNumber, status: 'pending',
      reference: req.reference, note: req.note, balance_type: req.balanceType, quote_id: req.quoteId, checkout_id: options.checkoutId,
      show_exchange_info: options.exchangeInfo || req.outputCurrency !== req.inputCurrency ? 1 : 0,
      expired_at: expiresAt(deps, now, method.kind), created_at: now.toISOString(), updated_at: now.toISOString(),
    };
  });
}

/** Creates a pending crypto deposit (POST /v1/deposit/crypto). */
export async function createCryptoDeposit(deps: ProviderDeps, owner: DepositOwner, req: CryptoDepositRequest): Promise<DepositView> {
  const quote = priceCryptoDeposit(req, deps.config.rates);
  const { crypto, outputCurrency } = quote;
  const now = deps.now();
  return insertPending(deps, () => ({
    id: newRecordId(), deposit_id: newUuid(), merchant_id: owner.merchantId, user_id: owner.userId, deposit_type: 'crypto',
    input_currency: crypto.id, input_amount: toText(quote.inputAmount), output_currency: outputCurrency, output_amount: toText(quote.outputAmount),
    exchange_rate: toText(quote.rate), fee_amount: toText(quote.fee), fee_percentage: '0', fee_currency: crypto.id,
    payment_fiat: '{}', payment_crypto: JSON.stringify(cryptoPaymentDetails(crypto)), status: 'pending',
    reference: req.reference, note: req.note, balance_type: 'crypto', quote_id: req.quoteId, show_exchange_info: outputCurrency !== crypto.id ? 1 : 0,
    expired_at: expiresAt(deps, now, 'crypto'), created_at: now.toISOString(), updated_at: now.toISOString(),
  }));
}

// ---------------------------------------------------------------------------------------------------------
// Moves from pending

export type TransitionKind = 'paid' | 'sandbox-completed' | 'sandbox-expired' | 'cancelled' | 'declined' | 'expired';

const TRANSITIONS: Record<TransitionKind, { to: 'completed' | 'expired'; activity: string; description: string }> = {
  paid: { to: 'completed', activity: 'Payment Received', description: 'Payment received' },
  'sandbox-completed': { to: 'completed', activity: 'Payment Received', description: 'Completed by the sandbox status update' },
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
  const changes: DepositUpdate = t.to === 'completed'
    ? { status: t.to, updated_at: at, is_reconciled: 1, payer_info: JSON.stringify(sandboxPayerInfo(row)) }
    : { status: t.to, updated_at: at };
  const updated = await updatePendingDeposit(trx, row.id, changes, kind === 'expired' ? at : undefined);
  if (!updated) throw new DepositNotPending(row.status);
  await insertActivity(trx, {
    id: newRecordId(), deposit_row_id: row.id, seq: await nextActivitySeq(trx, row.id), activity: t.activity, status: t.to, description: t.description, updated_at: at,
  });
  const view = toDepositView(updated, await activitiesOf(trx, row.id), { detail: true });
  await enqueueDepositWebhook(trx, {
    type: t.to === 'completed' ? 'deposit.completed' : 'deposit.expired',
    merchantId: row.merchant_id, depositId: row.deposit_id, reference: row.reference, status: t.to, data: view,
  }, now);
  return view;
}

/** Expires one deposit if it is pending past its expiredAt (atomically; a no-op otherwise). */
export async function expireIfOverdue(deps: ProviderDeps, rowId: string): Promise<boolean> {
  const now = deps.now();
  try {
    const view = await deps.db.transaction().execute(async (trx) => {
      const row = await depositByRowId(trx, rowId, { lock: true });
      if (!row || row.status !== 'pending' || row.expired_at > now.toISOString()) return undefined;
      return applyTransition(trx, row, 'expired', now);
    });
    if (!view) return false;
    deps.caches.depositViews.forget(view.depositId);
    return true;
  } catch (err) {
    if (err instanceof DepositNotPending) return false;
    throw err;
  }
}

/**
 * Moves a pending deposit on (completed or expired) in one transaction with its history entry and webhook.
 * A deposit past its expiredAt is expired first, so it can no longer be paid. Throws DepositNotFound or
 * DepositNotPending.
 */
export async function transitionDeposit(deps: ProviderDeps, depositId: string, kind: Exclude<TransitionKind, 'expired'>, merchantId?: string): Promise<DepositView> {
  const found = await depositStateOf(deps.db, depositId, merchantId);
  if (!found) throw new DepositNotFound();
  if (found.status === 'pending' && found.expired_at <= deps.now().toISOString()) await expireIfOverdue(deps, found.id);
  const now = deps.now();
  try {
    return await deps.db.transaction().execute(async (trx) => {
      // Locked on PostgreSQL: a concurrent transition waits, then reads (and reports) the status it left.
      const row = await depositByRowId(trx, found.id, { lock: true });
      if (!row) throw new DepositNotFound();
      if (row.status !== 'pending') throw new DepositNotPending(row.status);
      return applyTransition(trx, row, kind, now);
    });
  } finally {
    deps.caches.depositViews.forget(depositId);
  }
}

/** Expires every overdue pending deposit (of one merchant, or all), at most `max`; returns how many it moved. */
export async function expireOverdue(deps: ProviderDeps, merchantId?: string, max = 500): Promise<number> {
  let moved = 0;
  for (const id of await overduePendingIds(deps.db, deps.now().toISOString(), max, merchantId)) {
    if (await expireIfOverdue(deps, id)) moved++;
  }
  return moved;
}
