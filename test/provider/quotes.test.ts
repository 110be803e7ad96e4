// Convert estimation (POST /v1/deposit/convert-estimation, docs/design.md, "Quotes, banks, bank transfers"): quotes
// held 60 s, used once, honoured by fiat and crypto deposits created with quoteId; and the banks list (GET /v1/banks)
// recipients' bankName comes from.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { QuoteView } from '../../server/provider/deposits/quotes';
import { bodyOf, dataOf, errorOf } from '../support/envelope';
import { createTestProvider, type TestProvider } from '../support/provider';
import { addMerchant, fiatBody, type DepositView } from './deposit-helpers';

describe('convert estimation and banks', () => {
  let p: TestProvider;
  before(async () => {
    p = await createTestProvider();
  });
  after(async () => {
    await p.close();
  });

  const estimate = (body: Record<string, unknown>, token?: string) =>
    p.bearer('POST', '/v1/deposit/convert-estimation', body, token);
  const quote = async (body: Record<string, unknown>) => {
    const res = await estimate(body);
    assert.equal(res.status, 200, await res.clone().text());
    return dataOf<QuoteView>(res);
  };
  const toUsdc = { inputCurrency: 'IDR', outputCurrency: 'USDC-POLYGON', inputAmount: 150000 };
  const fiatWith = (quoteId: string, over: Record<string, unknown> = {}) =>
    p.bearer('POST', '/v1/deposit/fiat', fiatBody({ outputCurrency: 'USDC-POLYGON', quoteId, ...over }));
  const refusal = async (res: Response, message: string) => {
    assert.equal(res.status, 400);
    assert.deepEqual(await errorOf(res), { statusCode: 400, error: 'Bad Request', message });
  };

  describe('POST /v1/deposit/convert-estimation', () => {
    it('quotes a conversion for 60 s, in the shape docs/design.md, "What the interface leaves open" gives', async () => {
      const before = Date.now() + p.clock.offsetMs;
      const q = await quote(toUsdc);
      const after = Date.now() + p.clock.offsetMs;
      assert.deepEqual(Object.keys(q).sort(), [
        'exchangeRate',
        'expiredAt',
        'fee',
        'inputAmount',
        'inputCurrency',
        'outputAmount',
        'outputCurrency',
        'quoteId',
      ]);
      assert.deepEqual([q.inputCurrency, q.inputAmount, q.outputCurrency, q.fee], ['IDR', 150000, 'USDC-POLYGON', 0]);
      assert.equal(q.exchangeRate, 0.000060624431646); // 1 / 16495 to 12 significant digits
      assert.equal(q.outputAmount, 9.093665); // 150000 x rate, half-up to 6 places
      // 60 s from the service's clock as it answered (between before and after, however slow the machine).
      const quotedAt = Date.parse(q.expiredAt) - 60_000;
      assert.ok(quotedAt >= before && quotedAt <= after, `${q.expiredAt}: not 60 s after ${before}..${after}`);
    });

    it('includes the fee of a payment method, and derives the input from an outputAmount', async () => {
      const withFee = await quote({ ...toUsdc, paymentMethod: 'BCA_VA' });
      assert.deepEqual([withFee.fee, withFee.outputAmount], [4000, 8.851167]); // (150000 - 4000) x rate
      const derived = await quote({
        inputCurrency: 'IDR',
        outputCurrency: 'IDR',
        outputAmount: 100000,
        paymentMethod: 'OVO',
      });
      assert.deepEqual([derived.inputAmount, derived.fee, derived.outputAmount], [101523, 1523, 100000]);
    });

    it('accepts a signed request as well as a bearer token, and nothing else', async () => {
      assert.equal((await p.signed('POST', '/v1/deposit/convert-estimation', toUsdc)).status, 200);
      const none = await p.app.request('http://localhost/v1/deposit/convert-estimation', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(toUsdc),
      });
      assert.equal(none.status, 401);
    });

    it("refuses bad requests with a 400 naming the field, and an unknown method with the interface's row", async () => {
      const cases: Array<[Record<string, unknown>, RegExp]> = [
        [{ ...toUsdc, outputAmount: 5 }, /^inputAmount: send exactly one of inputAmount and outputAmount$/],
        [{ inputCurrency: 'IDR', outputCurrency: 'IDR' }, /^inputAmount: send exactly one/],
        [{ ...toUsdc, inputCurrency: 'NOPE' }, /^inputCurrency: unsupported currency 'NOPE'$/],
        [{ ...toUsdc, outputCurrency: 'NOPE' }, /^outputCurrency: unsupported currency 'NOPE'$/],
        [{ ...toUsdc, inputAmount: 10.5 }, /^inputAmount: IDR amounts have at most 0 decimal places$/],
        [{ ...toUsdc, inputAmount: -1 }, /^inputAmount: must be positive$/],
        [
          { ...toUsdc, paymentMethod: 'QRIS', inputCurrency: 'USD', inputAmount: 10 },
          /^paymentMethod: QRIS accepts IDR only$/,
        ],
      ];
      for (const [body, message] of cases) {
        const res = await estimate(body);
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.match((await errorOf(res)).message, message, JSON.stringify(body));
      }
      const unknown = await estimate({ ...toUsdc, paymentMethod: 'X'.repeat(41) });
      assert.deepEqual(await errorOf(unknown), {
        statusCode: 400,
        error: 'Not Found',
        message: 'Payment method not found',
      });
    });
  });

  describe('a deposit created with quoteId', () => {
    it('gets exactly the quoted rate and amounts in exchangeInfo, the ones stored with the quote', async () => {
      const q = await quote({ ...toUsdc, paymentMethod: 'BCA_VA' });
      // The stored quote is what counts, not today's rate table.
      await p.deps.db
        .updateTable('quotes')
        .set({ exchange_rate: '0.00006', output_amount: '8.76' })
        .where('id', '=', q.quoteId)
        .execute();
      const res = await fiatWith(q.quoteId);
      assert.equal(res.status, 201);
      const d = await dataOf<DepositView>(res);
      assert.deepEqual(d.exchangeInfo, { exchangeRate: 0.00006, outputCurrency: 'USDC-POLYGON', outputAmount: 8.76 });
      assert.deepEqual([d.inputAmount, d.fee.amount], [150000, 4000]);
    });

    it("without a method in the quote, keeps its rate and adds the deposit method's fee", async () => {
      const q = await quote(toUsdc);
      const d = await dataOf<DepositView>(await fiatWith(q.quoteId));
      assert.equal(d.exchangeRate, q.exchangeRate);
      assert.equal(d.fee.amount, 4000);
      assert.equal(d.outputAmount, 8.851167);
    });

    it('works for crypto deposits too', async () => {
      const q = await quote({ inputCurrency: 'USDC-POLYGON', outputCurrency: 'IDR', inputAmount: 10 });
      const res = await p.bearer('POST', '/v1/deposit/crypto', {
        inputCurrency: 'USDC-POLYGON',
        inputAmount: 10,
        outputCurrency: 'IDR',
        quoteId: q.quoteId,
      });
      assert.equal(res.status, 201);
      assert.deepEqual((await dataOf<DepositView>(res)).exchangeInfo, {
        exchangeRate: 16495,
        outputCurrency: 'IDR',
        outputAmount: 164950,
      });
    });

    it('is used once: a second deposit with it is "Quote already used"', async () => {
      const q = await quote(toUsdc);
      assert.equal((await fiatWith(q.quoteId)).status, 201);
      await refusal(await fiatWith(q.quoteId), 'Quote already used');
    });

    it('of many concurrent deposits with one quote, exactly one gets it', async () => {
      const q = await quote(toUsdc);
      const answers = await Promise.all(Array.from({ length: 6 }, () => fiatWith(q.quoteId)));
      assert.deepEqual(answers.map((r) => r.status).sort(), [201, 400, 400, 400, 400, 400]);
      for (const r of answers.filter((a) => a.status === 400))
        assert.equal((await errorOf(r)).message, 'Quote already used');
    });

    it('after 60 s is "Quote expired"', async () => {
      const q = await quote(toUsdc);
      p.clock.offsetMs = 61_000;
      try {
        await refusal(await fiatWith(q.quoteId), 'Quote expired');
      } finally {
        p.clock.offsetMs = 0;
      }
    });

    it('an unused quote is kept a day after it expired (still "Quote expired"), then cleared by the next quote', async () => {
      const q = await quote(toUsdc);
      const used = await quote(toUsdc);
      assert.equal((await fiatWith(used.quoteId)).status, 201);
      p.clock.offsetMs = 24 * 3600 * 1000 + 61_000;
      try {
        await quote(toUsdc);
        await refusal(await fiatWith(q.quoteId), 'Quote not found');
        assert.ok(
          await p.deps.db.selectFrom('quotes').select('id').where('id', '=', used.quoteId).executeTakeFirst(),
          'a used quote stays with its deposit',
        );
      } finally {
        p.clock.offsetMs = 0;
      }
    });

    it('that the service never issued, or issued to another merchant, is "Quote not found"', async () => {
      await refusal(await fiatWith('no-such-quote'), 'Quote not found');
      const other = await addMerchant(p);
      const theirs = await dataOf<QuoteView>(await estimate(toUsdc, other.token));
      await refusal(await fiatWith(theirs.quoteId), 'Quote not found');
    });

    it('with other currencies, another amount or another method is "Quote does not match the deposit", and stays usable', async () => {
      const q = await quote({ ...toUsdc, paymentMethod: 'BCA_VA' });
      await refusal(await fiatWith(q.quoteId, { inputAmount: 150001 }), 'Quote does not match the deposit');
      await refusal(await fiatWith(q.quoteId, { outputCurrency: 'USDT-POLYGON' }), 'Quote does not match the deposit');
      await refusal(await fiatWith(q.quoteId, { paymentMethod: 'BNI_VA' }), 'Quote does not match the deposit');
      await refusal(
        await p.bearer('POST', '/v1/deposit/crypto', {
          inputCurrency: 'USDC-POLYGON',
          inputAmount: 9,
          outputCurrency: 'IDR',
          quoteId: q.quoteId,
        }),
        'Quote does not match the deposit',
      );
      assert.equal((await fiatWith(q.quoteId)).status, 201);
    });
  });

  describe('GET /v1/banks', () => {
    type Bank = { bankCode: string; bankName: string; currency: string; country: string };

    it('lists banks as {bankCode, bankName, currency, country}, filtered by currency and country', async () => {
      const all = await dataOf<Bank[]>(await p.bearer('GET', '/v1/banks'));
      assert.ok(all.length > 10);
      for (const b of all) assert.deepEqual(Object.keys(b).sort(), ['bankCode', 'bankName', 'country', 'currency']);
      const idr = await dataOf<Bank[]>(await p.bearer('GET', '/v1/banks?currency=idr'));
      assert.ok(idr.some((b) => b.bankCode === 'BCA' && b.bankName === 'Bank Central Asia'));
      assert.ok(idr.every((b) => b.currency === 'IDR'));
      const sg = await dataOf<Bank[]>(await p.signed('GET', '/v1/banks?country=SG'));
      assert.deepEqual(sg.map((b) => b.bankCode).sort(), ['DBS', 'OCBC']);
      assert.deepEqual(await dataOf<Bank[]>(await p.bearer('GET', '/v1/banks?currency=IDR&country=SG')), []);
    });

    it('takes A or S and refuses a call with neither', async () => {
      assert.equal((await p.signed('GET', '/v1/banks')).status, 200);
      assert.equal((await p.app.request('http://localhost/v1/banks')).status, 401);
    });

    it("names a recipient's bank from its code", async () => {
      const recipient = (bank: Record<string, unknown>) => ({
        name: 'Ani',
        email: 'ani@example.test',
        address: 'Jl. Sudirman 1',
        city: 'Jakarta',
        postCode: '10220',
        bank: { accountName: 'Ani', currency: 'IDR', country: 'ID', accountNumber: '0123456789', ...bank },
      });
      const bankName = async (bank: Record<string, unknown>) => {
        const res = await p.signed('POST', '/v1/recipient', recipient(bank));
        return (await bodyOf<{ data: { bank: Array<{ bankName: string }> } }>(res)).data.bank[0].bankName;
      };
      assert.equal(await bankName({ bankName: 'BCA' }), 'Bank Central Asia');
      assert.equal(await bankName({ paymentCode: 'mandiri' }), 'Bank Mandiri');
      assert.equal(await bankName({ bankName: 'DBS' }), 'DBS', 'a code of another currency is kept as sent');
      assert.equal(await bankName({ bankName: 'Bank Kecil' }), 'Bank Kecil');
    });
  });
});
