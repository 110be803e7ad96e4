// Deposit creation, reads and transitions. Every transition runs in one transaction that appends to
// activityHistory and writes the deposit webhook to the outbox (DESIGN.md 3).
import { createHash, randomInt } from 'node:crypto';
import { paginate, type Page } from '../http/pagination.js';
import type { Decimal } from 'decimal.js';
import type { Kysely, Transaction } from 'kysely';
import { findCrypto, findFiat, findPaymentMethod, isCrypto, placesOf, rateOf, type CryptoDef, type PaymentMethodDef } from '../catalog/index.js';
import type { Database } from '../db/database.js';
import { forUpdate } from '../db/engine.js';
import { ApiError } from '../http/errors.js';
import type { AuthenticatedMerchant, ProviderDeps } from '../http/env.js';
import { newRecordId, newUuid } from '../ids.js';
import { deriveInputAmount, feeOf, money, outputOf, toText } from '../money.js';
import { enqueueDepositWebhook, type DepositEventType } from '../webhooks/outbox.js';
import { cachedView, forgetView, generationOf, storeView } from './read-cache.js';
import { newEvmAddress, newStellarAddress, newVaNumber, qrisPayload } from './payment-details.js';
import { toDepositView, type ActivityRow, type DepositRow, type DepositView } from './view.js';

export const ACTIVITY_CREATED = { activity: 'Payee Payment', status: 'pending', description: 'Waiting for payment' } as const;

// ---------------------------------------------------------------------------------------------------------
// Amount and currency rules

const bad = (message: string) => new ApiError(400, message);

function amountOf(value: number, field: string): Decimal {
  const amount = money(value);
  if (!amount.isFinite() || amount.lessThanOrEqualTo(0)) throw bad(`${field}: must be positive`);
  return amount;
}

function checkPlaces(amount: Decimal, places: number, field: string, currency: string) {
  if (amount.decimalPlaces() > places) throw bad(`${field}: ${currency} amounts have at most ${places} decimal places`);
}

/** Output currency of a conversion: a known fiat or crypto with a sandbox rate, pairing with the input. */
function resolveOutput(inputCurrency: string, outputCurrency: string): { rate: Decimal; places: number } {
  const places = placesOf(outputCurrency);
  const rate = rateOf(inputCurrency, outputCurrency);
  if (places === undefined || !rate) throw bad(`outputCurrency: unsupported currency '${outputCurrency}'`);
  const pair = (crypto: CryptoDef | undefined, fiat: string) => !crypto || !findFiat(fiat) || crypto.currencies.includes(fiat);
  if (!pair(findCrypto(outputCurrency), inputCurrency) || !pair(findCrypto(inputCurrency), outputCurrency)) {
    throw bad(`outputCurrency: ${outputCurrency} does not pair with ${inputCurrency}`);
  }
  return { rate, places };
}

export interface FiatQuote {
  method: PaymentMethodDef;
  inputAmount: Decimal;
  fee: Decimal;
  rate: Decimal;
  outputAmount: Decimal;
  /** Whether the amount is within the method's minimum and maximum. */
  withinLimits: boolean;
}

/** Prices a fiat method for a given input amount or wanted output amount (fees, rounding, conversion). */
export function quoteMethod(method: PaymentMethodDef, outputCurrency: string, amount: { input: Decimal } | { output: Decimal }): FiatQuote {
  const inPlaces = placesOf(method.currency)!;
  const { rate, places: outPlaces } = resolveOutput(method.currency, outputCurrency);
  const feeFlat = money(method.feeFlat);
  const feePercentage = money(method.feePercentage);
  const inputAmount = 'input' in amount
    ? amount.input
    : deriveInputAmount({ target: amount.output, feeFlat, feePercentage, rate, inPlaces, outPlaces });
  const fee = feeOf(inputAmount, feeFlat, feePercentage, inPlaces);
  const outputAmount = outputOf(inputAmount, fee, rate, outPlaces);
  const withinLimits = inputAmount.greaterThanOrEqualTo(method.minimumAmount) && inputAmount.lessThanOrEqualTo(method.maximumAmount) && outputAmount.greaterThan(0);
  return { method, inputAmount, fee, rate, outputAmount, withinLimits };
}

