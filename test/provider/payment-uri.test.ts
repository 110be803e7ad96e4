// The wallet payment request of a crypto deposit (server/common/payment-uri.ts, docs/design.md, "Crypto"): EIP-681 for
// EVM coins and tokens, SEP-7 for Stellar; base units computed from decimal text, never through a float.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { paymentUri, toBaseUnits } from '../../server/common/payment-uri';

const WALLET = '0x52908400098527886e0f7030069857d2e4169ee7';
const STELLAR_WALLET = 'GAHJJJKMOKYE4RVPZEWZTKH5FVI4PA3VL7GK2LFNUBSGBV6OJH7SZTWD';

describe('payment URI', () => {
  describe('toBaseUnits', () => {
    it("moves the decimal point by the asset's places", () => {
      assert.equal(toBaseUnits('9.093665', 6), '9093665');
      assert.equal(toBaseUnits('1.5', 6), '1500000');
      assert.equal(toBaseUnits('25', 2), '2500');
      assert.equal(toBaseUnits('0', 6), '0');
    });

    it('is exact at 18 decimals, where a float is not', () => {
      assert.equal(toBaseUnits('0.002727272727272728', 18), '2727272727272728');
      assert.equal(toBaseUnits('1234.123456789012345678', 18), '1234123456789012345678');
      assert.equal(toBaseUnits('123456789.000000000000000001', 18), '123456789000000000000000001');
    });

    it('takes trailing zeros beyond the places, and refuses any other digit there', () => {
      assert.equal(toBaseUnits('9.093665000000', 6), '9093665');
      assert.equal(toBaseUnits('1.000000000000000000', 18), '1000000000000000000');
      assert.throws(() => toBaseUnits('1.0000001', 6), RangeError);
    });

    it('refuses what is not plain decimal text', () => {
      for (const bad of ['', '-1', '1e18', '1.', '.5', ' 1', '0x10', 'NaN', '1,5'])
        assert.throws(() => toBaseUnits(bad, 6), RangeError, bad);
    });

    it('agrees with an integer reference for any amount and precision', () => {
      fc.assert(
        fc.property(
          fc.bigInt({ min: 0n, max: 10n ** 30n }),
          fc.integer({ min: 0, max: 18 }),
          fc.integer({ min: 0, max: 4 }),
          (units, places, zeros) => {
            const digits = units.toString().padStart(places + 1, '0');
            const text = places ? `${digits.slice(0, -places)}.${digits.slice(-places)}${'0'.repeat(zeros)}` : digits;
            assert.equal(toBaseUnits(text, places), units.toString());
          },
        ),
      );
    });
  });

  describe('paymentUri', () => {
    it('EVM native coin: EIP-681 with the value in wei', () => {
      const uri = paymentUri({
        blockchainType: 'EVM',
        payoutWallet: WALLET,
        amount: '0.002727272727273000',
        decimals: 18,
        chainId: 1,
        assetAddress: '',
        symbol: 'ETH',
      });
      assert.equal(uri, `ethereum:${WALLET}@1?value=2727272727273000`);
    });

    it("EVM token: EIP-681 transfer to the wallet, amount in the token's base units", () => {
      const token = '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359';
      const uri = paymentUri({
        blockchainType: 'EVM',
        payoutWallet: WALLET,
        amount: '9.093665',
        decimals: 6,
        chainId: 137,
        assetAddress: token,
        symbol: 'USDC',
      });
      assert.equal(uri, `ethereum:${token}@137/transfer?address=${WALLET}&uint256=9093665`);
    });

    it('Stellar native XLM: SEP-7 pay without an asset', () => {
      const uri = paymentUri({
        blockchainType: 'STELLAR',
        payoutWallet: STELLAR_WALLET,
        amount: '30.3030304',
        decimals: 7,
        chainId: 148,
        assetAddress: '',
        symbol: 'XLM',
      });
      assert.equal(uri, `web+stellar:pay?destination=${STELLAR_WALLET}&amount=30.3030304`);
    });

    it('Stellar issued asset: SEP-7 pay with asset_code and asset_issuer, the amount without trailing zeros', () => {
      const issuer = 'GA5ZSEJYB37JRC5AVCIA5MOP4RHTM335X2KGX3IHOJAPP5RE34K4KZVN';
      const uri = paymentUri({
        blockchainType: 'STELLAR',
        payoutWallet: STELLAR_WALLET,
        amount: '9.0936650',
        decimals: 7,
        chainId: 148,
        assetAddress: issuer,
        symbol: 'USDC',
      });
      assert.equal(
        uri,
        `web+stellar:pay?destination=${STELLAR_WALLET}&amount=9.093665&asset_code=USDC&asset_issuer=${issuer}`,
      );
      const params = new URL(uri).searchParams;
      assert.equal(params.get('asset_issuer'), issuer);
    });

    it("refuses an amount finer than the asset's precision on every network", () => {
      assert.throws(
        () =>
          paymentUri({
            blockchainType: 'EVM',
            payoutWallet: WALLET,
            amount: '1.0000001',
            decimals: 6,
            chainId: 1,
            assetAddress: '0x1',
            symbol: 'USDC',
          }),
        RangeError,
      );
      assert.throws(
        () =>
          paymentUri({
            blockchainType: 'STELLAR',
            payoutWallet: STELLAR_WALLET,
            amount: '1.00000001',
            decimals: 7,
            chainId: 148,
            assetAddress: '',
            symbol: 'XLM',
          }),
        RangeError,
      );
    });

    it('Stellar: adds the memo and its type (SEP-7), checked as the network takes it', () => {
      const base = {
        blockchainType: 'STELLAR' as const,
        payoutWallet: STELLAR_WALLET,
        amount: '30.3030304',
        decimals: 7,
        chainId: 148,
        assetAddress: '',
        symbol: 'XLM',
      };
      assert.equal(
        paymentUri({ ...base, memo: '1234567890123', memoType: 'id' }),
        `web+stellar:pay?destination=${STELLAR_WALLET}&amount=30.3030304&memo=1234567890123&memo_type=MEMO_ID`,
      );
      assert.equal(
        paymentUri({ ...base, memo: 'order 42', memoType: 'text' }),
        `web+stellar:pay?destination=${STELLAR_WALLET}&amount=30.3030304&memo=order%2042&memo_type=MEMO_TEXT`,
      );
      assert.throws(() => paymentUri({ ...base, memo: '18446744073709551616', memoType: 'id' }), /unsigned 64-bit/);
      assert.throws(() => paymentUri({ ...base, memo: '12a', memoType: 'id' }), /unsigned 64-bit/);
      assert.throws(() => paymentUri({ ...base, memo: 'x'.repeat(29), memoType: 'text' }), /1 to 28 bytes/);
    });
  });
});
