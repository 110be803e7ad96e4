// The wallet payment request a crypto deposit's QR encodes (docs/design.md, "Crypto"), built in one place for both
// servers:
//   EVM native coin: ethereum:<payoutWallet>@<chainId>?value=<amount in wei>                         (EIP-681)
//   EVM token:       ethereum:<token>@<chainId>/transfer?address=<payoutWallet>&uint256=<base units>  (EIP-681)
//   Stellar:         web+stellar:pay?destination=<payoutWallet>&amount=<amount>[&asset_code=..&asset_issuer=..]
//                    [&memo=<memo>&memo_type=MEMO_ID|MEMO_TEXT]                                        (SEP-7)
// Amounts are decimal strings turned into base units by string and BigInt arithmetic: never a binary float.

export interface PaymentRequest {
  blockchainType: 'EVM' | 'STELLAR';
  /** The address to pay. */
  payoutWallet: string;
  /** The exact amount, as decimal text in the asset's units (e.g. "9.093665"). */
  amount: string;
  /** The asset's decimal places (the catalog's `decimal`). */
  decimals: number;
  /** EVM chain id (unused for Stellar). */
  chainId: number;
  /** Token contract (EVM) or issuer (Stellar); empty for the network's native coin. */
  assetAddress: string;
  /** The asset's code (Stellar's asset_code). */
  symbol: string;
  /** Stellar: the memo that tells this payment apart on the merchant's one account (docs/indonesian-payments.md). */
  memo?: string;
  /** Stellar: `id` (an unsigned 64-bit integer) or `text` (at most 28 bytes). */
  memoType?: 'id' | 'text';
}

const MAX_MEMO_ID = 2n ** 64n - 1n;

/** A Stellar memo as SEP-7 writes it, checked as the network takes it: a RangeError otherwise. */
function stellarMemo(memo: string, type: 'id' | 'text'): [string, string] {
  if (type === 'id') {
    if (!/^\d{1,20}$/.test(memo) || BigInt(memo) > MAX_MEMO_ID)
      throw new RangeError(`a MEMO_ID is an unsigned 64-bit integer, not "${memo}"`);
    return [BigInt(memo).toString(), 'MEMO_ID'];
  }
  if (!memo || new TextEncoder().encode(memo).length > 28)
    throw new RangeError(`a MEMO_TEXT has 1 to 28 bytes, not "${memo}"`);
  return [memo, 'MEMO_TEXT'];
}

const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

/**
 * An exact decimal amount in base units (`amount` x 10^decimals) as an integer string: "1.5" with 6 decimals is
 * "1500000". Trailing zeros beyond `decimals` are allowed; any other digit there (a fraction of a base unit), a sign,
 * an exponent or anything but plain decimal text throws a RangeError.
 */
export function toBaseUnits(amount: string, decimals: number): string {
  if (!Number.isInteger(decimals) || decimals < 0)
    throw new RangeError(`decimals must be a whole number, not ${decimals}`);
  const match = DECIMAL.exec(amount);
  if (!match) throw new RangeError(`amount must be plain decimal text, not "${amount}"`);
  const [, whole, fraction = ''] = match;
  const significant = fraction.replace(/0+$/, '');
  if (significant.length > decimals) throw new RangeError(`amount ${amount} has more than ${decimals} decimal places`);
  return BigInt(whole + significant.padEnd(decimals, '0')).toString();
}

/** Decimal text without trailing fraction zeros or leading zeros ("009.50" is "9.5"), for SEP-7's amount. */
function plainDecimal(amount: string): string {
  const match = DECIMAL.exec(amount);
  if (!match) throw new RangeError(`amount must be plain decimal text, not "${amount}"`);
  const whole = BigInt(match[1]).toString();
  const fraction = (match[2] ?? '').replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole;
}

/** The wallet payment request (EIP-681 or SEP-7) for paying `amount` of an asset to `payoutWallet`. */
export function paymentUri(r: PaymentRequest): string {
  if (r.blockchainType === 'STELLAR') {
    toBaseUnits(r.amount, r.decimals); // refuses an amount finer than the asset's precision
    const params = new URLSearchParams({ destination: r.payoutWallet, amount: plainDecimal(r.amount) });
    if (r.assetAddress) {
      params.set('asset_code', r.symbol);
      params.set('asset_issuer', r.assetAddress);
    }
    if (r.memo !== undefined) {
      const [memo, type] = stellarMemo(r.memo, r.memoType ?? 'text');
      params.set('memo', memo);
      params.set('memo_type', type);
    }
    // Percent-encoded (a space is %20, never +: SEP-7's values are URI components).
    return `web+stellar:pay?${[...params].map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')}`;
  }
  const units = toBaseUnits(r.amount, r.decimals);
  if (!r.assetAddress) return `ethereum:${r.payoutWallet}@${r.chainId}?value=${units}`;
  return `ethereum:${r.assetAddress}@${r.chainId}/transfer?address=${r.payoutWallet}&uint256=${units}`;
}
