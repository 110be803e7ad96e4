// The element's checks of a crypto address a shopper types (the refund form, views/refund.ts), as wallets check them,
// so a typo is caught before the form is sent: EIP-55's mixed-case checksum (keccak-256 by @noble/hashes), a Stellar
// account id's StrKey checksum (CRC-16/XMODEM), a Stellar memo's limits. The backend runs the same checks
// (server/common/crypto-address.ts); these stay small, for the chunk that loads them.
import { keccak_256 } from '@noble/hashes/sha3.js';

/** An EVM address: 0x and 40 hex digits; all one case carries no checksum, mixed case must be EIP-55's exactly. */
export function isEvmAddress(address: string): boolean {
  if (!/^0x[0-9a-fA-F]{40}$/.test(address)) return false;
  const hex = address.slice(2);
  if (hex === hex.toLowerCase() || hex === hex.toUpperCase()) return true;
  const hash = keccak_256(new TextEncoder().encode(hex.toLowerCase()));
  for (let i = 0; i < 40; i++) {
    const upper = ((hash[i >> 1] >> (i % 2 ? 0 : 4)) & 15) > 7;
    if (hex[i] !== (upper ? hex[i].toUpperCase() : hex[i].toLowerCase())) return false;
  }
  return true;
}

/** A Stellar account id: G, 55 base32 characters; version byte 6 << 3 and CRC-16/XMODEM of the rest. */
export function isStellarAddress(address: string): boolean {
  if (!/^G[A-Z2-7]{55}$/.test(address)) return false;
  const bytes: number[] = [];
  let bits = 0;
  let value = 0;
  for (const char of address) {
    value = ((value << 5) | 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'.indexOf(char)) & 0xfff;
    bits += 5;
    if (bits > 7) bytes.push((value >> (bits -= 8)) & 255);
  }
  let crc = 0;
  for (const byte of bytes.slice(0, 33)) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = (crc & 0x8000 ? (crc << 1) ^ 0x1021 : crc << 1) & 0xffff;
  }
  return bytes[0] === 48 && bytes[33] === (crc & 255) && bytes[34] === crc >> 8;
}

/** A Stellar memo: a number up to 2^64 - 1, or at most 28 bytes of text. */
export const isStellarMemo = (memo: string) =>
  (/^\d{1,20}$/.test(memo) && BigInt(memo) < 2n ** 64n) || new TextEncoder().encode(memo).length <= 28;
