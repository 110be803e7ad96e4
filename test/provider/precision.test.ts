// Exact amounts (docs/design.md, "The shopper's choice, on any device"): crypto totals in at most min(decimal, 8)
// places that a JSON number carries exactly, the payment request counted from the same text, quotes that match on what
// was asked, amounts refused rather than changed or unbounded, EIP-55 payout addresses and a Luhn-valid QRIS merchant
// PAN. Through app.request(), on SQLite or (with test/support/with-postgres.sh) PostgreSQL.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Checkout as WidgetCheckout, Deposit as WidgetDeposit } from '@kasir/checkout';
import { CRYPTOS, FIAT_CURRENCIES, findPaymentMethod, placesOf } from '../../server/provider/catalog/index';
import type { CheckoutSession } from '../../server/provider/checkout/session';
import { checksumAddress } from '../../server/common/crypto-address';
import { parseTlv } from '../../server/provider/deposits/payment-details';
import { fiatPaymentDetails } from '../../server/provider/deposits/method-kinds';
import type { QuoteView } from '../../server/provider/deposits/quotes';
import { money } from '../../server/provider/deposits/money';
import { toBaseUnits } from '../../server/common/payment-uri';
import { dataOf, errorOf } from '../support/envelope';
import { createTestProvider, type TestProvider } from '../support/provider';
import { addMerchant, fiatBody, readDeposit, type DepositView } from './deposit-helpers';

/** Luhn: the digit sum (every second digit from the right doubled) is a multiple of 10. */
const luhnValid = (digits: string) =>
  [...digits].reverse().reduce((sum, ch, i) => {
    const d = Number(ch) * (i % 2 === 1 ? 2 : 1);
    return sum + (d > 9 ? d - 9 : d);
  }, 0) %
    10 ===
  0;

/** Every number in a JSON answer, with its path. */
function numbersIn(value: unknown, path = ''): Array<[string, unknown]> {
  if (value === null) return [[path, null]];
  if (typeof value === 'number') return [[path, value]];
  if (Array.isArray(value)) return value.flatMap((v, i) => numbersIn(v, `${path}[${i}]`));
  if (typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => numbersIn(v, `${path}.${k}`));
  return [];
}