// ---------------------------------------------------------------------------------------------------------
// Creation

export interface FiatDepositRequest {
  inputCurrency: string;
  inputAmount?: number;
  outputCurrency: string;
  outputAmount?: { fiat?: number; crypto?: number };
  balanceType: string;
  paymentMethod: string;
  reference?: string;
  note?: string;
  quoteId?: string;
}

export interface CryptoDepositRequest {
  inputCurrency: string;
  inputAmount: number;
  outputCurrency?: string;
  reference?: string;
  note?: string;
  quoteId?: string;
}

interface Owner { merchantId: string; userId: string; organizationId: string }

/** Validates a fiat deposit request against the catalog and prices it. */
export function priceFiatDeposit(req: FiatDepositRequest): FiatQuote {
  const method = findPaymentMethod(req.paymentMethod);
  if (!method) throw new ApiError(400, 'Payment method not found', 'Not Found');
  if (!findFiat(req.inputCurrency)) throw bad(`inputCurrency: unsupported currency '${req.inputCurrency}'`);
  if (req.inputCurrency !== method.currency) throw bad(`inputCurrency: ${method.code} accepts ${method.currency} only`);
  const hasIn = req.inputAmount !== undefined;
  const hasOut = req.outputAmount !== undefined;
  if (hasIn === hasOut) throw bad('inputAmount: send exactly one of inputAmount and outputAmount');
  resolveOutput(req.inputCurrency, req.outputCurrency);

  let quote: FiatQuote;
  if (hasIn) {
    const input = amountOf(req.inputAmount!, 'inputAmount');
    checkPlaces(input, placesOf(method.currency)!, 'inputAmount', method.currency);
    quote = quoteMethod(method, req.outputCurrency, { input });
  } else {
    const { fiat, crypto } = req.outputAmount!;
    if ((fiat === undefined) === (crypto === undefined)) throw bad('outputAmount: send exactly one of outputAmount.fiat and outputAmount.crypto');
    const outIsCrypto = isCrypto(req.outputCurrency);
    const field = fiat !== undefined ? 'outputAmount.fiat' : 'outputAmount.crypto';
    if (outIsCrypto && fiat !== undefined) throw bad(`outputAmount.fiat: outputCurrency ${req.outputCurrency} is a crypto; send outputAmount.crypto`);
    if (!outIsCrypto && crypto !== undefined) throw bad(`outputAmount.crypto: outputCurrency ${req.outputCurrency} is fiat; send outputAmount.fiat`);
    const output = amountOf((fiat ?? crypto)!, field);
    checkPlaces(output, placesOf(req.outputCurrency)!, field, req.outputCurrency);
    quote = quoteMethod(method, req.outputCurrency, { output });
  }
  const { inputAmount } = quote;
  const field = hasIn ? 'inputAmount' : 'outputAmount';
  if (inputAmount.lessThan(method.minimumAmount)) {
    throw bad(`${field}: ${toText(inputAmount)} ${method.currency} is below the minimum of ${method.minimumAmount} ${method.currency} for ${method.code}`);
  }
  if (inputAmount.greaterThan(method.maximumAmount)) {
    throw bad(`${field}: ${toText(inputAmount)} ${method.currency} is above the maximum of ${method.maximumAmount} ${method.currency} for ${method.code}`);
  }
  if (quote.outputAmount.lessThanOrEqualTo(0)) throw bad(`${field}: the amount does not cover the fee of ${toText(quote.fee)} ${method.currency}`);
  return quote;
}

function expirySeconds(deps: ProviderDeps, kind: PaymentMethodDef['kind'] | 'crypto'): number {
  return deps.config.expirySeconds[kind];
}

/** Organization names (shown as accountName and in QRIS tag 59), kept a few seconds to spare a query per create. */
const orgNames = new Map<string, { name: string; until: number }>();

