// Realistic payment details: VA numbers, QRIS (EMVCo merchant-presented) payloads, e-wallet approval links, crypto
// addresses, and the sandbox payer a completed deposit shows.
import { createHash, randomBytes, randomInt } from 'node:crypto';
import type { CryptoDef, PaymentMethodDef } from '../catalog/index.js';
import { checksumAddress, crc16, stellarAccountId } from '../../common/crypto-address.js';
import { PUSH_WINDOW_SECONDS } from '../../common/ewallet.js';
import {
  paymentFiatOf,
  type DepositRow,
  type PayerInfoView,
  type PaymentCryptoView,
  type PaymentFiatView,
} from './view.js';

export interface FiatPaymentOptions {
  method: PaymentMethodDef;
  /** The merchant organization's name: accountName, and the QRIS merchant name. */
  accountName: string;
  /** The amount to pay, as decimal text (QRIS tag 54). */
  amount: string;
  /** The deposit's record id (the QRIS bill number). */
  recordId: string;
  depositId: string;
  merchantId: string;
  /** The service's public origin (the e-wallet approval page). */
  baseUrl: string;
  /** A push e-wallet: the shopper's number (E.164) the request goes to. */
  mobileNumber?: string;
  /** A redirect e-wallet: where its page sends the shopper back. */
  returnUrl?: string;
  /** When the deposit is made (a push's window starts); default now. */
  now?: Date;
}

/** A fiat method's details, and its VA number alone (the database keeps it unique; null for other kinds). */
export interface FiatPaymentDetails {
  paymentFiat: PaymentFiatView;
  vaNumber: string | null;
}

const baseOf = ({ method, accountName }: FiatPaymentOptions) => ({
  bankName: method.bankName,
  bankCode: method.code,
  accountName,
});

/** A virtual account: a fresh VA number. Each kind's builder is named in its row of METHOD_KINDS (method-kinds.ts). */
export function vaDetails(o: FiatPaymentOptions): FiatPaymentDetails {
  const { method } = o;
  const vaNumber = newVaNumber(method.vaPrefix!);
  // Mandiri's VA is paid as a bill (Multipayment): its biller (company) code is the prefix, the bill key the rest.
  const bill =
    method.code === 'MANDIRI_VA'
      ? { billerCode: method.vaPrefix!, billKey: vaNumber.slice(method.vaPrefix!.length) }
      : {};
  return { paymentFiat: { ...baseOf(o), accountNumber: vaNumber, ...bill }, vaNumber };
}

/** A bank transfer: the service's collection account (the unique code is added by the payment plan). */
export function bankTransferDetails(o: FiatPaymentOptions): FiatPaymentDetails {
  const { accountNumber, accountName: collectionName } = o.method.collectionAccount!;
  return { paymentFiat: { ...baseOf(o), accountName: collectionName, accountNumber }, vaNumber: null };
}

/** QRIS: a dynamic (EMVCo merchant-presented) payload for the amount. */
export function qrisDetails(o: FiatPaymentOptions): FiatPaymentDetails {
  const qrData = qrisPayload({
    merchantName: o.accountName,
    merchantCity: 'JAKARTA',
    amount: o.amount,
    billNumber: o.recordId,
    merchantId: qrisMerchantId(o.merchantId),
  });
  return { paymentFiat: { ...baseOf(o), qrData }, vaNumber: null };
}

/** An e-wallet: the sandbox's approval page of the deposit, by the wallet's flow. */
export function ewalletDetails(o: FiatPaymentOptions): FiatPaymentDetails {
  return { paymentFiat: { ...baseOf(o), ...ewalletFlowDetails(o) }, vaNumber: null };
}

/**
 * An e-wallet's details by its flow (docs/indonesian-payments.md), each leading to the sandbox's approval page of the
 * deposit: a push to the shopper's number with its window; a QR and the app link of the same payment; a redirect to
 * the wallet's page, which sends the shopper back to `returnUrl`.
 */
