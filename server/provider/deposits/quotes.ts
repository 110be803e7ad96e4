// Convert-estimation quotes (docs/design.md, "Quotes, banks, bank transfers"): priced by pricing.ts, held 60 s in the
// database, used by one deposit at most. A deposit created with a quoteId is priced from the quote and claims it in its
// own transaction, so a deposit that fails leaves the quote usable and two deposits can never share one.
import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import type { QuoteRow } from '../db/payment-tables.js';
import { ApiError } from '../../common/errors.js';
import type { ProviderDeps } from '../instance/deps.js';
import { newUuid } from '../db/ids.js';
import { toNumber, toText } from './money.js';
import { estimateConversion, type ConversionRequest, type HeldQuote } from './pricing.js';

const QUOTE_VALIDITY_SECONDS = 60;
/** How long an unused quote is kept after it expired (so it still answers "Quote expired"), before it is deleted. */
const EXPIRED_QUOTE_RETENTION_MS = 24 * 3600 * 1000;

export interface QuoteView {
  quoteId: string;
  inputCurrency: string;
  inputAmount: number;
  outputCurrency: string;
  outputAmount: number;
  exchangeRate: number;
  fee: number;
  expiredAt: string;
}

/** POST /v1/deposit/convert-estimation: prices the conversion and holds it as a quote for 60 s. */
export async function createQuote(deps: ProviderDeps, merchantId: string, req: ConversionRequest): Promise<QuoteView> {
  const estimate = estimateConversion(req, deps.config.rates);
  const now = deps.now();
  const row: QuoteRow = {
    id: newUuid(),
    merchant_id: merchantId,
    input_currency: estimate.inputCurrency,
    input_amount: toText(estimate.inputAmount),
    output_currency: estimate.outputCurrency,
    output_amount: toText(estimate.outputAmount),
    exchange_rate: toText(estimate.rate),
    fee: toText(estimate.fee),
    payment_method: estimate.paymentMethod,
    expires_at: new Date(now.getTime() + QUOTE_VALIDITY_SECONDS * 1000).toISOString(),
    used_by: null,
    created_at: now.toISOString(),
  };
  await deps.db.insertInto('quotes').values(row).execute();
  // Each new quote clears the unused ones long expired, so the table holds about a day of quotes, not all of them.
  await deps.db
    .deleteFrom('quotes')
    .where('used_by', 'is', null)
    .where('expires_at', '<', new Date(now.getTime() - EXPIRED_QUOTE_RETENTION_MS).toISOString())
    .execute();
  return {
    quoteId: row.id,
    inputCurrency: row.input_currency,
    inputAmount: toNumber(row.input_amount),
    outputCurrency: row.output_currency,
    outputAmount: toNumber(row.output_amount),
    exchangeRate: toNumber(row.exchange_rate),
    fee: toNumber(row.fee),
    expiredAt: row.expires_at,
  };
}

/**
 * Why a quote cannot be used now, in the words of docs/design.md, "Quotes, banks, bank transfers"; undefined when it
 * can.
 */
function refusal(row: QuoteRow | undefined, now: string): ApiError | undefined {
  if (!row) return new ApiError(400, 'Quote not found');
  if (row.used_by !== null) return new ApiError(400, 'Quote already used');
  if (row.expires_at <= now) return new ApiError(400, 'Quote expired');
  return undefined;
}

function quoteOf(db: Kysely<Database>, merchantId: string, quoteId: string): Promise<QuoteRow | undefined> {
  return db
    .selectFrom('quotes')
    .selectAll()
    .where('id', '=', quoteId)
    .where('merchant_id', '=', merchantId)
    .executeTakeFirst();
}

/** A merchant's quote that a deposit may still use (another merchant's is not found), to price the deposit from. */
export async function usableQuote(deps: ProviderDeps, merchantId: string, quoteId: string): Promise<HeldQuote> {
  const row = await quoteOf(deps.db, merchantId, quoteId);
  const refused = refusal(row, deps.now().toISOString());
  if (refused) throw refused;
  return {
    inputCurrency: row!.input_currency,
    inputAmount: row!.input_amount,
    outputCurrency: row!.output_currency,
    outputAmount: row!.output_amount,
    rate: row!.exchange_rate,
    fee: row!.fee,
    paymentMethod: row!.payment_method,
  };
}

/**
 * Marks the quote used by a deposit, inside the deposit's transaction: one conditional update, so of two deposits
 * racing for one quote exactly one claims it. Throws the refusal when it is used, expired or gone by now.
 */
export async function claimQuote(
  trx: Kysely<Database>,
  merchantId: string,
  quoteId: string,
  depositRowId: string,
  now: Date,
): Promise<void> {
  const at = now.toISOString();
  const claimed = await trx
    .updateTable('quotes')
    .set({ used_by: depositRowId })
    .where('id', '=', quoteId)
    .where('merchant_id', '=', merchantId)
    .where('used_by', 'is', null)
    .where('expires_at', '>', at)
    .executeTakeFirst();
  if (Number(claimed.numUpdatedRows) === 1) return;
  throw refusal(await quoteOf(trx, merchantId, quoteId), at) ?? new ApiError(400, 'Quote already used');
}
