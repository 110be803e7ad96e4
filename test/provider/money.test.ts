// The provider's money type (server/provider/deposits/money.ts): exact parsing, storage text, rounding. The pricing rules
// that compute with it are tested in pricing.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { placesOf } from '../../server/provider/catalog/index';
import { ceilTo, money, roundTo, toNumber, toText } from '../../server/provider/deposits/money';

describe('money', () => {
  it('parses JSON numbers exactly as written, never through binary floating point', () => {
    assert.equal(toText(money(0.1).plus(money(0.2))), '0.3');
    assert.equal(toText(money(1e-7)), '0.0000001');
    assert.equal(toText(money('123456789012345.678901')), '123456789012345.678901');
  });

  it('turns stored decimal text back into the JSON number of the interface', () => {
    assert.equal(toNumber('150000'), 150000);
  });

  it('refuses a number that is not finite', () => {
    assert.throws(() => money(Number.NaN), RangeError);
    assert.throws(() => money(Number.POSITIVE_INFINITY), RangeError);
  });

  // A crypto is priced in min(decimal, 8) places (docs/design.md, "The shopper's choice, on any device"): ETH's 18 on
  // chain, 8 in a price.
  const places: Array<[string, number]> = [
    ['IDR', 0],
    ['USD', 2],
    ['USDC-POLYGON', 6],
    ['ETH-ETHEREUM', 8],
    ['POL-POLYGON', 8],
    ['XLM-STELLAR', 7],
  ];
  for (const [code, expected] of places) {
    it(`prices ${code} in ${expected} decimal places`, () => {
      assert.equal(placesOf(code), expected);
    });
  }

  const halfUp: Array<[string, number, string]> = [
    ['1049.5', 0, '1050'],
    ['1049.4999', 0, '1049'],
    ['2.675', 2, '2.68'], // 2.675 in binary floating point rounds to 2.67
    ['-2.5', 0, '-3'],
  ];
  for (const [value, to, expected] of halfUp) {
    it(`rounds ${value} half-up to ${expected} at ${to} places`, () => {
      assert.equal(toText(roundTo(money(value), to)), expected);
    });
  }

  it('rounds up towards +infinity with ceilTo', () => {
    assert.equal(toText(ceilTo(money('1049.0001'), 0)), '1050');
    assert.equal(toText(ceilTo(money('-1049.9'), 0)), '-1049');
  });

  it('round-trips every JSON number: the stored text reads back as the same number (property)', () => {
    fc.assert(
      fc.property(
        fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Object.is(n, -0)),
        (n) => {
          const text = toText(money(n));
          assert.doesNotMatch(text, /e/i, 'plain notation, no exponent');
          assert.equal(Number(text), n);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('round-trips every decimal string exactly (property)', () => {
    const decimal = fc
      .tuple(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), fc.integer({ min: 0, max: 30 }))
      .map(([units, scale]) => {
        const digits = (units < 0n ? -units : units).toString().padStart(scale + 1, '0');
        const text = scale ? `${digits.slice(0, -scale)}.${digits.slice(-scale)}` : digits;
        return units < 0n ? `-${text}` : text;
      });
    fc.assert(
      fc.property(decimal, (text) => {
        const stored = toText(money(text));
        assert.ok(money(stored).equals(money(text)), `${text} -> ${stored}`);
        assert.equal(toText(money(stored)), stored, 'storage text is canonical');
        assert.doesNotMatch(stored, /e|\.\d*0$/i, 'no exponent, no trailing zeros');
      }),
      { numRuns: 500 },
    );
  });
});
