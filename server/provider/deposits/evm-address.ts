// EVM addresses as wallets and explorers show them: EIP-55 mixed-case checksum (keccak-256 by @noble/hashes).
import { keccak_256 } from '@noble/hashes/sha3.js';

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/**
 * An EVM address in EIP-55 checksum form: each letter of the hex is upper case when the matching nibble of the
 * keccak-256 of the lowercase hex is 8 or more. Anything that is not a 20-byte hex address is returned unchanged.
 */
export function checksumAddress(address: string): string {
  if (!EVM_ADDRESS.test(address)) return address;
  const hex = address.slice(2).toLowerCase();
  const hash = keccak_256(new TextEncoder().encode(hex));
  let out = '0x';
  for (let i = 0; i < hex.length; i++) {
    const nibble = (hash[i >> 1] >> (i % 2 === 0 ? 4 : 0)) & 0xf;
    out += nibble >= 8 ? hex[i].toUpperCase() : hex[i];
  }
  return out;
}
