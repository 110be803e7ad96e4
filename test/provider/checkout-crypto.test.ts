// Crypto in the sandbox's checkout: cryptos after the fiat methods (docs/design.md, "Crypto"), switching a pending
// deposit to another method (docs/design.md, "Checkout"), and bank transfers with their unique codes. Through
// app.request(), on SQLite or (with test/support/with-postgres.sh) PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Checkout as WidgetCheckout, Deposit as WidgetDeposit } from '@kasir/checkout';
import { cryptoOffersFor } from '../../server/provider/deposits/checkout';
import { isStellarAccountId } from '../../server/common/crypto-address';
import type { CheckoutSession } from '../../server/provider/checkout/session';
import { dataOf, errorOf } from '../support/envelope';
import { createTestProvider, type TestProvider } from '../support/provider';
import { outbox, readDeposit, type DepositView } from './deposit-helpers';

describe('checkout: crypto, method switch and bank transfer', () => {
  let p: TestProvider;
  before(async () => {
    p = await createTestProvider();
  });
  after(async () => {
    await p.close();
  });

  const create = async (body: Record<string, unknown>) =>
    dataOf<{ id: string }>(await p.signed('POST', '/v1/checkout', body));
  const request = (method: string, path: string, body?: unknown) =>
    p.app.request(`http://localhost${path}`, {
      method,
      headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const session = async (id: string) => dataOf<CheckoutSession>(await request('GET', `/checkout/${id}/session`));
  const choose = (id: string, paymentMethod: string) => request('POST', `/checkout/${id}/deposit`, { paymentMethod });
  const widgetChoose = (id: string, method: string) =>
    request('POST', `/checkout/api/checkouts/${id}/deposit`, { method });
  const widgetCheckout = async (id: string) =>
    dataOf<WidgetCheckout>(await request('GET', `/checkout/api/checkouts/${id}`));
  const newCheckout = async (amount = 150000) => (await create({ inputCurrency: 'IDR', inputAmount: amount })).id;
  const rowOf = (depositId: string) =>
    p.deps.db.selectFrom('deposits').selectAll().where('deposit_id', '=', depositId).executeTakeFirstOrThrow();
  const codesOf = (rowId: string) =>
    p.deps.db.selectFrom('bank_transfer_codes').selectAll().where('deposit_row_id', '=', rowId).execute();

  describe('cryptos in the session and the hosted widget API', () => {
    let id: string;
    before(async () => {
      id = await newCheckout();
    });

    it("lists the cryptos that pair with the checkout's currency after every fiat method", async () => {
      const methods = (await session(id)).methods;
      const firstCrypto = methods.findIndex((m) => m.depositPaymentType === 'crypto');
      assert.ok(firstCrypto > 0);
      assert.ok(methods.slice(firstCrypto).every((m) => m.depositPaymentType === 'crypto'));
      assert.deepEqual(
        methods
          .slice(firstCrypto)
          .map((m) => m.bankCode)
          .sort(),
        [
          'ETH-ETHEREUM',
          'IDRX-POLYGON',
          'POL-POLYGON',
          'USDC-BASE',
          'USDC-ETHEREUM',
          'USDC-POLYGON',
          'USDC-STELLAR',
          'USDT-ETHEREUM',
          'USDT-POLYGON',
          'XLM-STELLAR',
        ],
      );
    });

    it('prices each crypto at the token amount, rounded up in min(decimals, 8) places, whose conversion covers the order', async () => {
      const by = Object.fromEntries((await session(id)).methods.map((m) => [m.bankCode, m]));
      // 150000 / 16495 = 9.0936647..., up to 6 places; 150000 / 4950 = 30.30303..., up to 7.
      assert.deepEqual([by['USDC-POLYGON'].paymentAmount, by['USDC-POLYGON'].outputAmount], [9.093665, 150000]);
      assert.deepEqual([by['XLM-STELLAR'].paymentAmount, by['XLM-STELLAR'].outputAmount], [30.3030304, 150000]);
      assert.equal(by['IDRX-POLYGON'].paymentAmount, 150000);
      // 150000 / 55000000 = 0.00272727...: up in min(18, 8) places (docs/design.md, "The shopper's choice, on any
      // device").
      assert.equal(by['ETH-ETHEREUM'].paymentAmount, 0.00272728);
      for (const m of Object.values(by).filter((m) => m.crypto)) assert.ok(m.outputAmount >= 150000, m.bankCode);
      assert.deepEqual(by['USDC-POLYGON'].crypto, {
        symbol: 'USDC',
        network: 'POLYGON',
        networkName: 'Polygon',
        decimals: 6,
        blockchainType: 'EVM',
        chainId: 137,
        address: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
      });
      assert.deepEqual(by['USDC-POLYGON'].exchangeRate, { from: 'USDC-POLYGON', to: 'IDR', rate: '16495' });
    });

    it('shows a crypto method in the widget shape: the exact total without trailing zeros, its network and rate', async () => {
      const c = await widgetCheckout(id);
      const usdc = c.methods.find((m) => m.code === 'USDC-POLYGON');
      assert.deepEqual(usdc, {
        kind: 'crypto',
        code: 'USDC-POLYGON',
        name: 'USD Coin (Polygon)',
        image: `${p.deps.config.baseUrl}/static/logos/usdc.svg`,
        currency: 'USDC-POLYGON',
        fee: '0',
        total: '9.093665',
        available: true,
        symbol: 'USDC',
        network: 'POLYGON',
        networkName: 'Polygon',
        decimals: 6,
        exchangeRate: { from: 'USDC-POLYGON', to: 'IDR', rate: '16495' },
      });
      assert.equal(c.methods.find((m) => m.code === 'ETH-ETHEREUM')?.total, '0.00272728');
      assert.equal(c.methods.find((m) => m.code === 'IDRX-POLYGON')?.total, '150000'); // no trailing zeros (docs/design.md, "The shopper's choice, on any device")
    });

    it('leaves out a crypto that does not pair with the currency (IDRX pairs with IDR only)', () => {
      const draft = { input_currency: 'USD', output_currency: 'USD', input_amount: '10', output_amount: null };
      const codes = cryptoOffersFor(draft, p.deps.config.rates).map((o) => o.crypto.id);
      assert.ok(codes.includes('USDC-POLYGON') && codes.includes('ETH-ETHEREUM'));
      assert.equal(codes.includes('IDRX-POLYGON'), false);
      assert.equal(
        cryptoOffersFor({ ...draft, input_currency: 'INR', output_currency: 'INR' }, p.deps.config.rates).length,
        0,
      );
    });
  });

  describe('choosing a crypto', () => {
    let id: string;
    let d: DepositView;
    before(async () => {
      id = await newCheckout();
      const res = await choose(id, 'USDC-POLYGON');
      assert.equal(res.status, 201);
      d = await dataOf<DepositView>(res);
    });

    it('creates the crypto deposit whose depositId is the checkout id, priced as the session said', () => {
      assert.equal(d.depositId, id);
      assert.equal(d.depositType, 'crypto');
      assert.deepEqual([d.inputCurrency, d.inputAmount, d.outputCurrency], ['USDC-POLYGON', 9.093665, 'IDR']);
      assert.deepEqual(d.exchangeInfo, { exchangeRate: 16495, outputCurrency: 'IDR', outputAmount: 150000 });
      assert.equal(d.paymentCrypto.network, 'POLYGON');
      assert.match(d.paymentCrypto.payoutWallet!, /^0x[0-9a-fA-F]{40}$/); // EIP-55 mixed case
    });

    it('is priced from a quote held for it, which it used', async () => {
      const row = await rowOf(id);
      assert.ok(row.quote_id);
      const quote = await p.deps.db
        .selectFrom('quotes')
        .selectAll()
        .where('id', '=', row.quote_id!)
        .executeTakeFirstOrThrow();
      assert.deepEqual(
        [quote.input_amount, quote.exchange_rate, quote.output_amount, quote.used_by],
        ['9.093665', '16495', '150000', row.id],
      );
    });

    it('answers the widget API with the address, the exact amount and the EIP-681 token transfer its QR encodes', async () => {
      const res = await widgetChoose(id, 'USDC-POLYGON');
      assert.equal(res.status, 200);
      const w = await dataOf<WidgetDeposit>(res);
      assert.deepEqual(w.method, {
        kind: 'crypto',
        code: 'USDC-POLYGON',
        name: 'USD Coin (Polygon)',
        image: `${p.deps.config.baseUrl}/static/logos/usdc.svg`,
      });
      assert.deepEqual(
        [w.currency, w.amount, w.fee, w.symbol, w.network, w.networkName, w.decimals],
        ['USDC-POLYGON', '9.093665', '0', 'USDC', 'POLYGON', 'Polygon', 6],
      );
      assert.equal(w.address, d.paymentCrypto.payoutWallet);
      assert.equal(
        w.paymentUri,
        `ethereum:0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359@137/transfer?address=${w.address}&uint256=9093665`,
      );
      assert.deepEqual(w.exchangeRate, { from: 'USDC-POLYGON', to: 'IDR', rate: '16495' });
      assert.equal(w.accountNumber, undefined);
    });

    it('gives a native coin an EIP-681 value in wei, and Stellar a SEP-7 request with a valid account', async () => {
      const eth = await dataOf<WidgetDeposit>(await widgetChoose(await newCheckout(), 'ETH-ETHEREUM'));
      assert.equal(eth.amount, '0.00272728');
      assert.equal(eth.paymentUri, `ethereum:${eth.address}@1?value=2727280000000000`);
      const xlm = await dataOf<WidgetDeposit>(await widgetChoose(await newCheckout(), 'XLM-STELLAR'));
      assert.ok(isStellarAccountId(xlm.address!));
      assert.equal(
        xlm.paymentUri,
        `web+stellar:pay?destination=${xlm.address}&amount=30.3030304&memo=${xlm.memo}&memo_type=MEMO_ID`,
      );
      const usdc = await dataOf<WidgetDeposit>(await widgetChoose(await newCheckout(), 'USDC-STELLAR'));
      assert.equal(usdc.amount, '9.0936648');
      assert.equal(
        usdc.paymentUri,
        `web+stellar:pay?destination=${usdc.address}&amount=9.0936648&asset_code=USDC&asset_issuer=GA5ZSEJYB37JRC5AVCIA5MOP4RHTM335X2KGX3IHOJAPP5RE34K4KZVN&memo=${usdc.memo}&memo_type=MEMO_ID`,
      );
    });

    it('Stellar: one account per merchant and a memo per deposit (docs/indonesian-payments.md), in the Deposit and its payment request', async () => {
      const first = await dataOf<WidgetDeposit>(await widgetChoose(await newCheckout(), 'XLM-STELLAR'));
      const second = await dataOf<WidgetDeposit>(await widgetChoose(await newCheckout(), 'USDC-STELLAR'));
      assert.equal(second.address, first.address, "the merchant's one account");
      assert.ok(isStellarAccountId(first.address!));
      for (const d of [first, second]) {
        assert.match(d.memo!, /^[1-9]\d{9,15}$/);
        assert.equal(d.memoType, 'id');
        assert.ok(BigInt(d.memo!) < 2n ** 64n);
      }
      assert.notEqual(first.memo, second.memo);
      const row = await rowOf(first.id);
      assert.deepEqual(JSON.parse(row.payment_crypto), {
        payoutWallet: first.address,
        network: 'STELLAR',
        memo: first.memo,
        memoType: 'id',
      });
      // An EVM deposit keeps a fresh address of its own, and no memo.
      const evm = await dataOf<WidgetDeposit>(await widgetChoose(await newCheckout(), 'USDC-POLYGON'));
      assert.equal(evm.memo, undefined);
    });

    it('is completed by the checkout id like a fiat one, with its webhook', async () => {
      const id2 = await newCheckout();
      await choose(id2, 'USDT-POLYGON');
      assert.equal((await p.signed('PATCH', `/v1/deposit/${id2}`, { status: 'completed' })).status, 200);
      assert.deepEqual(
        (await outbox(p, id2)).map((e) => [e.type, e.payload.data.inputCurrency]),
        [['deposit.completed', 'USDT-POLYGON']],
      );
    });

    it('an unknown crypto id is the "Payment method not found" row of the checkout', async () => {
      const res = await choose(await newCheckout(), 'DOGE-POLYGON');
      assert.deepEqual(await res.json(), { statusCode: 400, error: 'Not Found', message: 'Payment method not found' });
    });
  });

  describe('switching the method of a pending deposit', () => {
    it('fiat to crypto and back: same depositId, new details, the old ones gone, history records each, no webhook', async () => {
      const id = await newCheckout();
      const va = await dataOf<DepositView>(await choose(id, 'BCA_VA'));
      const oldVa = va.paymentFiat.accountNumber!;

      let res = await choose(id, 'USDC-POLYGON');
      assert.equal(res.status, 200);
      const crypto = await dataOf<DepositView>(res);
      assert.deepEqual(
        [crypto.depositId, crypto.id, crypto.depositType, crypto.inputCurrency, crypto.inputAmount],
        [id, va.id, 'crypto', 'USDC-POLYGON', 9.093665],
      );
      assert.deepEqual(crypto.paymentFiat, {});
      assert.match(crypto.paymentCrypto.payoutWallet!, /^0x[0-9a-fA-F]{40}$/); // EIP-55 mixed case
      // The VA number is no longer the deposit's: nothing in the service answers to it.
      assert.equal(
        (await p.deps.db.selectFrom('deposits').select('id').where('va_number', '=', oldVa).execute()).length,
        0,
      );

      res = await choose(id, 'QRIS');
      assert.equal(res.status, 200);
      const qris = await dataOf<DepositView>(res);
      assert.deepEqual(
        [qris.depositType, qris.inputCurrency, qris.inputAmount, qris.paymentCrypto],
        ['fiat', 'IDR', 150000, {}],
      );
      assert.match(qris.paymentFiat.qrData!, /^000201010212/);

      const read = await readDeposit(p, id);
      assert.deepEqual(
        read.activityHistory.map((a) => [a.activity, a.status]),
        [
          ['Payee Payment', 'pending'],
          ['Payment Method Changed', 'pending'],
          ['Payment Method Changed', 'pending'],
        ],
      );
      assert.match(read.activityHistory[1].description, /from BCA_VA to USDC-POLYGON/);
      assert.match(read.activityHistory[2].description, /from USDC-POLYGON to QRIS/);
      assert.deepEqual(await outbox(p, id), []);
    });

    it('allows 20 switches of one deposit and refuses the 21st, so the public page cannot grow its history without end', async () => {
      const id = await newCheckout();
      await choose(id, 'QRIS');
      for (let i = 0; i < 20; i++)
        assert.equal((await choose(id, i % 2 ? 'QRIS' : 'OVO')).status, 200, `switch ${i + 1}`);
      const res = await choose(id, 'BCA_VA');
      assert.equal(res.status, 400);
      assert.match((await errorOf(res)).message, /^paymentMethod: the payment method was changed 20 times already/);
      assert.equal((await readDeposit(p, id)).activityHistory.length, 21);
    });

    it("takes the new method's expiry window", async () => {
      const id = await newCheckout();
      const va = await dataOf<DepositView>(await choose(id, 'BCA_VA'));
      const qris = await dataOf<DepositView>(await choose(id, 'QRIS'));
      const window = (d: DepositView) => Date.parse(d.expiredAt) - Date.parse(d.updatedAt);
      assert.equal(window(va), p.deps.config.expirySeconds.va * 1000);
      assert.equal(window(qris), p.deps.config.expirySeconds.qris * 1000);
    });

    it("answers the widget API's switch with 200 and the new method's details, and changes the ETag", async () => {
      const id = await newCheckout();
      await widgetChoose(id, 'OVO');
      const etag = (await request('GET', `/checkout/api/checkouts/${id}/deposit`)).headers.get('etag')!;
      const res = await widgetChoose(id, 'USDT-ETHEREUM');
      assert.equal(res.status, 200);
      const w = await dataOf<WidgetDeposit>(res);
      assert.deepEqual([w.id, w.method.kind, w.checkoutUrl], [id, 'crypto', undefined]);
      assert.match(
        w.paymentUri!,
        /^ethereum:0xdAC17F958D2ee523a2206206994597C13D831ec7@1\/transfer\?address=0x[0-9a-fA-F]{40}&uint256=9101942$/,
      );
      assert.notEqual((await request('GET', `/checkout/api/checkouts/${id}/deposit`)).headers.get('etag'), etag);
    });

    it('is a 400 in the envelope once the deposit is completed or expired', async () => {
      for (const status of ['completed', 'expired'] as const) {
        const id = await newCheckout();
        await choose(id, 'BCA_VA');
        await p.signed('PATCH', `/v1/deposit/${id}`, { status });
        const res = await choose(id, 'QRIS');
        assert.equal(res.status, 400);
        assert.deepEqual(await errorOf(res), {
          statusCode: 400,
          error: 'Bad Request',
          message: `paymentMethod: the deposit is ${status}; no payment method can be chosen any more`,
        });
        assert.equal((await readDeposit(p, id)).paymentFiat.bankCode, 'BCA_VA');
      }
    });

    it('is a 400 once the deposit is overdue (it expires first)', async () => {
      const id = await newCheckout();
      await choose(id, 'OVO');
      await p.deps.db
        .updateTable('deposits')
        .set({ expired_at: new Date(Date.now() - 1000).toISOString() })
        .where('deposit_id', '=', id)
        .execute();
      const res = await choose(id, 'QRIS');
      assert.equal(res.status, 400);
      assert.match((await errorOf(res)).message, /the deposit is expired/);
      assert.equal((await readDeposit(p, id)).status, 'expired');
    });

    it("is a 400 after the checkout's 15 minutes, even while the deposit is still pending", async () => {
      const id = await newCheckout();
      await choose(id, 'BCA_VA');
      p.clock.offsetMs = 15 * 60 * 1000;
      try {
        const res = await choose(id, 'QRIS');
        assert.equal(res.status, 400);
        assert.match((await errorOf(res)).message, /Checkout has expired/);
        // The same method still answers its deposit.
        assert.equal((await choose(id, 'BCA_VA')).status, 200);
      } finally {
        p.clock.offsetMs = 0;
      }
      assert.equal((await readDeposit(p, id)).paymentFiat.bankCode, 'BCA_VA');
    });

    it('concurrent first choices of different methods: one creates the deposit (201), the others switch it (200)', async () => {
      const id = await newCheckout();
      const answers = await Promise.all(['QRIS', 'BNI_VA', 'USDT-POLYGON', 'DANA'].map((m) => choose(id, m)));
      assert.deepEqual(answers.map((r) => r.status).sort(), [200, 200, 200, 201]);
      assert.equal(
        (await p.deps.db.selectFrom('deposits').select('id').where('deposit_id', '=', id).execute()).length,
        1,
      );
    });

    it("concurrent switches leave one method's details and a history entry per switch that answered 200", async () => {
      const id = await newCheckout();
      await choose(id, 'BCA_VA');
      const targets = ['QRIS', 'BNI_VA', 'USDC-POLYGON', 'BCA_TRANSFER', 'MANDIRI_VA', 'OVO'];
      const answers = await Promise.all(targets.map((m) => choose(id, m)));
      assert.deepEqual(
        answers.map((r) => r.status),
        targets.map(() => 200),
      );
      const row = await rowOf(id);
      const final = row.method_code ?? row.input_currency;
      const details = JSON.parse(row.payment_fiat) as { bankCode?: string; accountNumber?: string; qrData?: string };
      if (row.deposit_type === 'crypto') assert.deepEqual(details, {});
      else assert.equal(details.bankCode, final);
      assert.equal(row.va_number !== null, final.endsWith('_VA'));
      if (row.va_number) assert.equal(details.accountNumber, row.va_number);
      assert.equal((await codesOf(row.id)).length, final === 'BCA_TRANSFER' ? 1 : 0);
      const history = (await readDeposit(p, id)).activityHistory;
      assert.equal(history.filter((a) => a.activity === 'Payment Method Changed').length, targets.length);
      assert.match(history.at(-1)!.description, new RegExp(`to ${final};`));
    });
  });

  describe('bank transfer', () => {
    it("pays to the service's collection account, the amount raised by a unique code of 1 to 999 rupiah", async () => {
      const id = await newCheckout();
      const d = await dataOf<DepositView>(await choose(id, 'BCA_TRANSFER'));
      const code = Number(d.paymentFiat.uniqueCode);
      assert.ok(Number.isInteger(code) && code >= 1 && code <= 999, String(code));
      assert.equal(d.inputAmount, 150000 + code);
      assert.deepEqual(
        [d.paymentFiat.accountNumber, d.paymentFiat.accountName, d.paymentFiat.bankCode],
        ['8730012345', 'PT Kasir Sandbox Indonesia', 'BCA_TRANSFER'],
      );
      assert.equal(Date.parse(d.expiredAt) - Date.parse(d.createdAt), p.deps.config.expirySeconds.bank * 1000);
      const w = await dataOf<WidgetDeposit>(await widgetChoose(id, 'BCA_TRANSFER'));
      assert.deepEqual(
        [w.method.kind, w.amount, w.uniqueCode, w.accountNumber],
        ['bank', String(150000 + code), String(code), '8730012345'],
      );
    });

    it("does not count the unique code as the shopper's fee when the shopper bears the fees", async () => {
      const { id } = await create({ inputCurrency: 'IDR', outputAmount: 100000 });
      const w = await dataOf<WidgetDeposit>(await widgetChoose(id, 'BCA_TRANSFER'));
      assert.deepEqual([w.amount, w.fee], [String(100000 + Number(w.uniqueCode)), '0']);
    });

    it('gives concurrent transfers to one account different codes', async () => {
      const created = await Promise.all(
        Array.from({ length: 12 }, () =>
          p.bearer('POST', '/v1/deposit/fiat', {
            inputCurrency: 'IDR',
            inputAmount: 50000,
            outputCurrency: 'IDR',
            balanceType: 'fiat',
            paymentMethod: 'MANDIRI_TRANSFER',
          }),
        ),
      );
      assert.deepEqual(
        created.map((r) => r.status),
        created.map(() => 201),
      );
      const codes = await Promise.all(created.map(async (r) => (await dataOf<DepositView>(r)).paymentFiat.uniqueCode));
      assert.equal(new Set(codes).size, codes.length);
    });

    it('releases the code on completion, on expiry and on a switch', async () => {
      for (const end of ['completed', 'expired', 'switch'] as const) {
        const id = await newCheckout();
        await choose(id, 'BRI_TRANSFER');
        const row = await rowOf(id);
        assert.equal((await codesOf(row.id)).length, 1);
        if (end === 'switch') await choose(id, 'QRIS');
        else await p.signed('PATCH', `/v1/deposit/${id}`, { status: end });
        assert.equal((await codesOf(row.id)).length, 0, end);
      }
    });

    it('is listed among the payment methods as bank_transfer', async () => {
      const methods = await dataOf<Array<{ bankCode: string; depositPaymentType: string }>>(
        await p.bearer('GET', '/v1/deposit/payment-method?currency=IDR'),
      );
      assert.deepEqual(
        methods.filter((m) => m.depositPaymentType === 'bank_transfer').map((m) => m.bankCode),
        ['BCA_TRANSFER', 'MANDIRI_TRANSFER', 'BRI_TRANSFER'],
      );
    });
  });
});
