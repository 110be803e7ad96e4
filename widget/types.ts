// The widget API's shapes (widget/WIDGET-API.md). Money is a decimal string: the element never does float arithmetic.

export type MethodKind = 'va' | 'qris' | 'ewallet' | 'bank';
export type DepositStatus = 'pending' | 'completed' | 'expired';

export interface Method {
  kind: MethodKind;
  code: string;
  name: string;
  image: string;
  currency: string;
  fee: string;
  total: string;
  available: boolean;
}

export interface Deposit {
  id: string;
  checkoutId: string;
  status: DepositStatus;
  method: { kind: MethodKind; code: string; name: string; image: string };
  currency: string;
  amount: string;
  fee: string;
  accountNumber?: string;
  accountName?: string;
  qrData?: string;
  checkoutUrl?: string;
  expiresAt: string;
  serverTime: string;
  updatedAt: string;
}

export interface Checkout {
  id: string;
  currency: string;
  amount: string;
  expiresAt: string;
  serverTime: string;
  feesPaidBy: 'merchant' | 'shopper';
  capabilities: { events: boolean };
  methods: Method[];
  deposit: Deposit | null;
}

/** The element's phase, reflected in its `state` attribute. */
export type CheckoutState = 'loading' | 'choosing' | 'pending' | 'completed' | 'expired' | 'error';
