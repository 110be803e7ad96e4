// Tables of convert-estimation quotes and bank-transfer unique codes (migration 005_payments). Conventions as in schema.ts.
import type { Selectable } from 'kysely';

interface QuotesTable {
  /** The quoteId. */
  id: string;
  merchant_id: string;
  input_currency: string;
  input_amount: string;
  output_currency: string;
  output_amount: string;
  exchange_rate: string;
  /** In the input currency. */
  fee: string;
  /** The bankCode whose fee the quote includes; null without one. */
  payment_method: string | null;
  expires_at: string;
  /** Record id of the deposit that used the quote; null while unused. */
  used_by: string | null;
  created_at: string;
}

interface BankTransferCodesTable {
  /** deposits.id of the pending bank transfer holding the code. */
  deposit_row_id: string;
  /** The merchant whose pool the code is drawn from (migration 007). */
  merchant_id: string;
  /** The collection account the transfer goes to. */
  account_number: string;
  /** 1 to 999, in the currency's smallest unit; unique per merchant and account among pending transfers. */
  unique_code: number;
}

export interface PaymentTables {
  quotes: QuotesTable;
  bank_transfer_codes: BankTransferCodesTable;
}

export type QuoteRow = Selectable<QuotesTable>;
