// The sandbox catalog of Indonesian fiat payment methods (GET /v1/deposit/payment-method), with realistic limits and
// fees.
import type { EwalletFlow } from '../../common/ewallet.js';
import type { FEE_KINDS } from '../../common/fee-policy.js';

/** What each kind means to a deposit (its depositPaymentType, details, expiry, amounts) is its row of deposits/method-kinds.ts. */
type MethodKind = (typeof FEE_KINDS)[number];

export interface PaymentMethodDef {
  /** The interface's bankCode: what a client sends as paymentMethod. */
  code: string;
  kind: MethodKind;
  bankName: string;
  /** Display name, e.g. "BCA Virtual Account". */
  name: string;
  currency: string;
  minimumAmount: string;
  maximumAmount: string;
  feeFlat: string;
  feePercentage: string;
  /** File under /static/logos/. */
  logo: string;
  /** VA numbers: this prefix plus digits, 16 in all. */
  vaPrefix?: string;
  /** E-wallet: how the wallet takes the payment (docs/indonesian-payments.md). */
  flow?: EwalletFlow;
  /** Bank transfer: the service's own account the payer transfers to (one per bank, shared by every merchant). */
  collectionAccount?: { accountNumber: string; accountName: string };
}

const va = (
  code: string,
  bankName: string,
  short: string,
  vaPrefix: string,
  maximumAmount: string,
  feeFlat = '4000',
): PaymentMethodDef => ({
  code,
  kind: 'va',
  bankName,
  name: `${short} Virtual Account`,
  currency: 'IDR',
  minimumAmount: '10000',
  maximumAmount,
  feeFlat,
  feePercentage: '0',
  logo: `${short.toLowerCase()}.svg`,
  vaPrefix,
});

const ewallet = (
  code: string,
  bankName: string,
  feePercentage: string,
  maximumAmount: string,
  logo: string,
  flow: EwalletFlow,
): PaymentMethodDef => ({
  code,
  kind: 'ewallet',
  bankName,
  name: bankName,
  currency: 'IDR',
  minimumAmount: '1000',
  maximumAmount,
  feeFlat: '0',
  feePercentage,
  logo,
  flow,
});

/** The service's collection account name on bank transfers. */
const COLLECTION_ACCOUNT_NAME = 'PT Kasir Sandbox Indonesia';

const transfer = (code: string, bankName: string, short: string, accountNumber: string): PaymentMethodDef => ({
  code,
  kind: 'bank',
  bankName,
  name: `${short} Bank Transfer`,
  currency: 'IDR',
  minimumAmount: '10000',
  maximumAmount: '100000000',
  feeFlat: '0',
  feePercentage: '0',
  logo: `${short.toLowerCase()}.svg`,
  collectionAccount: { accountNumber, accountName: COLLECTION_ACCOUNT_NAME },
});

export const PAYMENT_METHODS: readonly PaymentMethodDef[] = [
  va('BCA_VA', 'Bank Central Asia', 'BCA', '39358', '50000000'),
  va('BNI_VA', 'Bank Negara Indonesia', 'BNI', '8808', '50000000'),
  va('BRI_VA', 'Bank Rakyat Indonesia', 'BRI', '26215', '50000000'),
  va('MANDIRI_VA', 'Bank Mandiri', 'Mandiri', '88608', '50000000'),
  va('PERMATA_VA', 'Bank Permata', 'Permata', '8625', '50000000'),
  va('CIMB_VA', 'Bank CIMB Niaga', 'CIMB', '5919', '50000000'),
  va('BSI_VA', 'Bank Syariah Indonesia', 'BSI', '9347', '50000000'),
  {
    code: 'QRIS',
    kind: 'qris',
    bankName: 'QRIS',
    name: 'QRIS',
    currency: 'IDR',
    minimumAmount: '1500',
    maximumAmount: '10000000',
    feeFlat: '0',
    feePercentage: '0.7',
    logo: 'qris.svg',
  },
  ewallet('OVO', 'OVO', '1.5', '10000000', 'ovo.svg', 'push'),
  ewallet('DANA', 'DANA', '1.5', '10000000', 'dana.svg', 'redirect'),
  ewallet('SHOPEEPAY', 'ShopeePay', '2', '10000000', 'shopeepay.svg', 'qr-or-app'),
  ewallet('GOPAY', 'GoPay', '2', '10000000', 'gopay.svg', 'qr-or-app'),
  ewallet('LINKAJA', 'LinkAja', '1.5', '10000000', 'linkaja.svg', 'redirect'),
  transfer('BCA_TRANSFER', 'Bank Central Asia', 'BCA', '8730012345'),
  transfer('MANDIRI_TRANSFER', 'Bank Mandiri', 'Mandiri', '1230009876543'),
  transfer('BRI_TRANSFER', 'Bank Rakyat Indonesia', 'BRI', '034101000123567'),
];

const byCode: ReadonlyMap<string, PaymentMethodDef> = new Map(PAYMENT_METHODS.map((m) => [m.code, m]));

export function findPaymentMethod(code: string): PaymentMethodDef | undefined {
  return byCode.get(code);
}
