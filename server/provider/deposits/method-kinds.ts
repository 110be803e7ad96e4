// The kinds of payment method (docs/indonesian-payments.md), one row each: what the service asks of a kind is read
// from here (the interface's depositPaymentType, whether its payer chooses the amount, where the sandbox pays it, and,
// for a fiat kind, the builder of its payment details); how long its deposit stays valid by default is configuration
// (instance/defaults.ts). A new kind is a row here, its name in FEE_KINDS (server/common/fee-policy.ts: who bears its
// fee), its default validity, and its methods in catalog/payment-methods.ts; the compiler then names whatever else
// must know it.
import type { FEE_KINDS } from '../../common/fee-policy.js';
import type { MethodKind } from '../instance/defaults.js';
import {
  bankTransferDetails,
  ewalletDetails,
  qrisDetails,
  vaDetails,
  type FiatPaymentDetails,
  type FiatPaymentOptions,
} from './payment-details.js';

/** A kind of fiat method: what a method of the catalog is (catalog/payment-methods.ts `kind`). */
export type FiatKind = (typeof FEE_KINDS)[number];
export type { MethodKind };

interface KindFacts {
  /** The interface's depositPaymentType of a payment method (the schemas' literal). */
  depositPaymentType: string;
  /**
   * Whether the payer chooses the amount (a bank transfer, a crypto payment): any amount is recorded as it arrived.
   * Otherwise the bank or wallet collects exactly what is asked (400 Amount must equal the amount due otherwise).
   */
  takesAnyAmount: boolean;
  /** Paid in the sandbox on its approval page (/sandbox/ewallet/:depositId: approve, decline) besides the endpoints. */
  approvalPage: boolean;
}

interface FiatKindFacts extends KindFacts {
  /** What the payer needs (payment-details.ts). */
  paymentDetails: (options: FiatPaymentOptions) => FiatPaymentDetails;
}

/** The kinds in the order the configuration names them (KASIR_EXPIRY_{VA,BANK,QRIS,EWALLET,CRYPTO}_SECONDS). */
export const METHOD_KINDS = {
  va: {
    depositPaymentType: 'va',
    takesAnyAmount: false,
    approvalPage: false,
    paymentDetails: vaDetails,
  },
  bank: {
    depositPaymentType: 'bank_transfer',
    takesAnyAmount: true,
    approvalPage: false,
    paymentDetails: bankTransferDetails,
  },
  qris: {
    depositPaymentType: 'qris',
    takesAnyAmount: false,
    approvalPage: false,
    paymentDetails: qrisDetails,
  },
  ewallet: {
    depositPaymentType: 'ewallet',
    takesAnyAmount: false,
    approvalPage: true,
    paymentDetails: ewalletDetails,
  },
  crypto: { depositPaymentType: 'crypto', takesAnyAmount: true, approvalPage: false },
} as const satisfies Record<FiatKind, FiatKindFacts> & Record<'crypto', KindFacts>;

/** What the payer needs for a fiat method: its kind's builder (a VA number, a QRIS payload, an approval page, an account). */
export function fiatPaymentDetails(options: FiatPaymentOptions): FiatPaymentDetails {
  return METHOD_KINDS[options.method.kind].paymentDetails(options);
}

/** The kind of a deposit's price: a catalog method's, else (a crypto id) crypto. */
export const kindOfMethod = (method: { kind: FiatKind } | undefined): MethodKind => method?.kind ?? 'crypto';