async function ownerContext(db: Kysely<Database>, organizationId: string): Promise<{ orgName: string }> {
  const cached = orgNames.get(organizationId);
  if (cached && cached.until > Date.now()) return { orgName: cached.name };
  const org = await db.selectFrom('organizations').select('name').where('id', '=', organizationId).executeTakeFirst();
  const name = org?.name ?? 'Kasir Merchant';
  if (orgNames.size > 1000) orgNames.clear();
  orgNames.set(organizationId, { name, until: Date.now() + 5000 });
  return { orgName: name };
}

/** A stable 15-digit merchant number for QRIS, derived from the merchant id. */
function qrisMerchantId(merchantId: string): string {
  const n = BigInt('0x' + createHash('sha256').update(merchantId).digest('hex').slice(0, 15));
  return (n % 10n ** 15n).toString().padStart(15, '0');
}

/** Which unique constraint an insert error broke, on SQLite or PostgreSQL. */
function uniqueViolation(err: unknown): 'reference' | 'va_number' | 'deposit_id' | undefined {
  const e = err as { code?: string; message?: string; constraint?: string };
  if (e?.code !== 'SQLITE_CONSTRAINT_UNIQUE' && e?.code !== '23505') return undefined;
  const text = `${e.constraint ?? ''} ${e.message ?? ''}`;
  if (/reference/.test(text)) return 'reference';
  if (/va_number/.test(text)) return 'va_number';
  if (/deposit_id/.test(text)) return 'deposit_id';
  return undefined;
}

/** Thrown when a deposit with the requested depositId exists already (the checkout race). */
export class DepositIdTaken extends Error {}

async function insertDeposit(deps: ProviderDeps, build: () => DepositRow): Promise<DepositView> {
  for (let attempt = 0; ; attempt++) {
    const row = build();
    const activity: ActivityRow = { id: newRecordId(), deposit_row_id: row.id, seq: 1, ...ACTIVITY_CREATED, updated_at: row.created_at };
    try {
      await deps.db.transaction().execute(async (trx) => {
        await trx.insertInto('deposits').values(row).execute();
        await trx.insertInto('deposit_activities').values(activity).execute();
      });
      return toDepositView(row, [activity]);
    } catch (err) {
      const which = uniqueViolation(err);
      if (which === 'reference') throw new ApiError(409, `reference: a deposit with reference '${row.reference}' already exists`);
      if (which === 'deposit_id') throw new DepositIdTaken();
      if (which === 'va_number' && attempt < 8) continue;
      throw err;
    }
  }
}

interface CreateOptions { depositId?: string; checkoutId?: string; exchangeInfo?: boolean }

/** Creates a pending fiat deposit (POST /v1/deposit/fiat and the hosted checkout). */
export async function createFiatDeposit(deps: ProviderDeps, owner: Owner, req: FiatDepositRequest, options: CreateOptions = {}): Promise<DepositView> {
  const quote = priceFiatDeposit(req);
  const { method } = quote;
  const { orgName } = await ownerContext(deps.db, owner.organizationId);
  const now = deps.now();
  const id = newRecordId();
  const depositId = options.depositId ?? newUuid();
  const expiredAt = new Date(now.getTime() + expirySeconds(deps, method.kind) * 1000).toISOString();

  return insertDeposit(deps, () => {
    let paymentFiat: Record<string, string>;
    let vaNumber: string | null = null;
    if (method.kind === 'va') {
      vaNumber = newVaNumber(method.vaPrefix!);
      paymentFiat = { bankName: method.bankName, bankCode: method.code, accountName: orgName, accountNumber: vaNumber };
    } else if (method.kind === 'qris') {
      const qrData = qrisPayload({ merchantName: orgName, merchantCity: 'JAKARTA', amount: toText(quote.inputAmount), billNumber: id, merchantId: qrisMerchantId(owner.merchantId) });
      paymentFiat = { bankName: method.bankName, bankCode: method.code, accountName: orgName, qrData };
    } else {
      paymentFiat = { bankName: method.bankName, bankCode: method.code, accountName: orgName, checkoutUrl: `${deps.config.baseUrl}/sandbox/ewallet/${depositId}` };
    }
    return {
      id, deposit_id: depositId, merchant_id: owner.merchantId, user_id: owner.userId, deposit_type: 'fiat', method_code: method.code,
      input_currency: req.inputCurrency, input_amount: toText(quote.inputAmount), output_currency: req.outputCurrency,
      output_amount: toText(quote.outputAmount), exchange_rate: toText(quote.rate), fee_amount: toText(quote.fee),
      fee_percentage: method.feePercentage, fee_currency: method.currency, payment_fiat: JSON.stringify(paymentFiat), payment_crypto: '{}',
      va_number: vaNumber, status: 'pending', reference: req.reference ?? null, note: req.note ?? '', bank_note: '',
      balance_type: req.balanceType, quote_id: req.quoteId ?? null, is_reconciled: 0, payer_info: null,
      show_exchange_info: options.exchangeInfo || req.outputCurrency !== req.inputCurrency ? 1 : 0, checkout_id: options.checkoutId ?? null,
      expired_at: expiredAt, created_at: now.toISOString(), updated_at: now.toISOString(),
    };
  });
}

