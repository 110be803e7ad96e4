// Fiat currencies: precision (docs/design.md, "Deposits": IDR 0 places, USD 2) and the deprecated reference list
// (GET /v1/reference/currencies).
export interface FiatCurrencyDef {
  code: string;
  name: string;
  country: string;
  countryCode: string;
  symbol: string;
  places: number;
  /** The largest amount one deposit, checkout or conversion takes (decimal text): about USD 10 million or more. */
  maximumAmount: string;
  requireBankName: boolean;
  requireIfsc: boolean;
  requireIban: boolean;
  requireAchOrWire: boolean;
  requireAccountNumber: boolean;
  /** Stable record id shown as _id and id. */
  recordId: string;
}

const fiat = (
  recordId: string,
  code: string,
  name: string,
  country: string,
  countryCode: string,
  symbol: string,
  places: number,
  maximumAmount: string,
  req: Partial<
    Pick<
      FiatCurrencyDef,
      'requireBankName' | 'requireIfsc' | 'requireIban' | 'requireAchOrWire' | 'requireAccountNumber'
    >
  >,
): FiatCurrencyDef => ({
  recordId,
  code,
  name,
  country,
  countryCode,
  symbol,
  places,
  maximumAmount,
  requireBankName: false,
  requireIfsc: false,
  requireIban: false,
  requireAchOrWire: false,
  requireAccountNumber: false,
  ...req,
});

export const FIAT_CURRENCIES: readonly FiatCurrencyDef[] = [
  fiat('64a1f0c2e4b0a1b2c3d4e001', 'IDR', 'Indonesian Rupiah', 'Indonesia', 'ID', 'Rp', 0, '1000000000000', {
    requireBankName: true,
    requireAccountNumber: true,
  }),
  fiat('64a1f0c2e4b0a1b2c3d4e002', 'USD', 'US Dollar', 'United States', 'US', '$', 2, '10000000', {
    requireBankName: true,
    requireAchOrWire: true,
    requireAccountNumber: true,
  }),
  fiat('64a1f0c2e4b0a1b2c3d4e003', 'SGD', 'Singapore Dollar', 'Singapore', 'SG', 'S$', 2, '10000000', {
    requireBankName: true,
    requireAccountNumber: true,
  }),
  fiat('64a1f0c2e4b0a1b2c3d4e004', 'EUR', 'Euro', 'European Union', 'EU', '€', 2, '10000000', { requireIban: true }),
  fiat('64a1f0c2e4b0a1b2c3d4e005', 'MYR', 'Malaysian Ringgit', 'Malaysia', 'MY', 'RM', 2, '50000000', {
    requireBankName: true,
    requireAccountNumber: true,
  }),
  fiat('64a1f0c2e4b0a1b2c3d4e006', 'PHP', 'Philippine Peso', 'Philippines', 'PH', '₱', 2, '500000000', {
    requireBankName: true,
    requireAccountNumber: true,
  }),
  fiat('64a1f0c2e4b0a1b2c3d4e007', 'INR', 'Indian Rupee', 'India', 'IN', '₹', 2, '1000000000', {
    requireBankName: true,
    requireIfsc: true,
    requireAccountNumber: true,
  }),
];

const byCode: ReadonlyMap<string, FiatCurrencyDef> = new Map(FIAT_CURRENCIES.map((c) => [c.code, c]));

export function findFiat(code: string): FiatCurrencyDef | undefined {
  return byCode.get(code);
}
