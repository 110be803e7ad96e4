// Pricing (server/provider/deposits/pricing.ts): rates, fees, rounding and the amounts of a deposit request. The
// properties check the rules of docs/design.md, "Deposits" against a reference computed in integers (BigInt), never in
// floats.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  CRYPTOS,
  PAYMENT_METHODS,
  findCrypto,
  findPaymentMethod,
  placesOf,
  type RateTable,
} from '../../server/provider/catalog/index';
import { DEFAULT_PRICES_IDR } from '../../server/provider/instance/defaults';
import {
  deriveInputAmount,
  estimateConversion,
  feeOf,
  outputOf,
  priceCryptoDeposit,
  priceFiatDeposit,
  quoteCryptoCovering,
  quoteMethod,
  rateOf,
  type FiatPricingRequest,
} from '../../server/provider/deposits/pricing';
import { Money, money, toText, type Money as MoneyValue } from '../../server/provider/deposits/money';

const RATES = DEFAULT_PRICES_IDR;

/** Decimal text of `units` x 10^-places (exact). */
function fromUnits(units: bigint, places: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(places + 1, '0');
  const text = places ? `${digits.slice(0, -places)}.${digits.slice(-places)}` : digits;
  return negative ? `-${text}` : text;
}

/** n / d rounded half away from zero (decimal.js ROUND_HALF_UP), d > 0. */
function divHalfUp(n: bigint, d: bigint): bigint {
  const magnitude = ((n < 0n ? -n : n) * 2n + d) / (2n * d);
  return n < 0n ? -magnitude : magnitude;
}

/** A value rounded to `places`, from an exact units x 10^-scale. */
function roundUnits(units: bigint, scale: number, places: number): bigint {
  return scale >= places ? divHalfUp(units, 10n ** BigInt(scale - places)) : units * 10n ** BigInt(places - scale);
}

const same = (actual: MoneyValue, expected: string, what: string) =>
  assert.ok(actual.equals(money(expected)), `${what}: ${toText(actual)} != ${expected}`);

const isMoney = (value: unknown) =>
  value instanceof Money && (value.constructor as typeof Money).precision === Money.precision;