function ewalletFlowDetails(o: FiatPaymentOptions): PaymentFiatView {
  const checkoutUrl = `${o.baseUrl}/sandbox/ewallet/${o.depositId}`;
  switch (o.method.flow) {
    case 'push':
      return {
        checkoutUrl,
        flow: 'push',
        ...(o.mobileNumber ? { mobileNumber: o.mobileNumber, pushExpiresAt: pushWindowFrom(o.now ?? new Date()) } : {}),
      };
    case 'qr-or-app':
      // The QR a wallet app scans on another device, and the link that opens the app on this one: the same payment.
      return { checkoutUrl, flow: 'qr-or-app', qrData: `${checkoutUrl}?via=qr` };
    case 'redirect':
      return { checkoutUrl, flow: 'redirect', ...(o.returnUrl ? { returnUrl: o.returnUrl } : {}) };
    default:
      return { checkoutUrl };
  }
}

/** When a push sent at `now` times out. */
export const pushWindowFrom = (now: Date): string => new Date(now.getTime() + PUSH_WINDOW_SECONDS * 1000).toISOString();

/**
 * Where a crypto deposit is paid: a fresh address on an EVM network; on Stellar, where an account must be funded and
 * trust an asset before it can receive, the merchant's one account and a memo per deposit (SEP-29: wallets refuse to
 * pay such an account without one; docs/indonesian-payments.md).
 */
export function cryptoPaymentDetails(crypto: CryptoDef, merchantId: string): PaymentCryptoView {
  if (crypto.blockchainType === 'EVM') return { payoutWallet: newEvmAddress(), network: crypto.network };
  return {
    payoutWallet: merchantStellarAccount(merchantId),
    network: crypto.network,
    memo: newMemoId(),
    memoType: 'id',
  };
}

/** A MEMO_ID: a random unsigned integer of 10 to 16 digits (well within 64 bits), never with a leading zero. */
function newMemoId(): string {
  return (BigInt(randomInt(1, 10_000_000)) * 1_000_000_000n + BigInt(randomInt(0, 1_000_000_000))).toString();
}

/** The merchant's one Stellar account in the sandbox: a G-address derived from its id, the same for every deposit. */
function merchantStellarAccount(merchantId: string): string {
  return stellarAccountId(createHash('sha256').update(`kasir-stellar-account:${merchantId}`).digest());
}

/** A stable 15-digit merchant number for QRIS, derived from the merchant id. */
function qrisMerchantId(merchantId: string): string {
  const n = BigInt('0x' + createHash('sha256').update(merchantId).digest('hex').slice(0, 15));
  return (n % 10n ** 15n).toString().padStart(15, '0');
}

/** Luhn (mod 10) check digit of a digit string, as card and QRIS merchant PANs end with. */
function luhnCheckDigit(digits: string): string {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    // Doubled: every second digit from the right of the number the check digit completes.
    let d = Number(digits[digits.length - 1 - i]) * (i % 2 === 0 ? 2 : 1);
    if (d > 9) d -= 9;
    sum += d;
  }
  return String((10 - (sum % 10)) % 10);
}

/** The QRIS merchant PAN (tag 26, sub-tag 01): 19 digits, the sandbox acquirer's prefix, the merchant, a Luhn check digit. */
function merchantPan(merchantId: string): string {
  const body = `936099990${merchantId.slice(0, 9)}`;
  return body + luhnCheckDigit(body);
}

/** The payer a deposit completed in the sandbox shows: a made-up transaction code and account of the method's bank. */
export function sandboxPayerInfo(
  row: Pick<DepositRow, 'payment_fiat' | 'deposit_type' | 'input_currency' | 'method_code' | 'merchant_id'>,
): PayerInfoView {
  const fiat = paymentFiatOf(row);
  const digits = (n: number) => Array.from({ length: n }, () => randomInt(0, 10)).join('');
  return {
    transactionCode: `TRX${digits(12)}`,
    name: 'Sandbox Payer',
    bankName: fiat.bankName ?? (row.deposit_type === 'crypto' ? row.input_currency : ''),
    accountNumber: row.deposit_type === 'crypto' ? '' : digits(10),
    mid: row.method_code === 'QRIS' ? qrisMerchantId(row.merchant_id) : '',
  };
}

