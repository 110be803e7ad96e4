// An amount written with a thousands separator ("150.000" or "150,000" for Rp 150,000) is refused naming the separator:
// read as a decimal, "150.000" would be Rp 150 and fail later with an unrelated message (docs/going-live.md).

/**
 * The thousands separator in `amount` (`.`, `,`, a space or `'`) when it is written with one, for a currency with
 * `decimals` places; undefined when it is a plain decimal. "150.000" is a separator in rupiah (no decimals); in
 * dollars it is left to the decimal-places rule; "150,000" and "1.500.000" are separators in any currency.
 */
export function thousandsSeparatorIn(amount: string, decimals: number): string | undefined {
  const match = /^\d{1,3}((?:([.,' \u00a0])\d{3})+)(?:([.,])\d+)?$/.exec(amount.trim());
  if (!match) return undefined;
  const [, groups, separator, decimalMark] = match;
  if (decimalMark === separator) return undefined; // "1.234.5": no reading of it is an amount; the usual refusal tells
  // One "." group ("150.000"): a separator in a currency without decimals; in one with cents it may be a decimal point
  // with a digit too many ("10.125" dollars), which the decimal-places refusal tells.
  if (groups.length === 4 && !decimalMark && separator === '.' && decimals > 0) return undefined;
  return separator;
}

/** The refusal's words: which separator, and the amount written without it. */
export function separatorRefusal(field: string, amount: string, separator: string, decimals: number): string {
  const name = separator === ' ' || separator === '\u00a0' ? 'a space' : `"${separator}"`;
  const trimmed = amount.trim();
  const decimalAt = decimals > 0 ? Math.max(trimmed.lastIndexOf(separator === '.' ? ',' : '.'), -1) : -1;
  const whole = (decimalAt > 0 ? trimmed.slice(0, decimalAt) : trimmed).split(separator).join('');
  const plain = decimalAt > 0 ? `${whole}.${trimmed.slice(decimalAt + 1)}` : whole;
  return `${field}: "${trimmed}" is written with ${name} as a thousands separator; send a plain decimal number without it, e.g. "${plain}"`;
}