describe('pricing', () => {
  describe('rates', () => {
    it('derives a rate as the quotient of two prices, to 12 significant digits', () => {
      assert.equal(toText(rateOf(RATES, 'IDR', 'USDC-POLYGON')!), '0.000060624431646'); // 1 / 16495 to 12 significant digits
      assert.equal(toText(rateOf(RATES, 'XLM-STELLAR', 'IDR')!), '4950');
    });

    it('has no rate for a currency missing from the table', () => {
      assert.equal(rateOf(RATES, 'IDR', 'NOPE'), undefined);
    });

    it("takes no property of the table's prototype for a currency", () => {
      assert.equal(rateOf(RATES, 'IDR', 'constructor'), undefined);
      assert.equal(rateOf(RATES, 'toString', 'IDR'), undefined);
    });

    it('is exactly 1 between a currency and itself', () => {
      for (const code of Object.keys(RATES)) assert.equal(toText(rateOf(RATES, code, code)!), '1');
    });

    it('reads the table it is given, not a global one', () => {
      const table: RateTable = { ...RATES, USD: '15000' };
      assert.equal(toText(rateOf(table, 'USD', 'IDR')!), '15000');
      assert.equal(toText(rateOf(RATES, 'USD', 'IDR')!), '16500');
    });

    it('is the price quotient within half a unit of its 12th significant digit (property)', () => {
      const codes = Object.keys(RATES);
      fc.assert(
        fc.property(fc.constantFrom(...codes), fc.constantFrom(...codes), (from, to) => {
          const rate = rateOf(RATES, from, to)!;
          assert.ok(rate.precision(true) <= 12, `${from}/${to}: ${toText(rate)}`);
          const exact = new Money(RATES[from]).dividedBy(RATES[to]);
          const halfUnit = new Money(10).pow(exact.e - 11).dividedBy(2);
          assert.ok(rate.minus(exact).abs().lessThanOrEqualTo(halfUnit), `${from}/${to}`);
        }),
        { numRuns: 300 },
      );
    });
  });

  describe('fees', () => {
    const fees: Array<[string, string, string, number, string]> = [
      ['150000', '0', '0.7', 0, '1050'],
      ['150050', '0', '0.7', 0, '1050'], // 1050.35 -> 1050
      ['150072', '0', '0.7', 0, '1051'], // 1050.504 -> 1051
      ['100', '4000', '1.5', 0, '4002'], // 4001.5 -> 4002 (half-up)
      ['10.05', '0.3', '2.9', 2, '0.59'], // 0.3 + 0.29145 = 0.59145
    ];
    for (const [amount, flat, percentage, places, expected] of fees) {
      it(`charges ${expected} on ${amount} with ${flat} flat and ${percentage}% at ${places} places`, () => {
        assert.equal(toText(feeOf(money(amount), money(flat), money(percentage), places)), expected);
      });
    }

    it("is feeFlat + input x percentage / 100, half-up to the currency's places (property)", () => {
      fc.assert(
        fc.property(
          fc.bigInt({ min: 0n, max: 10n ** 15n }), // input, in units of the currency
          fc.bigInt({ min: 0n, max: 10n ** 8n }), // feeFlat, in units
          fc.integer({ min: 0, max: 9999 }), // percentage, in hundredths of a percent
          fc.constantFrom(0, 2, 6),
          (input, flat, hundredths, places) => {
            const fee = feeOf(
              money(fromUnits(input, places)),
              money(fromUnits(flat, places)),
              money(fromUnits(BigInt(hundredths), 2)),
              places,
            );
            const expected = divHalfUp(flat * 10_000n + input * BigInt(hundredths), 10_000n);
            same(fee, fromUnits(expected, places), 'fee');
            assert.ok(isMoney(fee));
          },
        ),
        { numRuns: 500 },
      );
    });
  });

  describe('output amounts', () => {
    it('is (input - fee) x rate for a same-currency deposit', () => {
      assert.equal(toText(outputOf(money(150000), money(4000), money(1), 0)), '146000');
    });

    it('rounds a conversion into a crypto to its places', () => {
      const rate = rateOf(RATES, 'IDR', 'USDC-POLYGON')!;
      assert.equal(toText(outputOf(money(150000), money(1050), rate, 6)), '9.030009'); // 148950 x rate = 9.0300090936717
    });

    it("is (input - fee) x rate, half-up to the output currency's places (property)", () => {
      fc.assert(
        fc.property(
          fc.bigInt({ min: 0n, max: 10n ** 12n }),
          fc.bigInt({ min: 0n, max: 10n ** 8n }),
          fc.bigInt({ min: 1n, max: 10n ** 16n }), // the rate's digits
          fc.integer({ min: 0, max: 15 }), // the rate's places
          fc.constantFrom(0, 2),
          fc.constantFrom(0, 2, 6, 7, 18),
          (input, fee, rateUnits, ratePlaces, inPlaces, outPlaces) => {
            const output = outputOf(
              money(fromUnits(input, inPlaces)),
              money(fromUnits(fee, inPlaces)),
              money(fromUnits(rateUnits, ratePlaces)),
              outPlaces,
            );
            const expected = roundUnits((input - fee) * rateUnits, inPlaces + ratePlaces, outPlaces);
            same(output, fromUnits(expected, outPlaces), 'output');
            assert.ok(isMoney(output));
          },
        ),
        { numRuns: 500 },
      );
    });
  });

  describe('the input for a wanted output', () => {
    it('is the smallest input whose output after a percentage fee reaches the target', () => {
      // OVO 1.5%: 101523 - round(1522.845) = 100000, while 101522 - round(1522.83) = 99999.
      const o = { feeFlat: money(0), feePercentage: money('1.5'), rate: money(1), inPlaces: 0, outPlaces: 0 };
      assert.equal(toText(deriveInputAmount({ ...o, target: money(100000) })), '101523');
    });

    it('is exactly the target plus a flat fee', () => {
      const o = { feeFlat: money(4000), feePercentage: money(0), rate: money(1), inPlaces: 0, outPlaces: 0 };
      assert.equal(toText(deriveInputAmount({ ...o, target: money(150000) })), '154000');
    });

    it('is minimal for any target, fee and rate: one unit less falls short (property)', () => {
      fc.assert(
        fc.property(
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
            const out = (x: MoneyValue) => outputOf(x, feeOf(x, feeFlat, feePercentage, 0), rate, outPlaces);
            assert.ok(out(input).greaterThanOrEqualTo(t), 'reaches the target');
            if (input.greaterThan(0)) assert.ok(out(input.minus(1)).lessThan(t), 'one unit less does not');
          },
        ),
        { numRuns: 300 },
      );
    });

    it('is minimal in cents for a currency with 2 places, for any rate of the table (property)', () => {
      const codes = Object.keys(RATES).filter((code) => code !== 'USD');
      fc.assert(
        fc.property(
          fc.constantFrom(...codes),
          fc.integer({ min: 1, max: 10 ** 9 }), // the target, in units of the output currency
          fc.integer({ min: 0, max: 500 }), // feeFlat in cents
          fc.integer({ min: 0, max: 9900 }), // percentage in hundredths
          (output, targetUnits, flatCents, hundredths) => {
            const outPlaces = Math.min(placesOf(output)!, 6);
            const o = {
              feeFlat: money(fromUnits(BigInt(flatCents), 2)),
              feePercentage: money(fromUnits(BigInt(hundredths), 2)),
              rate: rateOf(RATES, 'USD', output)!,
              inPlaces: 2,
              outPlaces,
            };
            const target = money(fromUnits(BigInt(targetUnits), outPlaces));
            const input = deriveInputAmount({ ...o, target });
            const out = (x: MoneyValue) => outputOf(x, feeOf(x, o.feeFlat, o.feePercentage, 2), o.rate, outPlaces);
            assert.ok(isMoney(input), 'a Money, not a number or a default-precision Decimal');
            assert.ok(input.decimalPlaces() <= 2);
            assert.ok(out(input).greaterThanOrEqualTo(target), `${toText(input)} reaches ${toText(target)} ${output}`);
            if (input.greaterThan(0))
              assert.ok(out(input.minus('0.01')).lessThan(target), `${toText(input)} - 0.01 falls short`);
          },
        ),
        { numRuns: 300 },
      );
    });

    it('refuses a fee of 100% or more and a rate that is not positive', () => {
      const o = { target: money(1), feeFlat: money(0), rate: money(1), inPlaces: 0, outPlaces: 0 };
      assert.throws(() => deriveInputAmount({ ...o, feePercentage: money(100) }), RangeError);
      assert.throws(() => deriveInputAmount({ ...o, feePercentage: money(0), rate: money(0) }), RangeError);
    });
  });

  describe('quotes of a payment method', () => {
    const idrMethods = PAYMENT_METHODS.filter((m) => m.currency === 'IDR');

    it("prices an input amount with the method's own fee and the rate (property)", () => {
      fc.assert(
        fc.property(
          fc.constantFrom(...idrMethods),
          fc.integer({ min: 1, max: 60_000_000 }),
          fc.constantFrom('IDR', 'USD', 'USDC-POLYGON'),
          (method, amount, output) => {
            const quote = quoteMethod(method, output, { input: money(amount) }, RATES);
            const fee = feeOf(money(amount), money(method.feeFlat), money(method.feePercentage), 0);
            same(quote.fee, toText(fee), 'fee');
            same(
              quote.outputAmount,
              toText(outputOf(money(amount), fee, rateOf(RATES, 'IDR', output)!, placesOf(output)!)),
              'output',
            );
            const within =
              amount >= Number(method.minimumAmount) &&
              amount <= Number(method.maximumAmount) &&
              quote.outputAmount.greaterThan(0);
            assert.equal(quote.withinLimits, within);
            for (const value of [quote.inputAmount, quote.fee, quote.rate, quote.outputAmount])
              assert.ok(isMoney(value), 'never a float');
          },
        ),
        { numRuns: 300 },
      );
    });

    it('asks the smallest input for a wanted output (property)', () => {
      fc.assert(
        fc.property(fc.constantFrom(...idrMethods), fc.integer({ min: 1, max: 10_000_000 }), (method, wanted) => {
          const quote = quoteMethod(method, 'IDR', { output: money(wanted) }, RATES);
          assert.ok(quote.outputAmount.greaterThanOrEqualTo(wanted));
          const less = quoteMethod(method, 'IDR', { input: quote.inputAmount.minus(1) }, RATES);
          assert.ok(
            less.outputAmount.lessThan(wanted),
            `${method.code}: ${toText(quote.inputAmount)} is the smallest for ${wanted}`,
          );
        }),
        { numRuns: 300 },
      );
    });
  });

  describe('deposit requests', () => {
    const fiat = (over: Partial<FiatPricingRequest> = {}): FiatPricingRequest => ({
      inputCurrency: 'IDR',
      inputAmount: 150000,
      outputCurrency: 'IDR',
      paymentMethod: 'BCA_VA',
      ...over,
    });

    it('prices a QRIS deposit with its percentage fee', () => {
      const quote = priceFiatDeposit(fiat({ paymentMethod: 'QRIS' }), RATES);
      assert.deepEqual([toText(quote.fee), toText(quote.outputAmount)], ['1050', '148950']);
      assert.equal(quote.method, findPaymentMethod('QRIS'));
    });

    it('derives the input of a deposit asked for by its output', () => {
      const quote = priceFiatDeposit(
        fiat({ inputAmount: undefined, outputAmount: { fiat: 100000 }, paymentMethod: 'OVO' }),
        RATES,
      );
      assert.deepEqual(
        [toText(quote.inputAmount), toText(quote.fee), toText(quote.outputAmount)],
        ['101523', '1523', '100000'],
      );
    });

    const refusals: Array<[string, Partial<FiatPricingRequest>, string]> = [
      [
        "an amount below the method's minimum",
        { inputAmount: 9999 },
        'inputAmount: 9999 IDR is below the minimum of 10000 IDR for BCA_VA',
      ],
      ['IDR with decimals', { inputAmount: 150000.5 }, 'inputAmount: IDR amounts have at most 0 decimal places'],
      ['an output currency without a rate', { outputCurrency: 'DOGE' }, "outputCurrency: unsupported currency 'DOGE'"],
      [
        'a fiat output amount for a crypto',
        { inputAmount: undefined, outputCurrency: 'USDC-POLYGON', outputAmount: { fiat: 10 } },
        'outputAmount.fiat: outputCurrency USDC-POLYGON is a crypto; send outputAmount.crypto',
      ],
    ];
    for (const [what, over, message] of refusals) {
      it(`refuses ${what} with a 400 naming the field`, () => {
        assert.throws(
          () => priceFiatDeposit(fiat(over), RATES),
          (err: Error & { status?: number }) => err.status === 400 && err.message === message,
        );
      });
    }

    it('prices a crypto deposit converted into fiat without a fee', () => {
      const quote = priceCryptoDeposit(
        { inputCurrency: 'XLM-STELLAR', inputAmount: 12.3456789, outputCurrency: 'IDR' },
        RATES,
      );
      assert.deepEqual([toText(quote.rate), toText(quote.fee), toText(quote.outputAmount)], ['4950', '0', '61111']); // 61111.110555 -> 61111
    });

    it('prices with the rate table it is given', () => {
      const quote = priceFiatDeposit(fiat({ outputCurrency: 'USD', inputAmount: 1000000 }), { ...RATES, USD: '16000' });
      assert.deepEqual([toText(quote.rate), toText(quote.outputAmount)], ['0.0000625', '62.25']); // 996000 / 16000
    });
  });
  describe('crypto in checkout: the token amount that covers an order', () => {
    const usdc = findCrypto('USDC-POLYGON')!;
    const eth = findCrypto('ETH-ETHEREUM')!;

    it("rounds the order over the rate up in the token's decimals", () => {
      const q = quoteCryptoCovering(usdc, 'IDR', money(150000), RATES)!;
      assert.deepEqual(
        [toText(q.inputAmount), toText(q.rate), toText(q.outputAmount)],
        ['9.093665', '16495', '150000'],
      ); // 9.0936647...
    });

    it(`prices an 18-decimal coin in 8 places, rounded up (docs/design.md, "The shopper's choice, on any device")`, () => {
      const q = quoteCryptoCovering(eth, 'IDR', money(150000), RATES)!;
      assert.equal(toText(q.inputAmount), '0.00272728'); // 0.0027272727...
      const pol = quoteCryptoCovering(findCrypto('POL-POLYGON')!, 'IDR', money(150000), RATES)!;
      assert.equal(toText(pol.inputAmount), '48.38709678'); // 48.387096774...
    });

    it('has no price for a crypto without a rate to the output currency', () => {
      assert.equal(quoteCryptoCovering(usdc, 'NOPE', money(1), RATES), undefined);
    });

    it("says when the amount is above the crypto's maximum", () => {
      assert.equal(quoteCryptoCovering(eth, 'IDR', money('27500000000'), RATES)!.withinLimits, true); // 500 ETH
      assert.equal(quoteCryptoCovering(eth, 'IDR', money('27500000001'), RATES)!.withinLimits, false);
    });

    it('covers the order exactly, is the smallest such amount in min(decimal, 8) places, and survives JSON (property)', () => {
      fc.assert(
        fc.property(
          fc.constantFrom(...CRYPTOS.filter((c) => c.currencies.includes('IDR'))),
          fc.bigInt({ min: 1n, max: 10n ** 11n }), // the order, in rupiah
          (crypto, order) => {
            const target = money(order.toString());
            const q = quoteCryptoCovering(crypto, 'IDR', target, RATES)!;
            const places = Math.min(crypto.decimal, 8);
            assert.equal(placesOf(crypto.id), places);
            assert.ok(
              q.inputAmount.times(q.rate).greaterThanOrEqualTo(target),
              `${crypto.id}: ${toText(q.inputAmount)} does not cover ${order}`,
            );
            assert.ok(q.inputAmount.decimalPlaces() <= places);
            if (q.withinLimits) {
              assert.ok(q.inputAmount.precision() <= 15);
              assert.ok(
                money(JSON.parse(JSON.stringify(Number(toText(q.inputAmount)))) as number).equals(q.inputAmount),
                'a JSON number carries it exactly',
              );
            }
            assert.ok(q.outputAmount.greaterThanOrEqualTo(target));
            // One unit of the last place less would not cover the order.
            const unit = new Money(10).pow(-places);
            same(
              q.inputAmount,
              toText(target.dividedBy(q.rate).dividedBy(unit).ceil().times(unit)),
              `${crypto.id} for ${order}`,
            );
            assert.ok(q.inputAmount.minus(unit).times(q.rate).lessThan(target));
          },
        ),
        { numRuns: 500 },
      );
    });
  });

  describe('convert estimation', () => {
    it("prices an input amount, with a method's fee when named", () => {
      const e = estimateConversion(
        { inputCurrency: 'IDR', outputCurrency: 'USDC-POLYGON', inputAmount: 150000, paymentMethod: 'BCA_VA' },
        RATES,
      );
      assert.deepEqual([toText(e.fee), toText(e.outputAmount), e.paymentMethod], ['4000', '8.851167', 'BCA_VA']);
    });

    it('agrees with the deposit pricing of the same request (property)', () => {
      const methods = PAYMENT_METHODS.filter((m) => m.feePercentage !== '0' || m.feeFlat !== '0');
      fc.assert(
        fc.property(
          fc.constantFrom(...methods),
          fc.integer({ min: 20_000, max: 5_000_000 }),
          fc.constantFrom('IDR', 'USDC-POLYGON', 'USD'),
          (method, amount, out) => {
            const e = estimateConversion(
              { inputCurrency: 'IDR', outputCurrency: out, inputAmount: amount, paymentMethod: method.code },
              RATES,
            );
            const q = priceFiatDeposit(
              { inputCurrency: 'IDR', inputAmount: amount, outputCurrency: out, paymentMethod: method.code },
              RATES,
            );
            same(e.fee, toText(q.fee), 'fee');
            same(e.outputAmount, toText(q.outputAmount), 'output');
            same(e.rate, toText(q.rate), 'rate');
          },
        ),
        { numRuns: 200 },
      );
    });

    it("with a held quote, a deposit takes the quote's figures and refuses another amount", () => {
      const held = {
        inputCurrency: 'IDR',
        inputAmount: '150000',
        outputCurrency: 'IDR',
        outputAmount: '146001',
        rate: '1',
        fee: '3999',
        paymentMethod: 'BCA_VA',
      };
      const q = priceFiatDeposit(
        { inputCurrency: 'IDR', inputAmount: 150000, outputCurrency: 'IDR', paymentMethod: 'BCA_VA' },
        RATES,
        held,
      );
      assert.deepEqual([toText(q.fee), toText(q.outputAmount)], ['3999', '146001']);
      assert.throws(
        () =>
          priceFiatDeposit(
            { inputCurrency: 'IDR', inputAmount: 150001, outputCurrency: 'IDR', paymentMethod: 'BCA_VA' },
            RATES,
            held,
          ),
        /Quote does not match the deposit/,
      );
      assert.throws(
        () => priceCryptoDeposit({ inputCurrency: 'USDC-POLYGON', inputAmount: 1 }, RATES, held),
        /Quote does not match the deposit/,
      );
    });
  });
});
