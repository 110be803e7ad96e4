// The crypto address checks, each side's one module: the servers' (server/common/crypto-address.ts: the sandbox writes
// deposit addresses with it, the merchant backend checks refund addresses) and the element's (widget/crypto-address.ts,
// pure code run here in Node). Both must agree with the published vectors and with each other.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  checksumAddress,
  crc16,
  evmAddressProblem,
  isStellarAccountId,
  stellarAccountId,
  stellarAddressProblem,
  stellarMemoProblem,
} from '../../server/common/crypto-address';
import { isEvmAddress, isStellarAddress, isStellarMemo } from '../../widget/crypto-address';

// EIP-55's own examples.
const EIP55 = [
  '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
  '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
  '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
];
/** The same address with the case of its first letter turned: a typo the checksum catches. */
const turned = (address: string) => {
  const i = address.slice(2).search(/[a-fA-F]/) + 2;
  const c = address[i];
  return address.slice(0, i) + (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase()) + address.slice(i + 1);
};
/** The account id of the all-zero key, as Stellar's tools write it. */
const ZERO_ACCOUNT = 'GAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAWHF';

describe('crypto addresses: EIP-55', () => {
  it('writes the checksum form of EIP-55 examples from lower case', () => {
    for (const address of EIP55) assert.equal(checksumAddress(address.toLowerCase()), address);
    assert.equal(checksumAddress('not an address'), 'not an address');
  });

  it('accepts mixed case that is the checksum, and all one case; refuses a turned letter and bad hex', () => {
    for (const address of EIP55) {
      for (const ok of [address, address.toLowerCase(), '0x' + address.slice(2).toUpperCase()]) {
        assert.equal(evmAddressProblem(ok), undefined, ok);
        assert.equal(isEvmAddress(ok), true, ok);
      }
      const typo = turned(address);
      assert.match(evmAddressProblem(typo)!, /wrong checksum/, typo);
      assert.equal(isEvmAddress(typo), false, typo);
    }
    for (const bad of ['0x123', '5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', '0x' + 'g'.repeat(40)]) {
      assert.match(evmAddressProblem(bad)!, /40 hexadecimal/, bad);
      assert.equal(isEvmAddress(bad), false, bad);
    }
  });
});

describe('crypto addresses: Stellar StrKey', () => {
  it('CRC-16 with XMODEM and CCITT-FALSE starts gives the catalogued check values', () => {
    const digits = new TextEncoder().encode('123456789');
    assert.equal(crc16(digits), 0x31c3);
    assert.equal(crc16(digits, 0xffff), 0x29b1);
  });

  it('writes and accepts account ids; refuses a changed character, a wrong version and bad text', () => {
    assert.equal(stellarAccountId(new Uint8Array(32)), ZERO_ACCOUNT);
    const key = Uint8Array.from({ length: 32 }, (_, i) => (i * 37 + 11) & 0xff);
    for (const id of [ZERO_ACCOUNT, stellarAccountId(key)]) {
      assert.equal(stellarAddressProblem(id), undefined, id);
      assert.equal(isStellarAccountId(id), true);
      assert.equal(isStellarAddress(id), true, id);
      // One character changed: the checksum no longer matches.
      const typo = id.slice(0, 10) + (id[10] === 'A' ? 'B' : 'A') + id.slice(11);
      assert.match(stellarAddressProblem(typo)!, /wrong checksum/, typo);
      assert.equal(isStellarAddress(typo), false, typo);
    }
    // A seed ("S...") is no account id, and neither is anything short of 56 characters.
    for (const bad of ['SAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAWHF', ZERO_ACCOUNT.slice(0, 55)]) {
      assert.match(stellarAddressProblem(bad)!, /Stellar account id/, bad);
      assert.equal(isStellarAddress(bad), false, bad);
    }
  });

  it('memos: a number up to 2^64-1 or 28 bytes of text', () => {
    for (const ok of ['18446744073709551615', '0', 'x'.repeat(28), 'order 42']) {
      assert.equal(stellarMemoProblem(ok), undefined, ok);
      assert.equal(isStellarMemo(ok), true, ok);
    }
    for (const bad of ['x'.repeat(29), 'é'.repeat(15)]) {
      assert.ok(stellarMemoProblem(bad), bad);
      assert.equal(isStellarMemo(bad), false, bad);
    }
  });
});