/** Creates a pending crypto deposit (POST /v1/deposit/crypto). */
export async function createCryptoDeposit(deps: ProviderDeps, owner: Owner, req: CryptoDepositRequest): Promise<DepositView> {
  const crypto = findCrypto(req.inputCurrency);
  if (!crypto) throw new ApiError(400, 'Crypto not found', 'Not Found');
  const outputCurrency = req.outputCurrency ?? crypto.id;
  const input = amountOf(req.inputAmount, 'inputAmount');
  checkPlaces(input, crypto.decimal, 'inputAmount', crypto.id);
  const { rate, places } = resolveOutput(crypto.id, outputCurrency);
  const fee = money(0);
  const output = outputOf(input, fee, rate, places);
  if (output.lessThanOrEqualTo(0)) throw bad(`inputAmount: too small to convert into ${outputCurrency}`);
  const now = deps.now();
  const expiredAt = new Date(now.getTime() + expirySeconds(deps, 'crypto') * 1000).toISOString();
  return insertDeposit(deps, () => ({
    id: newRecordId(), deposit_id: newUuid(), merchant_id: owner.merchantId, user_id: owner.userId, deposit_type: 'crypto', method_code: null,
    input_currency: crypto.id, input_amount: toText(input), output_currency: outputCurrency, output_amount: toText(output),
    exchange_rate: toText(rate), fee_amount: '0', fee_percentage: '0', fee_currency: crypto.id, payment_fiat: '{}',
    payment_crypto: JSON.stringify({ payoutWallet: crypto.blockchainType === 'EVM' ? newEvmAddress() : newStellarAddress(), network: crypto.network }),
    va_number: null, status: 'pending', reference: req.reference ?? null, note: req.note ?? '', bank_note: '', balance_type: 'crypto',
    quote_id: req.quoteId ?? null, is_reconciled: 0, payer_info: null, show_exchange_info: outputCurrency !== crypto.id ? 1 : 0,
    checkout_id: null, expired_at: expiredAt, created_at: now.toISOString(), updated_at: now.toISOString(),
  }));
}

export function ownerOf(merchant: AuthenticatedMerchant): Owner {
  return { merchantId: merchant.merchantId, userId: merchant.userId, organizationId: merchant.organizationId };
}

// ---------------------------------------------------------------------------------------------------------
// Transitions

export type TransitionKind = 'paid' | 'sandbox-completed' | 'sandbox-expired' | 'cancelled' | 'declined' | 'expired';

const TRANSITIONS: Record<TransitionKind, { to: 'completed' | 'expired'; activity: string; description: string }> = {
  paid: { to: 'completed', activity: 'Payment Received', description: 'Payment received' },
  'sandbox-completed': { to: 'completed', activity: 'Payment Received', description: 'Completed by the sandbox status update' },
  'sandbox-expired': { to: 'expired', activity: 'Deposit Expired', description: 'Expired by the sandbox status update' },
  cancelled: { to: 'expired', activity: 'Deposit Cancelled', description: 'Cancelled by the client' },
  declined: { to: 'expired', activity: 'Payment Declined', description: 'The payer declined the e-wallet payment' },
  expired: { to: 'expired', activity: 'Deposit Expired', description: 'No payment was received before the deposit expired' },
};

