// The Deposit resource exactly as interface 2.2 shows it, built from the stored row and its history.
import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../db/database.js';
import type { DepositActivitiesTable, DepositsTable } from '../db/deposit-tables.js';
import { toNumber } from '../money.js';

export type DepositRow = Selectable<DepositsTable>;
export type ActivityRow = Selectable<DepositActivitiesTable>;

export interface ActivityView { activity: string; status: string; description: string; updatedAt: string; _id: string }

export interface PaymentFiatView {
  bankName?: string; bankCode?: string; accountName?: string; accountNumber?: string; qrData?: string; checkoutUrl?: string;
}

export interface DepositView {
  id: string;
  depositId: string;
  depositType: 'fiat' | 'crypto';
  userId: string;
  inputCurrency: string;
  inputAmount: number;
  outputCurrency: string;
  exchangeRate: number;
  outputAmount: number;
  fee: { amount: number; percentage: number; currency: string };
  paymentFiat: PaymentFiatView;
  paymentCrypto: { payoutWallet?: string; network?: string };
  status: 'pending' | 'expired' | 'completed';
  activityHistory: ActivityView[];
  reference: string;
  note: string;
  bankNote: string;
  exchangeInfo?: { exchangeRate: number; outputCurrency: string; outputAmount: number };
  isReconciled?: boolean;
  payerInfo?: { transactionCode: string; name: string; bankName: string; accountNumber: string; mid: string };
  expiredAt: string;
  createdAt: string;
  updatedAt: string;
}

const EMPTY_PAYER = { transactionCode: '', name: '', bankName: '', accountNumber: '', mid: '' };

/**
 * Builds the interface's Deposit from a row and its activity rows. `detail` adds isReconciled and
 * payerInfo (the detail read and webhook payloads carry them; list items do not).
 */
export function toDepositView(row: DepositRow, activities: ActivityRow[], options: { detail?: boolean } = {}): DepositView {
  const view: DepositView = {
    id: row.id,
    depositId: row.deposit_id,
    depositType: row.deposit_type,
    userId: row.user_id,
    inputCurrency: row.input_currency,
    inputAmount: toNumber(row.input_amount),
    outputCurrency: row.output_currency,
    exchangeRate: toNumber(row.exchange_rate),
    outputAmount: toNumber(row.output_amount),
    fee: { amount: toNumber(row.fee_amount), percentage: toNumber(row.fee_percentage), currency: row.fee_currency },
    paymentFiat: JSON.parse(row.payment_fiat),
    paymentCrypto: JSON.parse(row.payment_crypto),
    status: row.status,
    activityHistory: [...activities]
      .sort((a, b) => a.seq - b.seq)
      .map((a) => ({ activity: a.activity, status: a.status, description: a.description, updatedAt: a.updated_at, _id: a.id })),
    reference: row.reference ?? '',
    note: row.note,
    bankNote: row.bank_note,
    expiredAt: row.expired_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
  if (row.show_exchange_info) {
    view.exchangeInfo = { exchangeRate: view.exchangeRate, outputCurrency: view.outputCurrency, outputAmount: view.outputAmount };
  }
  if (options.detail) {
    view.isReconciled = row.is_reconciled === 1;
    view.payerInfo = row.payer_info ? { ...EMPTY_PAYER, ...JSON.parse(row.payer_info) } : { ...EMPTY_PAYER };
  }
  // Keep the interface's field order: exchangeInfo and the detail fields before the timestamps.
  const { expiredAt, createdAt, updatedAt, ...rest } = view;
  return { ...rest, expiredAt, createdAt, updatedAt };
}

/**
 * The Deposit view of one deposit by its depositId (the detail form, as in webhook payloads), or undefined.
 * For the webhook dispatcher and anyone else who needs the interface's shape; pass a transaction to read
 * inside it. Give merchantId to scope the lookup to one merchant.
 */
export async function loadDepositView(db: Kysely<Database>, depositId: string, merchantId?: string): Promise<DepositView | undefined> {
  let q = db.selectFrom('deposits').selectAll().where('deposit_id', '=', depositId);
  if (merchantId) q = q.where('merchant_id', '=', merchantId);
  const row = await q.executeTakeFirst();
  if (!row) return undefined;
  const activities = await db.selectFrom('deposit_activities').selectAll().where('deposit_row_id', '=', row.id).execute();
  return toDepositView(row, activities, { detail: true });
}
