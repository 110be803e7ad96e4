// The Deposit resource exactly as the payment service's interface shows it, built from the stored row and its history.
import type { ActivityRow, DepositRow, PaymentRow } from '../db/deposit-tables.js';
import { toNumber } from './money.js';
import { ledgerOf, shownValues } from './ledger.js';
import { checksumAddress } from '../../common/crypto-address.js';
import { lastFailureOf, type FailureReason } from './failure-reasons.js';
import type { z } from '@hono/zod-openapi';
import type { DepositSchema } from './schemas.js';

export type { ActivityRow, DepositRow, PaymentRow } from '../db/deposit-tables.js';

interface ActivityView {
  activity: string;
  status: string;
  description: string;
  updatedAt: string;
  _id: string;
}

/** What the payer needs for a fiat deposit, as the Deposit's schema (schemas.ts) describes it. */
export type PaymentFiatView = z.infer<typeof DepositSchema>['paymentFiat'];

/** Where a crypto deposit is paid, as the Deposit's schema describes it. */
export type PaymentCryptoView = z.infer<typeof DepositSchema>['paymentCrypto'];

export interface PayerInfoView {
  transactionCode: string;
  name: string;
  bankName: string;
  accountNumber: string;
  mid: string;
}

/** The paymentFiat a row stores as JSON ({} for crypto). */
export function paymentFiatOf(row: Pick<DepositRow, 'payment_fiat'>): PaymentFiatView {
  return JSON.parse(row.payment_fiat) as PaymentFiatView;
}

/** The paymentCrypto a row stores as JSON ({} for fiat); an EVM payout address in EIP-55 form, however it was stored. */
function paymentCryptoOf(row: Pick<DepositRow, 'payment_crypto'>): PaymentCryptoView {
  const stored = JSON.parse(row.payment_crypto) as PaymentCryptoView;
  return stored.payoutWallet ? { ...stored, payoutWallet: checksumAddress(stored.payoutWallet) } : stored;
}

/**
 * One payment that arrived for a deposit (docs/money.md): as it arrived (amount, currency, the method it was paid to),
 * and what it is worth toward the order, in the order's currency.
 */
interface PaymentView {
  amount: number;
  currency: string;
  method: string;
  value: number;
  receivedAt: string;
  late: boolean;
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
  /**
   * docs/design.md, "Payments that do not go as planned": what arrived, what is still due and what arrived beyond it,
   * in inputCurrency; every payment.
   */
  paidAmount: number;
  remainingAmount: number;
  overpaidAmount: number;
  /** docs/money.md: the same in the order's currency (orderCurrency), from the payment ledger. */
  paidValue: number;
  remainingValue: number;
  overpaidValue: number;
  orderCurrency: string;
  payments: PaymentView[];
  /** The last failed attempt to pay (docs/indonesian-payments.md), while it is the deposit's latest news. */
  lastFailure?: { reason: FailureReason; failedAt: string };
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
 * Builds the interface's Deposit from a row, its activity rows and its payments. `detail` adds isReconciled, and
 * payerInfo when there is a payer to show (the interface: "when available", i.e. once paid); list items carry neither.
 */
export function toDepositView(
  row: DepositRow,
  activities: ActivityRow[],
  payments: PaymentRow[],
  options: { detail?: boolean } = {},
): DepositView {
  const amounts = ledgerOf(row, payments);
  const inOrder = [...payments].sort((a, b) => a.seq - b.seq);
  const values = shownValues(amounts.orderCurrency, inOrder);
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
      .map((a) => ({
        activity: a.activity,
        status: a.status,
        description: a.description,
        updatedAt: a.updated_at,
        _id: a.id,
      })),
    reference: row.reference ?? '',
    note: row.note,
    bankNote: row.bank_note,
    paidAmount: toNumber(amounts.paid),
    remainingAmount: toNumber(amounts.remaining),
    overpaidAmount: toNumber(amounts.overpaid),
    paidValue: toNumber(amounts.paidValue),
    remainingValue: toNumber(amounts.remainingValue),
    overpaidValue: toNumber(amounts.overpaidValue),
    orderCurrency: amounts.orderCurrency,
    payments: inOrder.map((p, i) => ({
      amount: toNumber(p.amount),
      currency: p.currency,
      method: p.method,
      value: toNumber(values[i]!),
      receivedAt: p.received_at,
      late: p.late === 1,
    })),
    expiredAt: row.expired_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    version: row.version,
  };
  const failure = lastFailureOf([...activities].sort((a, b) => a.seq - b.seq));
  if (failure) view.lastFailure = failure;
  if (row.show_exchange_info) {
    view.exchangeInfo = {
      exchangeRate: view.exchangeRate,
      outputCurrency: view.outputCurrency,
      outputAmount: view.outputAmount,
    };
  }
  if (options.detail) {
    view.isReconciled = row.is_reconciled === 1;
    if (row.payer_info) view.payerInfo = JSON.parse(row.payer_info) as PayerInfoView;
  }
  // Keep the interface's field order: exchangeInfo and the detail fields before the timestamps.
  const { expiredAt, createdAt, updatedAt, version, ...rest } = view;
  return { ...rest, expiredAt, createdAt, updatedAt, version };
}