export class DepositNotFound extends Error {}
export class DepositNotPending extends Error {
  constructor(readonly status: string) { super(`Deposit is ${status}`); }
}

function payerInfoFor(row: DepositRow): string {
  const fiat = JSON.parse(row.payment_fiat) as { bankName?: string; bankCode?: string };
  const digits = (n: number) => Array.from({ length: n }, () => randomInt(0, 10)).join('');
  return JSON.stringify({
    transactionCode: `TRX${digits(12)}`,
    name: 'Sandbox Payer',
    bankName: fiat.bankName ?? (row.deposit_type === 'crypto' ? row.input_currency : ''),
    accountNumber: row.deposit_type === 'crypto' ? '' : digits(10),
    mid: row.method_code === 'QRIS' ? qrisMerchantId(row.merchant_id) : '',
  });
}

async function applyTransition(trx: Transaction<Database>, row: DepositRow, kind: TransitionKind, now: Date): Promise<DepositView> {
  const t = TRANSITIONS[kind];
  const at = now.toISOString();
  const update = trx.updateTable('deposits')
    .set({ status: t.to, updated_at: at, ...(t.to === 'completed' ? { is_reconciled: 1, payer_info: payerInfoFor(row) } : {}) })
    .where('id', '=', row.id)
    .where('status', '=', 'pending');
  const result = await (kind === 'expired' ? update.where('expired_at', '<=', at) : update).executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) throw new DepositNotPending(row.status);
  const last = await trx.selectFrom('deposit_activities').select((eb) => eb.fn.max('seq').as('seq')).where('deposit_row_id', '=', row.id).executeTakeFirst();
  await trx.insertInto('deposit_activities').values({
    id: newRecordId(), deposit_row_id: row.id, seq: Number(last?.seq ?? 0) + 1, activity: t.activity, status: t.to, description: t.description, updated_at: at,
  }).execute();
  const updated = await trx.selectFrom('deposits').selectAll().where('id', '=', row.id).executeTakeFirstOrThrow();
  const activities = await trx.selectFrom('deposit_activities').selectAll().where('deposit_row_id', '=', row.id).execute();
  const view = toDepositView(updated, activities, { detail: true });
  const type: DepositEventType = t.to === 'completed' ? 'deposit.completed' : 'deposit.expired';
  await enqueueDepositWebhook(trx, { type, merchantId: row.merchant_id, depositId: row.deposit_id, reference: row.reference, status: t.to, data: view }, now);
  return view;
}

