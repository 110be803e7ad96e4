// Crypto addresses as wallets write and check them, for both servers: an EVM address's EIP-55 mixed-case checksum
// (keccak-256 by @noble/hashes), a Stellar account id's StrKey (base32 of version byte, key and CRC-16/XMODEM), and a
// Stellar memo's limits. The sandbox writes deposit addresses with them; the merchant backend refuses a refund address
// with a typo (docs/refunds.md). The element has its own copy of the checks (widget/crypto-address.ts).
import { keccak_256 } from '@noble/hashes/sha3.js';

const EVM_HEX = /^0x[0-9a-fA-F]{40}$/;

/** The EIP-55 letter cases of 40 lowercase hex digits: upper where the keccak-256 of the text has a nibble of 8 or more. */
function eip55(hex: string): string {
  const hash = keccak_256(new TextEncoder().encode(hex));
  let out = '';
  for (let i = 0; i < hex.length; i++) {
    const nibble = (hash[i >> 1] >> (i % 2 === 0 ? 4 : 0)) & 0xf;
    out += nibble >= 8 ? hex[i].toUpperCase() : hex[i];
  }
  return out;
}

/** An EVM address in its EIP-55 checksum form; anything that is not a 20-byte hex address is returned unchanged. */
export function checksumAddress(address: string): string {
  return EVM_HEX.test(address) ? '0x' + eip55(address.slice(2).toLowerCase()) : address;
}

/** Why `address` is no EVM address, in words for a shopper after the field's name; undefined when it is one. */
export function evmAddressProblem(address: string): string | undefined {
  if (!EVM_HEX.test(address)) return 'must be 0x followed by 40 hexadecimal characters';
  const hex = address.slice(2);
  // All one case carries no checksum (EIP-55 allows it); mixed case must be the checksum exactly.
  if (hex === hex.toLowerCase() || hex === hex.toUpperCase()) return undefined;
  if (eip55(hex.toLowerCase()) !== hex) return 'has a wrong checksum (EIP-55): check it for a typo';
  return undefined;
}

/**
 * CRC-16 with polynomial 0x1021, no reflection and no final xor, from `initial`: 0 is CRC-16/XMODEM (StrKey's
 * checksum), 0xFFFF is CRC-16/CCITT-FALSE (EMVCo's, a QRIS payload's tag 63).
 */
export function crc16(bytes: Uint8Array, initial = 0): number {
  let crc = initial;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
/** StrKey's version byte of an account id ("G..."). */
const ACCOUNT_ID_VERSION = 6 << 3;

/** RFC 4648 base32 without padding, as StrKey writes it. */
function base32(bytes: Uint8Array): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = ((value << 8) | byte) & 0xfff;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

/** The Stellar account id of a 32-byte public key: StrKey "G..." of version byte, key and its CRC little-endian. */
export function stellarAccountId(key: Uint8Array): string {
  const payload = new Uint8Array(33);
  payload[0] = ACCOUNT_ID_VERSION;
  payload.set(key, 1);
  const crc = crc16(payload);
  return base32(Uint8Array.from([...payload, crc & 0xff, crc >> 8]));
}

/** Why `address` is no Stellar account id (G..., 56 characters); undefined when it is one. */
export function stellarAddressProblem(address: string): string | undefined {
  if (!/^G[A-Z2-7]{55}$/.test(address))
    return 'must be a Stellar account id: G followed by 55 letters A-Z and digits 2-7';
  const bytes = new Uint8Array(35);
  let bits = 0;
  let value = 0;
  let at = 0;
  for (const char of address) {
    value = ((value << 5) | BASE32.indexOf(char)) & 0xfff;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      bytes[at++] = (value >> bits) & 0xff;
    }
  }
  const crc = crc16(bytes.subarray(0, 33));
  if (bytes[0] !== ACCOUNT_ID_VERSION || bytes[33] !== (crc & 0xff) || bytes[34] !== crc >> 8) {
    return 'has a wrong checksum: check it for a typo';
  }
  return undefined;
}

/** Whether `address` is a Stellar account id with a sound checksum. */
export const isStellarAccountId = (address: string): boolean => stellarAddressProblem(address) === undefined;

const MAX_MEMO_ID = 2n ** 64n - 1n;

/** Why `memo` is no Stellar memo (a number up to 2^64-1, or text of at most 28 bytes); undefined when it is one. */
export function stellarMemoProblem(memo: string): string | undefined {
  if (/^\d{1,20}$/.test(memo) && BigInt(memo) <= MAX_MEMO_ID) return undefined;
  if (new TextEncoder().encode(memo).length > 28) return 'must be at most 28 bytes of text, or a number';
  return undefined;
}