describe('exact amounts: crypto prices, quotes, bounds, addresses', () => {
  let p: TestProvider;
  before(async () => {
    p = await createTestProvider();
  });
  after(async () => {
    await p.close();
  });

  const request = (method: string, path: string, body?: unknown) =>
    p.app.request(`http://localhost${path}`, {
      method,
      headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const newCheckout = async (amount = 150000) =>
    (
      await dataOf<{ id: string }>(
        await p.signed('POST', '/v1/checkout', { inputCurrency: 'IDR', inputAmount: amount }),
      )
    ).id;
  const session = async (id: string) => dataOf<CheckoutSession>(await request('GET', `/checkout/${id}/session`));
  const widgetCheckout = async (id: string) =>
    dataOf<WidgetCheckout>(await request('GET', `/checkout/api/checkouts/${id}`));
  const widgetChoose = async (id: string, method: string) =>
    dataOf<WidgetDeposit>(await request('POST', `/checkout/api/checkouts/${id}/deposit`, { method }));
  const estimate = async (body: Record<string, unknown>) => {
    const res = await p.bearer('POST', '/v1/deposit/convert-estimation', body);
    assert.equal(res.status, 200, await res.clone().text());
    return dataOf<QuoteView>(res);
  };
  const created = async (res: Response) => {
    assert.equal(res.status, 201, await res.clone().text());
    return dataOf<DepositView>(res);
  };
  const refused = async (res: Response, message: RegExp) => {
    assert.equal(res.status, 400);
    const body = await errorOf(res);
    assert.equal(body.error, 'Bad Request');
    assert.match(body.message, message);
  };

  describe(`crypto amounts a person can read and type (docs/design.md, "The shopper's choice, on any device")`, () => {
    it('prices ETH and POL in at most 8 places, rounded up to cover the order, the same text in the session, the widget and the deposit', async () => {
      const id = await newCheckout(150000);
      const [s, w] = [await session(id), await widgetCheckout(id)];
      for (const [code, expected] of [
        ['ETH-ETHEREUM', '0.00272728'],
        ['POL-POLYGON', '48.38709678'],
      ] as const) {
        const total = w.methods.find((m) => m.code === code)!.total;
        assert.equal(total, expected);
        // The JSON number carries exactly the text shown.
        assert.equal(String(s.methods.find((m) => m.bankCode === code)!.paymentAmount), total);
      }
      for (const m of w.methods.filter((x) => x.kind === 'crypto')) {
        assert.match(m.total, /^\d+(\.\d*[1-9])?$/, `${m.code}: no trailing zeros`);
        assert.ok(money(m.total).decimalPlaces() <= Math.min(m.decimals ?? 0, 8), `${m.code}: ${m.total}`);
        const rate = money(m.exchangeRate!.rate);
        assert.ok(money(m.total).times(rate).greaterThanOrEqualTo(150000), `${m.code} covers the order`);
      }
      const eth = await widgetChoose(id, 'ETH-ETHEREUM');
      assert.equal(eth.amount, '0.00272728');
      // What is copied (the amount) is what the payment request asks for, in wei.
      assert.equal(eth.paymentUri, `ethereum:${eth.address}@1?value=${toBaseUnits(eth.amount, 18)}`);
      assert.equal(toBaseUnits(eth.amount, 18), '2727280000000000');
      const d = await readDeposit(p, id);
      assert.equal(d.inputAmount, 0.00272728);
      assert.ok(d.exchangeInfo!.outputAmount >= 150000);
    });

    it('keeps every amount of every catalog currency within the 15 significant digits a JSON number carries', () => {
      for (const c of [...FIAT_CURRENCIES.map((f) => f.code), ...CRYPTOS.map((k) => k.id)]) {
        const max =
          FIAT_CURRENCIES.find((f) => f.code === c)?.maximumAmount ?? CRYPTOS.find((k) => k.id === c)!.maximumAmount;
        const digits = money(max).toFixed(0).length + placesOf(c)!;
        assert.ok(digits <= 15, `${c}: ${max} with ${placesOf(c)} places has ${digits} digits`);
      }
    });
  });

  describe('a deposit with a quote matches it on what was asked', () => {
    const usdc = { inputCurrency: 'IDR', outputCurrency: 'USDC-POLYGON' };

    it('fiat deposit, outputAmount.crypto, quote with the same paymentMethod: gets the quote', async () => {
      const q = await estimate({ ...usdc, outputAmount: 9.5, paymentMethod: 'BCA_VA' });
      assert.notEqual(q.outputAmount, 9.5); // the quote prices an output above what was asked (rounding)
      const d = await created(
        await p.bearer(
          'POST',
          '/v1/deposit/fiat',
          fiatBody({ ...usdc, inputAmount: undefined, outputAmount: { crypto: 9.5 }, quoteId: q.quoteId }),
        ),
      );
      assert.deepEqual(
        [d.inputAmount, d.outputAmount, d.exchangeRate, d.fee.amount],
        [q.inputAmount, q.outputAmount, q.exchangeRate, q.fee],
      );
    });

    it("fiat deposit, outputAmount.crypto, quote without a paymentMethod: the quoted rate, and the method's fee on top", async () => {
      const q = await estimate({ ...usdc, outputAmount: 9.5 });
      const d = await created(
        await p.bearer(
          'POST',
          '/v1/deposit/fiat',
          fiatBody({ ...usdc, inputAmount: undefined, outputAmount: { crypto: 9.5 }, quoteId: q.quoteId }),
        ),
      );
      assert.equal(d.exchangeRate, q.exchangeRate);
      assert.equal(d.fee.amount, 4000);
      assert.ok(d.outputAmount >= 9.5, String(d.outputAmount));
      assert.ok(d.inputAmount >= q.inputAmount + 4000);
    });

    it('fiat deposit, outputAmount.fiat, with and without a paymentMethod', async () => {
      const base = { inputCurrency: 'IDR', outputCurrency: 'USD' };
      for (const paymentMethod of ['OVO', undefined]) {
        const q = await estimate({ ...base, outputAmount: 10.01, ...(paymentMethod ? { paymentMethod } : {}) });
        const d = await created(
          await p.bearer(
            'POST',
            '/v1/deposit/fiat',
            fiatBody({
              ...base,
              paymentMethod: 'OVO',
              inputAmount: undefined,
              outputAmount: { fiat: 10.01 },
              quoteId: q.quoteId,
            }),
          ),
        );
        assert.equal(d.exchangeRate, q.exchangeRate);
        assert.ok(d.outputAmount >= 10.01);
        if (paymentMethod) assert.deepEqual([d.inputAmount, d.outputAmount], [q.inputAmount, q.outputAmount]);
      }
    });

    it('fiat deposit, inputAmount, with and without a paymentMethod', async () => {
      for (const paymentMethod of ['BCA_VA', undefined]) {
        const q = await estimate({ ...usdc, inputAmount: 150000, ...(paymentMethod ? { paymentMethod } : {}) });
        const d = await created(
          await p.bearer('POST', '/v1/deposit/fiat', fiatBody({ ...usdc, inputAmount: 150000, quoteId: q.quoteId })),
        );
        assert.deepEqual([d.inputAmount, d.exchangeRate, d.fee.amount], [150000, q.exchangeRate, 4000]);
        if (paymentMethod) assert.equal(d.outputAmount, q.outputAmount);
      }
    });

    it('crypto deposit, from a quote by inputAmount or by outputAmount (a crypto has no paymentMethod)', async () => {
      const byInput = await estimate({ inputCurrency: 'ETH-ETHEREUM', outputCurrency: 'IDR', inputAmount: 0.01 });
      const a = await created(
        await p.bearer('POST', '/v1/deposit/crypto', {
          inputCurrency: 'ETH-ETHEREUM',
          inputAmount: 0.01,
          outputCurrency: 'IDR',
          quoteId: byInput.quoteId,
        }),
      );
      assert.deepEqual(
        [a.inputAmount, a.outputAmount, a.exchangeRate],
        [0.01, byInput.outputAmount, byInput.exchangeRate],
      );
      const byOutput = await estimate({ inputCurrency: 'ETH-ETHEREUM', outputCurrency: 'IDR', outputAmount: 1000000 });
      assert.equal(byOutput.inputAmount, 0.01818181); // 8 places: the smallest whose output, rounded to IDR, reaches 1000000
      const b = await created(
        await p.bearer('POST', '/v1/deposit/crypto', {
          inputCurrency: 'ETH-ETHEREUM',
          inputAmount: byOutput.inputAmount,
          outputCurrency: 'IDR',
          quoteId: byOutput.quoteId,
        }),
      );
      assert.deepEqual([b.inputAmount, b.outputAmount], [byOutput.inputAmount, byOutput.outputAmount]);
      await refused(
        await p.bearer('POST', '/v1/deposit/convert-estimation', {
          inputCurrency: 'ETH-ETHEREUM',
          outputCurrency: 'IDR',
          inputAmount: 0.01,
          paymentMethod: 'BCA_VA',
        }),
        /^paymentMethod: BCA_VA accepts IDR only$/,
      );
    });

    it('still refuses a deposit that asks for another amount than the quote', async () => {
      const q = await estimate({ ...usdc, outputAmount: 9.5, paymentMethod: 'BCA_VA' });
      await refused(
        await p.bearer(
          'POST',
          '/v1/deposit/fiat',
          fiatBody({ ...usdc, inputAmount: undefined, outputAmount: { crypto: 9.6 }, quoteId: q.quoteId }),
        ),
        /^Quote does not match the deposit$/,
      );
    });
  });

  describe('amounts are never changed silently', () => {
    it('refuses a crypto amount with more places than the asset is priced in, saying it arrived changed', async () => {
      // JSON.parse turns 1.123456789012345678 into 1.1234567890123457: 22 wei more than written.
      const res = await p.app.request('http://localhost/v1/deposit/crypto', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${p.creds.accessToken}` },
        body: '{"inputCurrency":"ETH-ETHEREUM","inputAmount":1.123456789012345678,"outputCurrency":"IDR"}',
      });
      await refused(
        res,
        /^inputAmount: ETH-ETHEREUM amounts have at most 8 decimal places \(a JSON number carries at most 15 significant digits exactly: this one arrived as 1\.1234567890123457\)$/,
      );
      await refused(
        await p.bearer('POST', '/v1/deposit/crypto', { inputCurrency: 'ETH-ETHEREUM', inputAmount: 1.123456789 }),
        /^inputAmount: ETH-ETHEREUM amounts have at most 8 decimal places$/,
      );
      await refused(
        await p.bearer('POST', '/v1/deposit/crypto', { inputCurrency: 'USDC-POLYGON', inputAmount: 1.1234567 }),
        /^inputAmount: USDC-POLYGON amounts have at most 6 decimal places$/,
      );
      const d = await created(
        await p.bearer('POST', '/v1/deposit/crypto', {
          inputCurrency: 'ETH-ETHEREUM',
          inputAmount: 1.12345678,
          outputCurrency: 'IDR',
        }),
      );
      assert.equal(d.inputAmount, 1.12345678);
    });
  });

  describe('amounts have an upper bound', () => {
    for (const huge of [1.797e308, 1e300, 1e30]) {
      it(`refuses ${huge} with a 400 naming the field, wherever an amount is sent`, async () => {
        await refused(
          await p.bearer('POST', '/v1/deposit/crypto', {
            inputCurrency: 'ETH-ETHEREUM',
            inputAmount: huge,
            outputCurrency: 'IDR',
          }),
          /^inputAmount: ETH-ETHEREUM amounts are at most 500$/,
        );
        await refused(
          await p.bearer('POST', '/v1/deposit/convert-estimation', {
            inputCurrency: 'ETH-ETHEREUM',
            outputCurrency: 'IDR',
            inputAmount: huge,
          }),
          /^inputAmount: ETH-ETHEREUM amounts are at most 500$/,
        );
        await refused(
          await p.bearer('POST', '/v1/deposit/convert-estimation', {
            inputCurrency: 'IDR',
            outputCurrency: 'USD',
            inputAmount: huge,
          }),
          /^inputAmount: IDR amounts are at most 1000000000000$/,
        );
        await refused(
          await p.bearer('POST', '/v1/deposit/convert-estimation', {
            inputCurrency: 'IDR',
            outputCurrency: 'USDC-POLYGON',
            outputAmount: huge,
          }),
          /^outputAmount: USDC-POLYGON amounts are at most 1000000$/,
        );
        await refused(
          await p.bearer(
            'POST',
            '/v1/deposit/fiat',
            fiatBody({ outputCurrency: 'USDC-POLYGON', inputAmount: undefined, outputAmount: { crypto: huge } }),
          ),
          /^outputAmount\.crypto: USDC-POLYGON amounts are at most 1000000$/,
        );
        await refused(
          await p.bearer('POST', '/v1/deposit/fiat', fiatBody({ inputAmount: huge })),
          /^inputAmount: IDR amounts are at most 1000000000000$/,
        );
        await refused(
          await p.signed('POST', '/v1/checkout', { inputCurrency: 'IDR', inputAmount: huge }),
          /^inputAmount: IDR amounts are at most 1000000000000$/,
        );
      });
    }

    it("takes the maximum itself, and refuses a conversion whose result is above its currency's maximum", async () => {
      const d = await created(
        await p.bearer('POST', '/v1/deposit/crypto', {
          inputCurrency: 'ETH-ETHEREUM',
          inputAmount: 500,
          outputCurrency: 'IDR',
        }),
      );
      assert.equal(d.outputAmount, 27500000000);
      await refused(
        await p.bearer('POST', '/v1/deposit/crypto', {
          inputCurrency: 'ETH-ETHEREUM',
          inputAmount: 500.00000001,
          outputCurrency: 'IDR',
        }),
        /^inputAmount: ETH-ETHEREUM amounts are at most 500$/,
      );
      await refused(
        await p.bearer('POST', '/v1/deposit/convert-estimation', {
          inputCurrency: 'IDR',
          outputCurrency: 'IDRX-POLYGON',
          inputAmount: 20000000000,
        }),
        /^inputAmount: 20000000000 IDRX-POLYGON is above the maximum of 16000000000 IDRX-POLYGON$/,
      );
      await refused(
        await p.bearer('POST', '/v1/deposit/convert-estimation', {
          inputCurrency: 'ETH-ETHEREUM',
          outputCurrency: 'IDR',
          outputAmount: 1000000000000,
        }),
        /^outputAmount: 18181\.81818181 ETH-ETHEREUM is above the maximum of 500 ETH-ETHEREUM$/,
      );
    });

    it('answers no amount that is null or changed by a JSON number', async () => {
      const answers = [
        await p.bearer('POST', '/v1/deposit/crypto', {
          inputCurrency: 'POL-POLYGON',
          inputAmount: 4999999.99999999,
          outputCurrency: 'IDR',
        }),
        await p.bearer('POST', '/v1/deposit/convert-estimation', {
          inputCurrency: 'XLM-STELLAR',
          outputCurrency: 'IDR',
          inputAmount: 2999999.9999999,
        }),
        await p.bearer('POST', '/v1/deposit/convert-estimation', {
          inputCurrency: 'INR',
          outputCurrency: 'IDR',
          inputAmount: 999999999.99,
        }),
      ];
      for (const res of answers) {
        const text = await res.text();
        assert.ok(res.status < 300, text);
        for (const [path, n] of numbersIn(JSON.parse(text))) {
          assert.equal(typeof n, 'number', `${path} is ${String(n)}`);
          assert.ok(money(n as number).precision() <= 15, `${path}: ${String(n)}`);
        }
      }
    });
  });

  describe('payment details', () => {
    it('gives EVM payout addresses in EIP-55 checksum form, in the Deposit, the widget and its payment request', async () => {
      assert.equal(
        checksumAddress('0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed'),
        '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      );
      assert.equal(
        checksumAddress('0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359'),
        '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
      );
      const d = await created(
        await p.bearer('POST', '/v1/deposit/crypto', { inputCurrency: 'USDC-BASE', inputAmount: 10 }),
      );
      const wallet = d.paymentCrypto.payoutWallet!;
      assert.equal(wallet, checksumAddress(wallet.toLowerCase()));
      assert.notEqual(wallet, wallet.toLowerCase());
      const id = await newCheckout();
      const w = await widgetChoose(id, 'ETH-ETHEREUM');
      assert.equal(w.address, checksumAddress(w.address!.toLowerCase()));
      assert.ok(w.paymentUri!.startsWith(`ethereum:${w.address}@1?`));
      // One stored in lowercase (as older rows are) is shown checksummed too.
      await p.deps.db
        .updateTable('deposits')
        .set({ payment_crypto: JSON.stringify({ payoutWallet: w.address!.toLowerCase(), network: 'ETHEREUM' }) })
        .where('deposit_id', '=', id)
        .execute();
      const again = await dataOf<WidgetDeposit>(await request('GET', `/checkout/api/checkouts/${id}/deposit`));
      assert.equal(again.address, w.address);
    });

    it('gives the QRIS merchant PAN (tag 26, sub-tag 01) a valid Luhn check digit, for any merchant', async () => {
      const method = findPaymentMethod('QRIS')!;
      for (let i = 0; i < 500; i++) {
        const { paymentFiat } = fiatPaymentDetails({
          method,
          accountName: 'Shop',
          amount: '150000',
          recordId: 'r1',
          depositId: randomUUID(),
          merchantId: randomUUID(),
          baseUrl: 'http://localhost',
        });
        const pan = parseTlv(parseTlv(paymentFiat.qrData!).get('26')!).get('01')!;
        assert.match(pan, /^\d{19}$/);
        assert.ok(luhnValid(pan), pan);
      }
      for (let i = 0; i < 5; i++) {
        const other = await addMerchant(p);
        const res = await p.bearer('POST', '/v1/deposit/fiat', fiatBody({ paymentMethod: 'QRIS' }), other.token);
        const pan = parseTlv(parseTlv((await created(res)).paymentFiat.qrData!).get('26')!).get('01')!;
        assert.ok(luhnValid(pan), pan);
      }
    });
  });
});