/** Expires one deposit if it is pending past its expiredAt (atomically; a no-op otherwise). */
export async function expireIfOverdue(deps: ProviderDeps, rowId: string): Promise<boolean> {
  const now = deps.now();
  try {
    const view = await deps.db.transaction().execute(async (trx) => {
      const row = await forUpdate(trx, trx.selectFrom('deposits').selectAll().where('id', '=', rowId)).executeTakeFirst();
      if (!row || row.status !== 'pending' || row.expired_at > now.toISOString()) throw new DepositNotPending(row?.status ?? 'missing');
      return applyTransition(trx, row, 'expired', now);
    });
    forgetView(view.depositId);
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
  let q = deps.db.selectFrom('deposits').select(['id', 'status', 'expired_at']).where('deposit_id', '=', depositId);
  if (merchantId) q = q.where('merchant_id', '=', merchantId);
  const found = await q.executeTakeFirst();
  if (!found) throw new DepositNotFound();
  if (found.status === 'pending' && found.expired_at <= deps.now().toISOString()) await expireIfOverdue(deps, found.id);
  const now = deps.now();
  try {
    return await deps.db.transaction().execute(async (trx) => {
      // Locked on PostgreSQL: a concurrent transition waits, then reads (and reports) the status it left.
      const row = await forUpdate(trx, trx.selectFrom('deposits').selectAll().where('id', '=', found.id)).executeTakeFirstOrThrow();
      if (row.status !== 'pending') throw new DepositNotPending(row.status);
      return applyTransition(trx, row, kind, now);
    });
  } finally {
    forgetView(depositId);
  }
}

/** Expires every overdue pending deposit (of one merchant, or all); returns how many it moved. */
export async function expireOverdue(deps: ProviderDeps, merchantId?: string, max = 500): Promise<number> {
  let q = deps.db.selectFrom('deposits').select('id').where('status', '=', 'pending').where('expired_at', '<=', deps.now().toISOString());
  if (merchantId) q = q.where('merchant_id', '=', merchantId);
  const due = await q.limit(max).execute();
  let moved = 0;
  for (const { id } of due) if (await expireIfOverdue(deps, id)) moved++;
  return moved;
}

// ---------------------------------------------------------------------------------------------------------
// Reads

async function withHistory(db: Kysely<Database>, row: DepositRow, detail: boolean): Promise<DepositView> {
  const activities = await db.selectFrom('deposit_activities').selectAll().where('deposit_row_id', '=', row.id).execute();
  return toDepositView(row, activities, { detail });
}

/** Reads one deposit of a merchant by depositId, else by reference. Never shows pending past expiredAt. */
export async function readDeposit(deps: ProviderDeps, merchantId: string, idOrReference: string): Promise<DepositView | undefined> {
  const hit = cachedView(idOrReference, merchantId, deps.now());
  if (hit) return hit;
  const generation = generationOf(idOrReference);
  const find = async () =>
    (await deps.db.selectFrom('deposits').selectAll().where('merchant_id', '=', merchantId).where('deposit_id', '=', idOrReference).executeTakeFirst())
    ?? (await deps.db.selectFrom('deposits').selectAll().where('merchant_id', '=', merchantId).where('reference', '=', idOrReference).executeTakeFirst());
  let row = await find();
  if (!row) return undefined;
  if (row.status === 'pending' && row.expired_at <= deps.now().toISOString()) {
    await expireIfOverdue(deps, row.id);
    row = (await find())!;
  }
  const view = await withHistory(deps.db, row, true);
  if (view.depositId === idOrReference) storeView(merchantId, view, deps.now(), generation);
  return view;
}

/** Reads a deposit by depositId for the public checkout pages (no merchant scope: the id is the key). */
export async function readDepositById(deps: ProviderDeps, depositId: string): Promise<{ row: DepositRow; view: DepositView } | undefined> {
  const find = () => deps.db.selectFrom('deposits').selectAll().where('deposit_id', '=', depositId).executeTakeFirst();
  let row = await find();
  if (!row) return undefined;
  if (row.status === 'pending' && row.expired_at <= deps.now().toISOString()) {
    await expireIfOverdue(deps, row.id);
    row = (await find())!;
  }
  return { row, view: await withHistory(deps.db, row, true) };
}

export interface ListQuery {
  limit: number;
  page: number;
  sort: 'createdAt' | '-createdAt' | 'updatedAt' | '-updatedAt';
  status?: 'pending' | 'expired' | 'completed';
  depositType?: 'fiat' | 'crypto';
}

export async function listDeposits(deps: ProviderDeps, merchantId: string, query: ListQuery): Promise<Page<DepositView>> {
  await expireOverdue(deps, merchantId);
  let base = deps.db.selectFrom('deposits').where('merchant_id', '=', merchantId);
  if (query.status) base = base.where('status', '=', query.status);
  if (query.depositType) base = base.where('deposit_type', '=', query.depositType);
  const { count } = await base.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
  const desc = query.sort.startsWith('-');
  const column = query.sort.replace('-', '') === 'updatedAt' ? 'updated_at' : 'created_at';
  const rows = await base.selectAll()
    .orderBy(column, desc ? 'desc' : 'asc')
    .orderBy('id', desc ? 'desc' : 'asc')
    .limit(query.limit)
    .offset((query.page - 1) * query.limit)
    .execute();
  const activities = rows.length
    ? await deps.db.selectFrom('deposit_activities').selectAll().where('deposit_row_id', 'in', rows.map((r) => r.id)).execute()
    : [];
  const byRow = new Map<string, ActivityRow[]>();
  for (const a of activities) byRow.set(a.deposit_row_id, [...(byRow.get(a.deposit_row_id) ?? []), a]);
  return paginate(rows.map((r) => toDepositView(r, byRow.get(r.id) ?? [])), Number(count), query.page, query.limit);
}
