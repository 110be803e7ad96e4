// Who bears a payment method's fee, per kind of method (docs/indonesian-payments.md, "Fee policy"). QRIS is never
// surcharged: Bank Indonesia rules that its MDR is borne by the merchant and must not be charged to the shopper, so
// whatever the policy says a QRIS method costs the order amount, and a policy naming QRIS `shopper` is refused.

/** Who bears a method's fee: the merchant (the order amount is what the shopper pays) or the shopper (on top). */
export type FeesPaidBy = 'merchant' | 'shopper';

/** The kinds of fiat method a fee belongs to (crypto deposits carry no fee). */
export const FEE_KINDS = ['va', 'bank', 'qris', 'ewallet'] as const;
type FeeKind = (typeof FEE_KINDS)[number];

/** Who bears the fee of each kind of method. */
export type FeesPolicy = Readonly<Record<FeeKind, FeesPaidBy>>;

/** A policy as a merchant writes it: one answer for every kind, or per kind (a kind left out follows `fallback`). */
export type FeesPaidByOption = FeesPaidBy | Partial<Record<FeeKind, FeesPaidBy>>;

/** Why a QRIS fee passed to the shopper is refused, in every message that refuses it. */
export const QRIS_NEVER_SURCHARGED =
  'QRIS is never surcharged: Bank Indonesia rules that the QRIS MDR is borne by the merchant and must not be charged to the shopper';

/**
 * The policy per kind: `option` (a kind it leaves out follows `fallback`), QRIS always the merchant's. Throws a
 * RangeError naming the rule when `option` sets QRIS to `shopper` explicitly.
 */
export function feesPolicy(option: FeesPaidByOption | undefined, fallback: FeesPaidBy = 'merchant'): FeesPolicy {
  if (typeof option === 'object' && option.qris === 'shopper') throw new RangeError(QRIS_NEVER_SURCHARGED);
  const each = (kind: FeeKind): FeesPaidBy =>
    kind === 'qris' ? 'merchant' : ((typeof option === 'object' ? option[kind] : option) ?? fallback);
  return Object.fromEntries(FEE_KINDS.map((kind) => [kind, each(kind)])) as Record<FeeKind, FeesPaidBy>;
}

/** Whether any kind's fee is passed to the shopper (then a checkout asks for the order amount after fees). */
export const passesFees = (policy: FeesPolicy): boolean => FEE_KINDS.some((kind) => policy[kind] === 'shopper');
