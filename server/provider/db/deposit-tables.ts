// Tables of deposits, checkouts and their history (migration 002_deposits), and the row types read from, inserted
// into and updated in them. Money columns are decimal text; timestamps ISO 8601 UTC text; booleans 0/1 (see schema.ts).
// Generated<> marks a column the database fills with its default when an insert leaves it out.
import type { Generated, Insertable, Selectable, Updateable } from 'kysely';

interface DepositsTable {
  /** The record id (interface `id`). */
  id: string;
  /** The interface's depositId: a UUID, or the checkout id for checkout deposits. Unique. */
  deposit_id: string;
  merchant_id: string;
  user_id: string;
  deposit_type: 'fiat' | 'crypto';
  /** bankCode of the fiat payment method; null for crypto. */
  method_code: string | null;
  input_currency: string;
  input_amount: string;
  output_currency: string;
  output_amount: string;
  exchange_rate: string;
  fee_amount: string;
  fee_percentage: string;
  fee_currency: string;
  /** JSON of paymentFiat ({} for crypto). */
  payment_fiat: string;
  /** JSON of paymentCrypto ({} for fiat). */
  payment_crypto: string;
  /** The VA number, unique across the service; null for other methods. */
  va_number: string | null;
  status: 'pending' | 'expired' | 'completed';
  /** Client transaction id: unique per merchant when present. */
  reference: string | null;
  note: Generated<string>;
  bank_note: Generated<string>;
  balance_type: string;
  quote_id: string | null;
  is_reconciled: Generated<number>;
  /** JSON of payerInfo once paid; null before. */
  payer_info: string | null;
  /** 1 when exchangeInfo is shown (direct convert or checkout deposit). */
  show_exchange_info: Generated<number>;
  checkout_id: string | null;
  /** What arrived so far, in input_currency (migration 006; docs/design.md, "Payments that do not go as planned"). */
  paid_amount: Generated<string>;
  /** 1 once a payment arrived after the deposit expired or was cancelled (migration 006). */
  paid_late: Generated<number>;
  /** The order's currency (migration 013): the checkout's inputCurrency for a checkout deposit, else input_currency. */
  order_currency: Generated<string>;
  /** What the order is worth in order_currency: what arrived before the current method was priced plus price_value. */
  order_value: Generated<string>;
  /** The current method's price: it asked price_amount (input_currency) for price_value (order_currency). */
  price_amount: Generated<string>;
  price_value: Generated<string>;
  expired_at: string;
  created_at: string;
  updated_at: string;
  /** 1 at creation, one more with each committed change (migration 007): what readers order a deposit's states by. */
  version: Generated<number>;
}

interface DepositActivitiesTable {
  /** The entry's _id. */
  id: string;
  /** deposits.id */
  deposit_row_id: string;
  seq: number;
  activity: string;
  status: string;
  description: string;
  updated_at: string;
}

interface CheckoutsTable {
  /** The checkout id (= the depositId of the deposit the shopper creates). */
  id: string;
  merchant_id: string;
  input_currency: string;
  output_currency: string;
  /** Exactly one of input_amount / output_amount is set. */
  input_amount: string | null;
  output_amount: string | null;
  /** Who bears each kind's fee, as JSON (migration 015; null before it: the amount field decides). */
  fees_paid_by: Generated<string | null>;
  expires_at: string;
  created_at: string;
}

/** One payment that arrived for a deposit (migration 006; docs/design.md, "Payments that do not go as planned"). */
interface DepositPaymentsTable {
  id: string;
  /** deposits.id */
  deposit_row_id: string;
  /** 1 for a deposit's first payment. */
  seq: number;
  /** Decimal text, in `currency`. */
  amount: string;
  /** The currency that arrived: the deposit's input currency when it was paid. */
  currency: string;
  /** The method it was paid with: a bankCode, or a crypto id. */
  method: string;
  /** 1 when it arrived after the deposit expired or was cancelled. */
  late: Generated<number>;
  received_at: string;
  /** What it is worth toward the order, in the deposit's order_currency (migration 013). */
  value: Generated<string>;
}

/** The price a deposit's method had before a switch (migration 013): what it asked, for what value toward the order. */
interface DepositPricesTable {
  /** deposits.id */
  deposit_row_id: string;
  /** A bankCode, or a crypto id. */
  method: string;
  currency: string;
  /** What the method asked, in `currency`. */
  amount: string;
  /** What that amount is worth toward the order, in the deposit's order_currency. */
  value: string;
  priced_at: string;
}

/** How many deposits a merchant has per status and type (migration 009): kept by triggers, read for totalDocs. */
interface DepositCountsTable {
  merchant_id: string;
  status: DepositsTable['status'];
  deposit_type: DepositsTable['deposit_type'];
  count: number;
}

export interface DepositTables {
  deposits: DepositsTable;
  deposit_counts: DepositCountsTable;
  deposit_payments: DepositPaymentsTable;
  deposit_prices: DepositPricesTable;
  deposit_activities: DepositActivitiesTable;
  checkouts: CheckoutsTable;
}

export type DepositRow = Selectable<DepositsTable>;
export type NewDeposit = Insertable<DepositsTable>;
export type DepositUpdate = Updateable<DepositsTable>;
export type ActivityRow = Selectable<DepositActivitiesTable>;
export type NewActivity = Insertable<DepositActivitiesTable>;
export type CheckoutRow = Selectable<CheckoutsTable>;
export type NewCheckout = Insertable<CheckoutsTable>;
export type PaymentRow = Selectable<DepositPaymentsTable>;
export type PriceRow = Selectable<DepositPricesTable>;
