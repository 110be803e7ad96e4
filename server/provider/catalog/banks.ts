// Banks the service knows (GET /v1/banks, docs/design.md, "Quotes, banks, bank transfers"): where recipients'
// bank.bankName comes from.
export interface BankDef {
  bankCode: string;
  bankName: string;
  currency: string;
  country: string;
}

const bank = (bankCode: string, bankName: string, currency: string, country: string): BankDef => ({
  bankCode,
  bankName,
  currency,
  country,
});

export const BANKS: readonly BankDef[] = [
  bank('BCA', 'Bank Central Asia', 'IDR', 'ID'),
  bank('BNI', 'Bank Negara Indonesia', 'IDR', 'ID'),
  bank('BRI', 'Bank Rakyat Indonesia', 'IDR', 'ID'),
  bank('MANDIRI', 'Bank Mandiri', 'IDR', 'ID'),
  bank('PERMATA', 'Bank Permata', 'IDR', 'ID'),
  bank('CIMB', 'Bank CIMB Niaga', 'IDR', 'ID'),
  bank('BSI', 'Bank Syariah Indonesia', 'IDR', 'ID'),
  bank('DBS', 'DBS Bank', 'SGD', 'SG'),
  bank('OCBC', 'OCBC Bank', 'SGD', 'SG'),
  bank('MAYBANK', 'Maybank', 'MYR', 'MY'),
  bank('CIMB_MY', 'CIMB Bank', 'MYR', 'MY'),
  bank('BDO', 'BDO Unibank', 'PHP', 'PH'),
  bank('BPI', 'Bank of the Philippine Islands', 'PHP', 'PH'),
  bank('CHASE', 'JPMorgan Chase Bank', 'USD', 'US'),
  bank('BOFA', 'Bank of America', 'USD', 'US'),
  bank('DEUTSCHE', 'Deutsche Bank', 'EUR', 'DE'),
  bank('HDFC', 'HDFC Bank', 'INR', 'IN'),
];

/** A bank by its code (case-insensitive), of one currency when given. */
export function findBank(code: string, currency?: string): BankDef | undefined {
  const wanted = code.trim().toUpperCase();
  return BANKS.find((b) => b.bankCode === wanted && (!currency || b.currency === currency.toUpperCase()));
}
