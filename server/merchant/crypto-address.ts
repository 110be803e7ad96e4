// The crypto addresses a shopper may give for a refund (docs/refunds.md), checked as wallets check them, so a typo is
// refused before the shop sends money to it: an EVM address with its EIP-55 checksum (keccak-256 by @noble/hashes),
// a Stellar account id with its StrKey checksum (CRC-16/XMODEM), and a Stellar memo within the network's limits.
// The element runs the same checks before it sends the form (widget/views/refund.ts).
import { keccak_256 } from '@noble/hashes/sha3.js';

const EVM_HEX = /^0x[0-9a-fA-F]{40}$/;

/** Why `address` is no EVM address, in words for a shopper after the field's name; undefined when it is one. */
export function evmAddressProblem(address: string): string | undefined {
  if (!EVM_HEX.test(address)) return 'must be 0x followed by 40 hexadecimal characters';
  const hex = address.slice(2);
  // All one case carries no checksum (EIP-55 allows it); mixed case must be the checksum exactly.
  if (hex === hex.toLowerCase() || hex === hex.toUpperCase()) return undefined;
  const hash = keccak_256(new TextEncoder().encode(hex.toLowerCase()));
  for (let i = 0; i < 40; i++) {
    const nibble = (hash[i >> 1] >> (i % 2 === 0 ? 4 : 0)) & 0xf;
    const expected = nibble >= 8 ? hex[i].toUpperCase() : hex[i].toLowerCase();
    if (hex[i] !== expected) return 'has a wrong checksum (EIP-55): check it for a typo';
  }
  return undefined;
}

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
/** StrKey's version byte of an account id ("G..."). */
const ACCOUNT_ID_VERSION = 6 << 3;

/** CRC-16/XMODEM (polynomial 0x1021, initial 0): the checksum of Stellar's StrKey. */
function crc16Xmodem(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
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
    value = (value << 5) | BASE32.indexOf(char);
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      bytes[at++] = (value >> bits) & 0xff;
    }
  }
  const crc = crc16Xmodem(bytes.subarray(0, 33));
  if (bytes[0] !== ACCOUNT_ID_VERSION || bytes[33] !== (crc & 0xff) || bytes[34] !== crc >> 8) {
    return 'has a wrong checksum: check it for a typo';
  }
  return undefined;
}

const MAX_MEMO_ID = 18446744073709551615n;

/** Why `memo` is no Stellar memo (a number up to 2^64-1, or text of at most 28 bytes); undefined when it is one. */
export function stellarMemoProblem(memo: string): string | undefined {
  if (/^\d{1,20}$/.test(memo) && BigInt(memo) <= MAX_MEMO_ID) return undefined;
  if (new TextEncoder().encode(memo).length > 28) return 'must be at most 28 bytes of text, or a number';
  return undefined;
}
