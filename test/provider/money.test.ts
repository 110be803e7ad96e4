import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { placesOf, rateOf } from '../../server/provider/catalog/index';
import { deriveInputAmount, feeOf, money, outputOf, roundTo, toNumber, toText } from '../../server/provider/money';

describe('money', () => {
  it('parses JSON numbers exactly as written, never through binary floating point', () => {
    assert.equal(toText(money(0.1).plus(money(0.2))), '0.3');
    assert.equal(toText(money(1e-7)), '0.0000001');
    assert.equal(toText(money('123456789012345.678901')), '123456789012345.678901');
    assert.equal(toNumber('150000'), 150000);
  });

  it('rounds half-up to the currency precision', () => {
    assert.equal(placesOf('IDR'), 0);
    assert.equal(placesOf('USD'), 2);
    assert.equal(placesOf('USDC-POLYGON'), 6);
    assert.equal(placesOf('ETH-ETHEREUM'), 18);
    assert.equal(placesOf('XLM-STELLAR'), 7);
    assert.equal(toText(roundTo(money('1049.5'), 0)), '1050');
    assert.equal(toText(roundTo(money('1049.4999'), 0)), '1049');
    assert.equal(toText(roundTo(money('2.675'), 2)), '2.68'); // 2.675 in binary floating point rounds to 2.67
    assert.equal(toText(roundTo(money('-2.5'), 0)), '-3');
  });

  it('computes fee = feeFlat + amount x feePercentage / 100, rounded to the currency', () => {
    assert.equal(toText(feeOf(money(150000), money(0), money('0.7'), 0)), '1050');
    assert.equal(toText(feeOf(money(150050), money(0), money('0.7'), 0)), '1050'); // 1050.35 -> 1050
    assert.equal(toText(feeOf(money(150072), money(0), money('0.7'), 0)), '1051'); // 1050.504 -> 1051
    assert.equal(toText(feeOf(money(100), money(4000), money('1.5'), 0)), '4002'); // 4001.5 -> 4002 (half-up)
    assert.equal(toText(feeOf(money('10.05'), money('0.3'), money('2.9'), 2)), '0.59'); // 0.3 + 0.29145 = 0.59145
  });

  it('computes outputAmount = (inputAmount - fee) x rate, rounded to the output currency', () => {
    assert.equal(toText(outputOf(money(150000), money(4000), money(1), 0)), '146000');
    const rate = rateOf('IDR', 'USDC-POLYGON')!;
    assert.equal(toText(rate), '0.000060624431646'); // 1 / 16495 to 12 significant digits
    assert.equal(toText(outputOf(money(150000), money(1050), rate, 6)), '9.030009'); // 148950 x rate = 9.0300090936717
    assert.equal(toText(rateOf('XLM-STELLAR', 'IDR')!), '4950');
    assert.equal(rateOf('IDR', 'NOPE'), undefined);
  });

  it('derives the smallest input whose output after fee reaches the target', () => {
    // OVO 1.5%: 101523 - round(1522.845) = 100000, while 101522 - round(1522.83) = 99999.
    const o = { feeFlat: money(0), feePercentage: money('1.5'), rate: money(1), inPlaces: 0, outPlaces: 0 };
    assert.equal(toText(deriveInputAmount({ ...o, target: money(100000) })), '101523');
    // VA flat 4000: exactly target + 4000.
    assert.equal(toText(deriveInputAmount({ ...o, feePercentage: money(0), feeFlat: money(4000), target: money(150000) })), '154000');
  });

  it('derivation is minimal for any target, fee and rate (property)', () => {
    fc.assert(fc.property(
      fc.integer({ min: 1, max: 100_000_000 }),
      fc.integer({ min: 0, max: 10_000 }),
      fc.integer({ min: 0, max: 500 }),
      fc.constantFrom('1', '0.000060624431646', '0.5', '3'),
      (target, flat, pctBasis, rateText) => {
        const feeFlat = money(flat);
        const feePercentage = money(pctBasis).dividedBy(100);
        const rate = money(rateText);
        const outPlaces = rateText === '1' ? 0 : 6;
        const t = money(target).dividedBy(rateText === '1' ? 1 : 1000);
        const input = deriveInputAmount({ target: t, feeFlat, feePercentage, rate, inPlaces: 0, outPlaces });
        const out = (x: ReturnType<typeof money>) => outputOf(x, feeOf(x, feeFlat, feePercentage, 0), rate, outPlaces);
        assert.ok(out(input).greaterThanOrEqualTo(t), 'reaches the target');
        if (input.greaterThan(0)) assert.ok(out(input.minus(1)).lessThan(t), 'one unit less does not');
      },
    ), { numRuns: 300 });
  });
});
