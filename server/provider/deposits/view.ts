// The Deposit resource exactly as interface 2.2 shows it, built from the stored row and its history.
import type { ActivityRow, DepositRow } from '../db/deposit-tables.js';
import { toNumber } from '../money.js';

export type { ActivityRow, DepositRow } from '../db/deposit-tables.js';

interface ActivityView { activity: string; status: string; description: string; updatedAt: string; _id: string }

export interface PaymentFiatView {
  bankName?: string; bankCode?: string; accountName?: string; accountNumber?: string; qrData?: string; checkoutUrl?: string;
  /** Bank transfer: the unique code (smallest currency unit) the amount was raised by. */
  uniqueCode?: string;
}

export interface PaymentCryptoView { payoutWallet?: string; network?: string }

export interface PayerInfoView { transactionCode: string; name: string; bankName: string; accountNumber: string; mid: string }

/** The paymentFiat a row stores as JSON ({} for crypto). */
export function paymentFiatOf(row: Pick<DepositRow, 'payment_fiat'>): PaymentFiatView {
  return JSON.parse(row.payment_fiat) as PaymentFiatView;
}

function paymentCryptoOf(row: Pick<DepositRow, 'payment_crypto'>): PaymentCryptoView {
  return JSON.parse(row.payment_crypto) as PaymentCryptoView;
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
  paymentCrypto: PaymentCryptoView;
  status: 'pending' | 'expired' | 'completed';
  activityHistory: ActivityView[];
  reference: string;
  note: string;
  bankNote: string;
  exchangeInfo?: { exchangeRate: number; outputCurrency: string; outputAmount: number };
  isReconciled?: boolean;
  payerInfo?: PayerInfoView;
  expiredAt: string;
  createdAt: string;
  updatedAt: string;
  /** Grows with each committed change: what orders two copies of the deposit. */
  version: number;
}

/**
 * Builds the interface's Deposit from a row and its activity rows. `detail` adds isReconciled, and payerInfo when
 * there is a payer to show (interface 2.2: "when available", i.e. once paid); list items carry neither.
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
    paymentFiat: paymentFiatOf(row),
    paymentCrypto: paymentCryptoOf(row),
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
    version: row.version,
  };
  if (row.show_exchange_info) {
    view.exchangeInfo = { exchangeRate: view.exchangeRate, outputCurrency: view.outputCurrency, outputAmount: view.outputAmount };
  }
  if (options.detail) {
    view.isReconciled = row.is_reconciled === 1;
    if (row.payer_info) view.payerInfo = JSON.parse(row.payer_info) as PayerInfoView;
  }
  // Keep the interface's field order: exchangeInfo and the detail fields before the timestamps.
  const { expiredAt, createdAt, updatedAt, version, ...rest } = view;
  return { ...rest, expiredAt, createdAt, updatedAt, version };
}