/** A VA number: the bank's prefix plus random digits, 16 in all. Uniqueness is the database's job. */
function newVaNumber(prefix: string): string {
  const width = 16 - prefix.length;
  // One draw of 64 random bits, reduced by rejection so every suffix is equally likely.
  const range = 10n ** BigInt(width);
  const limit = (1n << 64n) - ((1n << 64n) % range);
  for (;;) {
    const n = randomBytes(8).readBigUInt64BE();
    if (n < limit) return prefix + (n % range).toString().padStart(width, '0');
  }
}

/** CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, no final xor), as EMVCo tag 63 requires. */
export const crc16CcittFalse = (data: string | Uint8Array): number =>
  crc16(typeof data === 'string' ? Buffer.from(data, 'utf8') : data, 0xffff);

const tlv = (tag: string, value: string) => {
  if (value.length > 99) throw new RangeError(`EMVCo field ${tag} is longer than 99 characters`);
  return tag + String(value.length).padStart(2, '0') + value;
};

/** Keeps characters EMVCo allows in names (ANS), trimmed to `max`. */
const ans = (s: string, max: number) =>
  s
    .replace(/[^\x20-\x7e]/g, '')
    .slice(0, max)
    .trim() || 'KASIR';

interface QrisOptions {
  merchantName: string;
  merchantCity: string;
  /** Integer IDR amount. */
  amount: string;
  billNumber: string;
  /** 15-digit National Merchant ID part. */
  merchantId: string;
}

/**
 * A dynamic QRIS payload (EMVCo merchant-presented mode): 00 format "01", 01 "12" (dynamic), 26 merchant
 * account, 51 QRIS NMID, 52 MCC, 53 "360" (IDR), 54 amount, 58 "ID", 59 name, 60 city, 61 postal code,
 * 62 additional data with the bill number, 63 CRC-16/CCITT-FALSE over everything before it including "6304".
 */
function qrisPayload(o: QrisOptions): string {
  const body =
    [
      tlv('00', '01'),
      tlv('01', '12'),
      tlv(
        '26',
        tlv('00', 'ID.CO.KASIR.WWW') +
          tlv('01', merchantPan(o.merchantId)) +
          tlv('02', o.merchantId) +
          tlv('03', 'UMI'),
      ),
      tlv('51', tlv('00', 'ID.CO.QRIS.WWW') + tlv('02', `ID10${o.merchantId}`) + tlv('03', 'UMI')),
      tlv('52', '5999'),
      tlv('53', '360'),
      tlv('54', o.amount),
      tlv('58', 'ID'),
      tlv('59', ans(o.merchantName, 25)),
      tlv('60', ans(o.merchantCity, 15)),
      tlv('61', '12190'),
      tlv('62', tlv('01', o.billNumber.slice(0, 25)) + tlv('07', 'KASIR01')),
    ].join('') + '6304';
  return body + crc16CcittFalse(body).toString(16).toUpperCase().padStart(4, '0');
}

/** Parses an EMVCo TLV string into its top-level fields (used by tests and the sandbox). */
export function parseTlv(payload: string): Map<string, string> {
  const out = new Map<string, string>();
  let i = 0;
  while (i < payload.length) {
    const tag = payload.slice(i, i + 2);
    const len = Number(payload.slice(i + 2, i + 4));
    if (!/^\d{2}$/.test(tag) || !Number.isInteger(len) || i + 4 + len > payload.length)
      throw new Error(`bad TLV at ${i}`);
    out.set(tag, payload.slice(i + 4, i + 4 + len));
    i += 4 + len;
  }
  return out;
}

/** A fresh EVM deposit address, in the EIP-55 checksum form wallets and explorers show. */
function newEvmAddress(): string {
  return checksumAddress('0x' + randomBytes(20).toString('hex'));
}
