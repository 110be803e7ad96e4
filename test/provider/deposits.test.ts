import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { crc16CcittFalse, parseTlv } from '../../server/provider/deposits/payment-details';
import { isStellarAccountId } from '../../server/common/crypto-address';
import { bodyOf, dataOf, errorOf, type Envelope } from '../support/envelope';
import { createTestProvider, signHeaders, type TestProvider } from '../support/provider';
import {
  addMerchant,
  createCrypto,
  createFiat,
  fiatBody,
  listDeposits,
  outbox,
  readDeposit,
  type DepositView,
} from './deposit-helpers';

const PAGE_KEYS = [
  'docs',
  'totalDocs',
  'offset',
  'limit',
  'totalPages',
  'page',
  'pagingCounter',
  'hasPrevPage',
  'hasNextPage',
  'prevPage',
  'nextPage',
];

/** An item of GET /v1/deposit/payment-method. */
interface PaymentMethodItem {
  depositPaymentType: string;
  bankName: string;
  bankCode: string;
  currency: string;
  minimumAmount: number;
  maximumAmount: number;
  image: string;
  feeFlat: number;
  feePercentage: number;
}

/** What the deposit tests read of the OpenAPI document. */
interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, { security?: unknown; deprecated?: boolean }>>;
  components: { securitySchemes: Record<string, unknown> };
}

const lifetimeMs = (d: DepositView) => Date.parse(d.expiredAt) - Date.parse(d.createdAt);

describe('deposits', () => {
  let p: TestProvider;
  before(async () => {
    p = await createTestProvider();
  });
  after(async () => {
    await p.close();
  });

  describe('POST /v1/deposit/fiat', () => {
    describe('a VA deposit', () => {
      let res: Response;
      let body: Envelope<DepositView>;
      let d: DepositView;
      before(async () => {
        res = await p.bearer('POST', '/v1/deposit/fiat', fiatBody({ reference: 'order-va-1', note: 'first' }));
        body = await bodyOf<Envelope<DepositView>>(res);
        d = body.data;
      });

      it('answers 201 in the envelope', () => {
        assert.equal(res.status, 201);
        assert.equal(body.statusCode, 201);
        assert.equal(typeof body.message, 'string');
      });

      it('has a 24-hex record id and a UUID depositId', () => {
        assert.match(d.id, /^[0-9a-f]{24}$/);
        assert.match(d.depositId, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      });

      it('records the type, the owner, the currencies, the fee and the amounts', () => {
        assert.equal(d.depositType, 'fiat');
        assert.equal(d.userId.length, 24);
        assert.equal(d.inputCurrency, 'IDR');
        assert.equal(d.inputAmount, 150000);
        assert.equal(d.outputCurrency, 'IDR');
        assert.equal(d.exchangeRate, 1);
        assert.deepEqual(d.fee, { amount: 4000, percentage: 0, currency: 'IDR' });
        assert.equal(d.outputAmount, 146000);
      });

      it("issues a 16-digit VA number with the bank prefix in the merchant's name", () => {
        assert.equal(d.paymentFiat.bankCode, 'BCA_VA');
        assert.equal(d.paymentFiat.bankName, 'Bank Central Asia');
        assert.equal(d.paymentFiat.accountName, 'Kasir Sandbox Store');
        assert.match(d.paymentFiat.accountNumber!, /^39358\d{11}$/);
        assert.deepEqual(d.paymentCrypto, {});
      });

      it('starts pending with the waiting entry in its history', () => {
        assert.equal(d.status, 'pending');
        assert.equal(d.activityHistory.length, 1);
        assert.equal(d.activityHistory[0].status, 'pending');
        assert.equal(d.activityHistory[0].description, 'Waiting for payment');
        assert.equal(d.activityHistory[0].activity, 'Payee Payment');
      });

      it('keeps the reference and the note', () => {
        assert.equal(d.reference, 'order-va-1');
        assert.equal(d.note, 'first');
      });

      it('shows no exchangeInfo without a conversion', () => {
        assert.equal('exchangeInfo' in d, false, 'no exchangeInfo without conversion');
      });

      it('expires after 24 hours', () => {
        assert.equal(lifetimeMs(d), 24 * 3600 * 1000);
      });
    });

    describe('VA numbers', () => {
      const prefixes: Record<string, string> = {
        BNI_VA: '8808',
        BRI_VA: '26215',
        MANDIRI_VA: '88608',
        PERMATA_VA: '8625',
        CIMB_VA: '5919',
      };
      const numbers = new Map<string, string[]>();
      before(async () => {
        for (const code of Object.keys(prefixes)) {
          const list: string[] = [];
          for (let i = 0; i < 3; i++)
            list.push((await createFiat(p, { paymentMethod: code })).paymentFiat.accountNumber!);
          numbers.set(code, list);
        }
      });

      for (const [code, prefix] of Object.entries(prefixes)) {
        it(`start with ${prefix} for ${code}, 16 digits in all`, () => {
          for (const number of numbers.get(code)!)
            assert.match(number, new RegExp(`^${prefix}\\d{${16 - prefix.length}}$`));
        });
      }

      it('are never given twice', () => {
        const seen = new Set<string>();
        for (const number of [...numbers.values()].flat()) {
          assert.ok(!seen.has(number));
          seen.add(number);
        }
      });

      it('are unique at the database too: a duplicate insert is refused', async () => {
        const d = await createFiat(p);
        const row = await p.deps.db
          .selectFrom('deposits')
          .selectAll()
          .where('deposit_id', '=', d.depositId)
          .executeTakeFirstOrThrow();
        await assert.rejects(
          p.deps.db
            .insertInto('deposits')
            .values({ ...row, id: 'x'.repeat(24), deposit_id: 'dup-va', reference: null })
            .execute(),
          /unique/i,
        );
      });
    });

    describe('a QRIS deposit', () => {
      let d: DepositView;
      let qr: string;
      before(async () => {
        d = await createFiat(p, { paymentMethod: 'QRIS', inputAmount: 150000 });
        qr = d.paymentFiat.qrData!;
      });

      it('charges the QRIS fee of 0.7%', () => {
        assert.deepEqual(d.fee, { amount: 1050, percentage: 0.7, currency: 'IDR' });
        assert.equal(d.outputAmount, 148950);
      });

      it('carries a dynamic EMVCo payload with the amount, the currency and the merchant', () => {
        assert.equal(d.paymentFiat.bankCode, 'QRIS');
        const fields = parseTlv(qr);
        assert.equal(fields.get('00'), '01');
        assert.equal(fields.get('01'), '12');
        assert.ok(fields.get('26')!.includes('ID.CO.'));
        assert.equal(fields.get('52')!.length, 4);
        assert.equal(fields.get('53'), '360');
        assert.equal(fields.get('54'), '150000');
        assert.equal(fields.get('58'), 'ID');
        assert.equal(fields.get('59'), 'Kasir Sandbox Store');
        assert.ok(fields.get('60'));
      });

      it('puts the record id in the bill number', () => {
        const bill = parseTlv(parseTlv(qr).get('62')!);
        assert.equal(bill.get('01'), d.id);
      });

      it('ends the payload with a correct CRC', () => {
        assert.equal(qr.slice(-8, -4), '6304');
        assert.equal(qr.slice(-4), crc16CcittFalse(qr.slice(0, -4)).toString(16).toUpperCase().padStart(4, '0'));
      });

      it('shows the same payload under qrData in the detail read', async () => {
        assert.equal((await readDeposit(p, d.depositId)).paymentFiat.qrData, qr);
      });

      it('expires after 30 minutes', () => {
        assert.equal(lifetimeMs(d), 30 * 60 * 1000);
      });
    });

    it('computes CRC-16/CCITT-FALSE to the standard check value', () => {
      assert.equal(crc16CcittFalse('123456789'), 0x29b1);
      assert.equal(crc16CcittFalse(''), 0xffff);
    });

    describe('an e-wallet deposit', () => {
      let d: DepositView;
      before(async () => {
        d = await createFiat(p, { paymentMethod: 'OVO', inputAmount: 100000 });
      });

      it("charges the e-wallet's percentage fee", () => {
        assert.deepEqual(d.fee, { amount: 1500, percentage: 1.5, currency: 'IDR' });
        assert.equal(d.outputAmount, 98500);
      });

      it('points checkoutUrl at the sandbox approval page', () => {
        assert.equal(d.paymentFiat.checkoutUrl, `${p.deps.config.baseUrl}/sandbox/ewallet/${d.depositId}`);
      });

      it('expires after 15 minutes', () => {
        assert.equal(lifetimeMs(d), 15 * 60 * 1000);
      });
    });

    it('derives inputAmount from outputAmount.fiat: the smallest amount whose output after a percentage fee reaches it', async () => {
      const d = await createFiat(p, { inputAmount: undefined, outputAmount: { fiat: 100000 }, paymentMethod: 'OVO' });
      assert.equal(d.inputAmount, 101523);
      assert.equal(d.fee.amount, 1523);
      assert.equal(d.outputAmount, 100000);
    });

    it('derives inputAmount from outputAmount.fiat as the output plus a flat fee', async () => {
      const va = await createFiat(p, { inputAmount: undefined, outputAmount: { fiat: 150000 } });
      assert.equal(va.inputAmount, 154000);
      assert.equal(va.outputAmount, 150000);
    });

    it('converts directly into a crypto with exchangeInfo', async () => {
      const d = await createFiat(p, { paymentMethod: 'QRIS', outputCurrency: 'USDC-POLYGON' });
      assert.equal(d.exchangeRate, 0.000060624431646);
      assert.equal(d.outputAmount, 9.030009);
      assert.deepEqual(d.exchangeInfo, {
        exchangeRate: 0.000060624431646,
        outputCurrency: 'USDC-POLYGON',
        outputAmount: 9.030009,
      });
    });

    it('derives inputAmount from outputAmount.crypto', async () => {
      const byOutput = await createFiat(p, {
        paymentMethod: 'BCA_VA',
        outputCurrency: 'USDC-POLYGON',
        inputAmount: undefined,
        outputAmount: { crypto: 10 },
      });
      // (x - 4000) * rate >= 10  =>  x = 4000 + ceil(10 / rate) = 4000 + 164950 (rounded output reaches 10.000000)
      assert.equal(byOutput.outputAmount, 10);
      assert.equal(byOutput.inputAmount, 168950);
    });

    it('converts into USD rounded to cents', async () => {
      const usd = await createFiat(p, { outputCurrency: 'USD', inputAmount: 1000000 });
      assert.equal(usd.exchangeRate, 0.0000606060606061);
      assert.equal(usd.outputAmount, 60.36); // 996000 x 0.0000606060606061 = 60.3636... -> 60.36
    });

    it('answers the interface error row for an unknown payment method', async () => {
      const res = await p.bearer('POST', '/v1/deposit/fiat', fiatBody({ paymentMethod: 'NOPE_VA' }));
      assert.equal(res.status, 400);
      assert.deepEqual(await res.json(), { statusCode: 400, error: 'Not Found', message: 'Payment method not found' });
    });

    const badFiat: Array<[string, Record<string, unknown>, RegExp]> = [
      ['missing paymentMethod', { paymentMethod: undefined }, /paymentMethod/],
      ['missing balanceType', { balanceType: undefined }, /balanceType/],
      ['missing outputCurrency', { outputCurrency: undefined }, /outputCurrency/],
      ['negative amount', { inputAmount: -5 }, /inputAmount: must be positive/],
      ['zero amount', { inputAmount: 0 }, /inputAmount: must be positive/],
      ['string amount', { inputAmount: '150000' }, /inputAmount/],
      ['both amounts', { outputAmount: { fiat: 10000 } }, /exactly one of inputAmount and outputAmount/],
      ['neither amount', { inputAmount: undefined }, /exactly one of inputAmount and outputAmount/],
      ['both output kinds', { inputAmount: undefined, outputAmount: { fiat: 1, crypto: 1 } }, /outputAmount/],
      [
        'fiat output for a crypto',
        { inputAmount: undefined, outputCurrency: 'USDC-POLYGON', outputAmount: { fiat: 10 } },
        /outputAmount.fiat/,
      ],
      ['IDR decimals', { inputAmount: 150000.5 }, /inputAmount: IDR amounts have at most 0 decimal places/],
      ['below minimum', { inputAmount: 9999 }, /inputAmount: 9999 IDR is below the minimum of 10000 IDR for BCA_VA/],
      ['above maximum', { inputAmount: 50000001 }, /inputAmount: .* above the maximum of 50000000 IDR/],
      [
        'far above maximum, not "must be positive"',
        { inputAmount: 1e300 },
        /^inputAmount: IDR amounts are at most 1000000000000$/,
      ],
      [
        'the smallest positive number: its decimals, not "must be positive"',
        { inputAmount: 5e-324 },
        /^inputAmount: IDR amounts have at most 0 decimal places$/,
      ],
      [
        'an output beyond the maximum',
        { inputAmount: undefined, outputAmount: { fiat: 1e25 } },
        /^outputAmount\.fiat: IDR amounts are at most 1000000000000$/,
      ],
      [
        "an output above the method's maximum",
        { inputAmount: undefined, outputAmount: { fiat: 60000000 } },
        /^outputAmount: \d+ IDR is above the maximum of 50000000 IDR for BCA_VA$/,
      ],
      ['unknown input currency', { inputCurrency: 'XYZ' }, /inputCurrency/],
      ['wrong input currency', { inputCurrency: 'USD' }, /inputCurrency: BCA_VA accepts IDR only/],
      ['unknown output currency', { outputCurrency: 'DOGE' }, /outputCurrency: unsupported currency/],
      ['note too long', { note: 'x'.repeat(501) }, /^note: /],
      ['reference empty', { reference: '' }, /^reference: /],
    ];
    for (const [name, over, message] of badFiat) {
      it(`rejects ${name} with a 400 naming the field`, async () => {
        const res = await p.bearer('POST', '/v1/deposit/fiat', fiatBody(over));
        const body = await errorOf(res);
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(body.statusCode, 400);
        assert.equal(body.error, 'Bad Request');
        assert.match(body.message, message);
      });
    }

    it('answers malformed JSON in the envelope', async () => {
      const res = await p.app.request('http://localhost/v1/deposit/fiat', {
        method: 'POST',
        headers: { Authorization: `Bearer ${p.creds.accessToken}`, 'Content-Type': 'application/json' },
        body: '{"inputCurrency":',
      });
      assert.equal(res.status, 400);
      assert.deepEqual(await res.json(), {
        statusCode: 400,
        error: 'Bad Request',
        message: 'Malformed JSON in request body',
      });
    });

    it('answers a body that is not an object with a 400 naming the body', async () => {
      const res = await p.bearer('POST', '/v1/deposit/fiat', [1, 2]);
      assert.equal(res.status, 400);
      assert.match((await errorOf(res)).message, /^body: /);
    });

    it('requires the bearer token', async () => {
      const res = await p.app.request('http://localhost/v1/deposit/fiat', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(fiatBody()),
      });
      assert.equal(res.status, 401);
      assert.equal((await errorOf(res)).error, 'Unauthorized');
    });

    it('refuses a token that is not one', async () => {
      const bad = await p.bearer('POST', '/v1/deposit/fiat', fiatBody(), 'not-a-token');
      assert.equal(bad.status, 401);
    });

    it('answers 409 for a second deposit with a reference the merchant used already', async () => {
      await createFiat(p, { reference: 'dup-ref' });
      const res = await p.bearer('POST', '/v1/deposit/fiat', fiatBody({ reference: 'dup-ref' }));
      assert.equal(res.status, 409);
      assert.deepEqual(await res.json(), {
        statusCode: 409,
        error: 'Conflict',
        message: "reference: a deposit with reference 'dup-ref' already exists",
      });
    });

    it('lets another merchant use the same reference', async () => {
      await createFiat(p, { reference: 'shared-ref' });
      const other = await addMerchant(p);
      const res2 = await p.bearer('POST', '/v1/deposit/fiat', fiatBody({ reference: 'shared-ref' }), other.token);
      assert.equal(res2.status, 201);
    });

    it('lets exactly one of many concurrent creates with one reference win', async () => {
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          p.bearer(
            'POST',
            i % 2 ? '/v1/deposit/fiat' : '/v1/deposit/crypto',
            i % 2
              ? fiatBody({ reference: 'race-1' })
              : { inputCurrency: 'USDC-POLYGON', inputAmount: 10, reference: 'race-1' },
          ),
        ),
      );
      const statuses = results.map((r) => r.status);
      assert.equal(statuses.filter((s) => s === 201).length, 1, statuses.join(','));
      assert.ok(
        statuses.filter((s) => s !== 201).every((s) => s === 409),
        statuses.join(','),
      );
      const rows = await p.deps.db.selectFrom('deposits').select('id').where('reference', '=', 'race-1').execute();
      assert.equal(rows.length, 1);
    });
  });

  describe('POST /v1/deposit/crypto', () => {
    describe('an EVM deposit', () => {
      let res: Response;
      let d: DepositView;
      before(async () => {
        res = await p.bearer('POST', '/v1/deposit/crypto', {
          inputCurrency: 'USDC-POLYGON',
          inputAmount: 25.5,
          reference: 'c-1',
        });
        d = await dataOf<DepositView>(res);
      });

      it('answers 201', () => {
        assert.equal(res.status, 201);
      });

      it('keeps the amount in the crypto itself when no outputCurrency is given', () => {
        assert.equal(d.depositType, 'crypto');
        assert.equal(d.outputCurrency, 'USDC-POLYGON');
        assert.equal(d.outputAmount, 25.5);
      });

      it("gives a well-formed address on the asset's network", () => {
        assert.match(d.paymentCrypto.payoutWallet!, /^0x[0-9a-fA-F]{40}$/);
        assert.equal(d.paymentCrypto.network, 'POLYGON');
        assert.deepEqual(d.paymentFiat, {});
      });

      it('starts pending without exchangeInfo', () => {
        assert.equal(d.status, 'pending');
        assert.equal('exchangeInfo' in d, false);
      });

      it('expires after 60 minutes', () => {
        assert.equal(lifetimeMs(d), 60 * 60 * 1000);
      });
    });

    describe('a Stellar deposit converted into fiat', () => {
      let res: Response;
      let d: DepositView;
      before(async () => {
        res = await p.bearer('POST', '/v1/deposit/crypto', {
          inputCurrency: 'XLM-STELLAR',
          inputAmount: 12.3456789,
          outputCurrency: 'IDR',
        });
        d = await dataOf<DepositView>(res);
      });

      it('gives a valid Stellar G-address', () => {
        assert.equal(res.status, 201);
        assert.match(d.paymentCrypto.payoutWallet!, /^G[A-Z2-7]{55}$/);
        assert.ok(isStellarAccountId(d.paymentCrypto.payoutWallet!));
        assert.equal(d.paymentCrypto.network, 'STELLAR');
      });

      it('converts at the XLM rate, rounded to the fiat, with exchangeInfo', () => {
        assert.equal(d.exchangeRate, 4950);
        assert.equal(d.outputAmount, 61111); // 12.3456789 x 4950 = 61111.110555 -> 61111
        assert.deepEqual(d.exchangeInfo, { exchangeRate: 4950, outputCurrency: 'IDR', outputAmount: 61111 });
      });
    });

    it('answers the interface error row for an unknown crypto', async () => {
      const res = await p.bearer('POST', '/v1/deposit/crypto', { inputCurrency: 'DOGE-DOGE', inputAmount: 1 });
      assert.equal(res.status, 400);
      assert.deepEqual(await res.json(), { statusCode: 400, error: 'Not Found', message: 'Crypto not found' });
    });

    const badCrypto: Array<[string, Record<string, unknown>, RegExp]> = [
      ['a missing amount', { inputCurrency: 'USDC-POLYGON' }, /inputAmount/],
      ['a negative amount', { inputCurrency: 'USDC-POLYGON', inputAmount: -1 }, /inputAmount: must be positive/],
      [
        'more decimals than the crypto has',
        { inputCurrency: 'USDC-POLYGON', inputAmount: 1.0000001 },
        /inputAmount: USDC-POLYGON amounts have at most 6 decimal places/,
      ],
      [
        'a currency the crypto does not pair with',
        { inputCurrency: 'IDRX-POLYGON', inputAmount: 100, outputCurrency: 'USD' },
        /outputCurrency: USD does not pair with IDRX-POLYGON/,
      ],
      [
        'an unknown output currency',
        { inputCurrency: 'USDC-POLYGON', inputAmount: 1, outputCurrency: 'ZZZ' },
        /outputCurrency: unsupported currency/,
      ],
      ['a missing inputCurrency', { inputAmount: 1 }, /inputCurrency/],
    ];
    for (const [what, b, message] of badCrypto) {
      it(`rejects ${what} with a 400 naming the field`, async () => {
        const res = await p.bearer('POST', '/v1/deposit/crypto', b);
        assert.equal(res.status, 400, JSON.stringify(b));
        assert.match((await errorOf(res)).message, message);
      });
    }
  });

  describe('GET /v1/deposit/:depositIdOrReference', () => {
    let d: DepositView;
    before(async () => {
      d = await createFiat(p, { reference: 'read-me' });
    });

    for (const [what, key] of [
      ['depositId', () => d.depositId],
      ['reference', () => 'read-me'],
    ] as const) {
      it(`reads by ${what}, with isReconciled and _id on history, and no payerInfo before there is a payer`, async () => {
        const res = await p.signed('GET', `/v1/deposit/${key()}`);
        assert.equal(res.status, 200);
        const body = await bodyOf<Envelope<DepositView>>(res);
        assert.equal(body.statusCode, 200);
        assert.equal(body.data.depositId, d.depositId);
        assert.equal(body.data.id, d.id);
        assert.equal(body.data.isReconciled, false);
        assert.equal('payerInfo' in body.data, false);
        assert.match(body.data.activityHistory[0]._id, /^[0-9a-f]{24}$/);
        assert.equal(body.data.bankNote, '');
      });
    }

    it('is 404 for an unknown id', async () => {
      const res = await p.signed('GET', '/v1/deposit/nope');
      assert.equal(res.status, 404);
      assert.deepEqual(await res.json(), { statusCode: 404, error: 'Not Found', message: 'Deposit not found' });
    });

    it("is 404 for another merchant's deposit", async () => {
      const other = await addMerchant(p);
      const res = await p.signed('GET', `/v1/deposit/${d.depositId}`, undefined, {
        clientId: other.clientId,
        secret: other.clientSecret,
      });
      assert.equal(res.status, 404);
    });

    it('requires the signature headers', async () => {
      const res = await p.app.request(`http://localhost/v1/deposit/x`);
      assert.equal(res.status, 401);
    });
  });

  describe('GET /v1/deposit', () => {
    let q: TestProvider;
    before(async () => {
      q = await createTestProvider();
      for (let i = 0; i < 13; i++) {
        q.clock.offsetMs = i * 1000;
        await createFiat(q, { reference: `list-${i}` });
      }
      q.clock.offsetMs = 14_000;
      for (let i = 0; i < 2; i++) await createCrypto(q, { inputCurrency: 'USDT-ETHEREUM', inputAmount: 5 });
      q.clock.offsetMs = 15_000;
    });
    after(async () => {
      await q.close();
    });

    describe('the first page', () => {
      let res: Response;
      let data: Awaited<ReturnType<typeof listDeposits>>;
      before(async () => {
        res = await q.signed('GET', '/v1/deposit');
        data = (await bodyOf<Envelope<typeof data>>(res)).data;
      });

      it('answers exactly the pagination envelope', () => {
        assert.equal(res.status, 200);
        assert.deepEqual(Object.keys(data).sort(), [...PAGE_KEYS].sort());
      });

      it('holds 10 deposits by default, with the counts and links of page 1', () => {
        assert.equal(data.docs.length, 10);
        assert.equal(data.totalDocs, 15);
        assert.equal(data.limit, 10);
        assert.equal(data.page, 1);
        assert.equal(data.totalPages, 2);
        assert.equal(data.offset, 0);
        assert.equal(data.pagingCounter, 1);
        assert.equal(data.hasPrevPage, false);
        assert.equal(data.hasNextPage, true);
        assert.equal(data.prevPage, null);
        assert.equal(data.nextPage, 2);
      });

      it('sorts by createdAt ascending by default', () => {
        assert.equal(data.docs[0].reference, 'list-0', 'createdAt ascending by default');
      });

      it('leaves payerInfo out of list items', () => {
        assert.equal('payerInfo' in data.docs[0], false);
      });
    });

    it('pages with page and limit', async () => {
      const data = await listDeposits(q, '?page=2&limit=5');
      assert.equal(data.docs.length, 5);
      assert.deepEqual(
        [data.offset, data.pagingCounter, data.prevPage, data.nextPage, data.totalPages],
        [5, 6, 1, 3, 3],
      );
      assert.equal(data.docs[0].reference, 'list-5');
    });

    it('sorts newest first within a depositType filter', async () => {
      const data = await listDeposits(q, '?sort=-createdAt&limit=3&depositType=fiat');
      assert.deepEqual(
        data.docs.map((d) => d.reference),
        ['list-12', 'list-11', 'list-10'],
      );
      assert.equal(data.totalDocs, 13);
    });

    it('filters by depositType', async () => {
      const data = await listDeposits(q, '?depositType=crypto');
      assert.equal(data.totalDocs, 2);
      assert.ok(data.docs.every((d) => d.depositType === 'crypto'));
    });

    it('answers an empty page past the last one', async () => {
      const data = await listDeposits(q, '?page=9');
      assert.deepEqual(
        [data.docs.length, data.hasPrevPage, data.hasNextPage, data.prevPage, data.nextPage],
        [0, true, false, 8, null],
      );
    });

    it('gives up to 100 per page', async () => {
      const data = await listDeposits(q, '?limit=100');
      assert.equal(data.docs.length, 15);
    });

    describe('after one deposit is completed', () => {
      let target: DepositView;
      let patchedStatus: number;
      before(async () => {
        target = (await listDeposits(q, '?limit=1')).docs[0];
        q.clock.offsetMs = 20_000;
        patchedStatus = (await q.bearer('PATCH', `/v1/deposit/${target.depositId}`, { status: 'completed' })).status;
      });

      it('accepted the status update', () => {
        assert.equal(patchedStatus, 200);
      });

      it('filters by status', async () => {
        const data = await listDeposits(q, '?status=completed');
        assert.deepEqual(
          data.docs.map((d) => d.depositId),
          [target.depositId],
        );
      });

      it('sorts by updatedAt', async () => {
        const data = await listDeposits(q, '?sort=-updatedAt&limit=1');
        assert.equal(data.docs[0].depositId, target.depositId);
      });

      it('counts the others as pending', async () => {
        const data = await listDeposits(q, '?status=pending');
        assert.equal(data.totalDocs, 14);
      });
    });

    const badQueries: Array<[string, string]> = [
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=abc', 'limit'],
      ['page=0', 'page'],
      ['page=1.5', 'page'],
      ['sort=amount', 'sort'],
      ['status=paid', 'status'],
      ['depositType=card', 'depositType'],
    ];
    for (const [query, field] of badQueries) {
      it(`rejects ${query} with a 400 naming ${field}`, async () => {
        const res = await q.signed('GET', `/v1/deposit?${query}`);
        assert.equal(res.status, 400, query);
        const body = await errorOf(res);
        assert.equal(body.statusCode, 400);
        assert.match(body.message, new RegExp(`^${field}: `));
      });
    }

    it("shows only the caller's deposits", async () => {
      const other = await addMerchant(q);
      const data = await listDeposits(q, '', { clientId: other.clientId, secret: other.clientSecret });
      assert.equal(data.totalDocs, 0);
      assert.equal(data.totalPages, 1);
    });
  });

  describe('GET /v1/deposit/payment-method', () => {
    let res: Response;
    let methods: PaymentMethodItem[];
    before(async () => {
      res = await p.bearer('GET', '/v1/deposit/payment-method');
      methods = await dataOf<PaymentMethodItem[]>(res);
    });

    it('lists every Indonesian method', () => {
      assert.equal(res.status, 200);
      const codes = methods.map((m) => m.bankCode);
      for (const code of [
        'BCA_VA',
        'BNI_VA',
        'BRI_VA',
        'MANDIRI_VA',
        'PERMATA_VA',
        'CIMB_VA',
        'QRIS',
        'OVO',
        'DANA',
        'SHOPEEPAY',
        'GOPAY',
        'LINKAJA',
        'BCA_TRANSFER',
        'MANDIRI_TRANSFER',
        'BRI_TRANSFER',
      ]) {
        assert.ok(codes.includes(code), code);
      }
    });

    it("gives each method exactly the interface's fields, with its limits and kind", () => {
      for (const m of methods) {
        assert.deepEqual(Object.keys(m).sort(), [
          'bankCode',
          'bankName',
          'currency',
          'depositPaymentType',
          'feeFlat',
          'feePercentage',
          'image',
          'maximumAmount',
          'minimumAmount',
        ]);
        assert.ok(m.minimumAmount > 0 && m.maximumAmount > m.minimumAmount);
        assert.ok(['va', 'qris', 'ewallet', 'bank_transfer'].includes(m.depositPaymentType));
      }
    });

    it("serves each method's logo as SVG", async () => {
      for (const m of methods) {
        const logo = await p.app.request(m.image.replace(p.deps.config.baseUrl, 'http://localhost'));
        assert.equal(logo.status, 200, m.image);
        assert.match(logo.headers.get('content-type')!, /image\/svg\+xml/);
        assert.match(await logo.text(), /^<svg /);
      }
    });

    it('shows the QRIS fee', () => {
      const qris = methods.find((m) => m.bankCode === 'QRIS')!;
      assert.deepEqual([qris.depositPaymentType, qris.feeFlat, qris.feePercentage], ['qris', 0, 0.7]);
    });

    it('filters by currency', async () => {
      assert.ok(
        (await dataOf<PaymentMethodItem[]>(await p.bearer('GET', '/v1/deposit/payment-method?currency=IDR'))).length >=
          12,
      );
      assert.deepEqual(
        await dataOf<PaymentMethodItem[]>(await p.bearer('GET', '/v1/deposit/payment-method?currency=USD')),
        [],
      );
    });

    it('needs the bearer token', async () => {
      assert.equal((await p.app.request('http://localhost/v1/deposit/payment-method')).status, 401);
    });

    it('answers 404 for an unknown logo', async () => {
      assert.equal((await p.app.request('http://localhost/static/logos/nope.svg')).status, 404);
    });
  });

  describe('transitions', () => {
    describe('cancel', () => {
      let d: DepositView;
      let res: Response;
      before(async () => {
        d = await createFiat(p, { reference: 'cancel-me' });
        res = await p.bearer('PATCH', `/v1/deposit/${d.depositId}/cancel`);
      });

      it('answers 200 without data', async () => {
        assert.equal(res.status, 200);
        const body = await bodyOf<Record<string, unknown>>(res);
        assert.equal(body.statusCode, 200);
        assert.equal('data' in body, false);
      });

      it('moves the deposit to expired with a cancelled entry in its history', async () => {
        const read = await readDeposit(p, d.depositId);
        assert.equal(read.status, 'expired');
        assert.deepEqual(
          read.activityHistory.map((a) => a.status),
          ['pending', 'expired'],
        );
        assert.match(read.activityHistory[1].description, /[Cc]ancelled/);
      });

      it('sends one deposit.expired webhook', async () => {
        const events = await outbox(p, d.depositId);
        assert.equal(events.length, 1);
        assert.equal(events[0].type, 'deposit.expired');
        assert.equal(events[0].payload.orderId, d.depositId);
        assert.equal(events[0].payload.reference, 'cancel-me');
        assert.equal(events[0].payload.data.status, 'expired');
      });

      it('refuses to cancel the deposit again: it is not pending any more', async () => {
        const again = await p.bearer('PATCH', `/v1/deposit/${d.depositId}/cancel`);
        assert.equal(again.status, 400);
        assert.match((await errorOf(again)).message, /expired/);
      });

      it('is 404 for an unknown deposit', async () => {
        const unknown = await p.bearer('PATCH', '/v1/deposit/nope/cancel');
        assert.equal(unknown.status, 404);
      });
    });

    describe('sandbox status update to completed (bearer)', () => {
      let d: DepositView;
      let res: Response;
      before(async () => {
        d = await createFiat(p);
        res = await p.bearer('PATCH', `/v1/deposit/${d.depositId}`, { status: 'completed' });
      });

      it('completes the deposit, reconciled, with a payer and the history entry', async () => {
        assert.equal(res.status, 200);
        const { data } = await bodyOf<Envelope<DepositView>>(res);
        assert.equal(data.status, 'completed');
        assert.equal(data.isReconciled, true);
        assert.ok(data.payerInfo!.transactionCode);
        assert.deepEqual(
          data.activityHistory.map((a) => a.status),
          ['pending', 'completed'],
        );
      });

      it('sends deposit.completed', async () => {
        const events = await outbox(p, d.depositId);
        assert.deepEqual(
          events.map((e) => e.type),
          ['deposit.completed'],
        );
        assert.equal(events[0].payload.data.status, 'completed');
        assert.equal(events[0].payload.depositId, d.depositId);
      });

      it('keeps completed final: no other status, no cancel', async () => {
        const again = await p.bearer('PATCH', `/v1/deposit/${d.depositId}`, { status: 'expired' });
        assert.equal(again.status, 400);
        assert.match((await errorOf(again)).message, /^status: deposit is completed/);
        assert.equal((await p.bearer('PATCH', `/v1/deposit/${d.depositId}/cancel`)).status, 400);
      });
    });

    describe('sandbox status update to expired (signature)', () => {
      let d: DepositView;
      let res: Response;
      before(async () => {
        d = await createFiat(p);
        res = await p.signed('PATCH', `/v1/deposit/${d.depositId}`, { status: 'expired' });
      });

      it('accepts the signature and expires the deposit', async () => {
        assert.equal(res.status, 200);
        assert.equal((await dataOf<DepositView>(res)).status, 'expired');
      });

      it('sends deposit.expired', async () => {
        assert.deepEqual(
          (await outbox(p, d.depositId)).map((e) => e.type),
          ['deposit.expired'],
        );
      });
    });

    describe('sandbox status update refusals', () => {
      let d: DepositView;
      before(async () => {
        d = await createFiat(p);
      });

      it('answers the interface row for an unknown deposit', async () => {
        const res = await p.bearer('PATCH', '/v1/deposit/00000000-0000-0000-0000-000000000000', {
          status: 'completed',
        });
        assert.equal(res.status, 400);
        assert.deepEqual(await res.json(), { statusCode: 400, error: 'Bad Request', message: 'Deposit not found' });
      });

      for (const b of [{ status: 'pending' }, { status: 'paid' }, {}, { status: 1 }]) {
        it(`rejects ${JSON.stringify(b)} with a 400 naming status`, async () => {
          const res = await p.bearer('PATCH', `/v1/deposit/${d.depositId}`, b);
          assert.equal(res.status, 400);
          assert.match((await errorOf(res)).message, /^status: /);
        });
      }

      it('answers another merchant as if the deposit did not exist', async () => {
        const other = await addMerchant(p);
        const res = await p.bearer('PATCH', `/v1/deposit/${d.depositId}`, { status: 'completed' }, other.token);
        assert.deepEqual(await res.json(), { statusCode: 400, error: 'Bad Request', message: 'Deposit not found' });
      });
    });

    describe('outside sandbox mode', () => {
      let prod: TestProvider;
      let d: DepositView;
      before(async () => {
        prod = await createTestProvider({ sandbox: false });
        d = await createFiat(prod);
      });
      after(async () => {
        await prod.close();
      });

      it('refuses the sandbox status update with 403', async () => {
        const res = await prod.bearer('PATCH', `/v1/deposit/${d.depositId}`, { status: 'completed' });
        assert.equal(res.status, 403);
        assert.equal((await errorOf(res)).error, 'Forbidden');
      });

      it('refuses the e-wallet approval page with 403', async () => {
        assert.equal((await prod.app.request(`http://localhost/sandbox/ewallet/${d.depositId}`)).status, 403);
      });
    });

    describe('the e-wallet approval page', () => {
      const approve = (pagePath: string) =>
        p.app.request(`http://localhost${pagePath}/approve`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          body: '',
        });

      it('is a page without script under a strict CSP', async () => {
        const d = await createFiat(p, { paymentMethod: 'DANA' });
        const res = await p.app.request(`http://localhost${new URL(d.paymentFiat.checkoutUrl!).pathname}`);
        assert.equal(res.status, 200);
        const csp = res.headers.get('content-security-policy')!;
        assert.match(csp, /default-src 'none'/);
        assert.doesNotMatch(csp, /script-src/);
        assert.doesNotMatch(await res.text(), /<script/);
      });

      it('shows the amount and a form to approve', async () => {
        const d = await createFiat(p, { paymentMethod: 'DANA' });
        const html = await (
          await p.app.request(`http://localhost${new URL(d.paymentFiat.checkoutUrl!).pathname}`)
        ).text();
        assert.match(html, /Rp 150\.000/);
        assert.match(html, new RegExp(`action="/sandbox/ewallet/${d.depositId}/approve"`));
      });

      it('completes the deposit on approve, with deposit.completed, and redirects back to the page', async () => {
        const d = await createFiat(p, { paymentMethod: 'DANA' });
        const pagePath = new URL(d.paymentFiat.checkoutUrl!).pathname;
        const res = await approve(pagePath);
        assert.equal(res.status, 303);
        assert.equal(res.headers.get('location'), pagePath);
        assert.equal((await readDeposit(p, d.depositId)).status, 'completed');
        assert.deepEqual(
          (await outbox(p, d.depositId)).map((e) => e.type),
          ['deposit.completed'],
        );
      });

      it('says the payment was approved once it is', async () => {
        const d = await createFiat(p, { paymentMethod: 'DANA' });
        const pagePath = new URL(d.paymentFiat.checkoutUrl!).pathname;
        await approve(pagePath);
        assert.match(await (await p.app.request(`http://localhost${pagePath}`)).text(), /Payment approved/);
      });

      it('records a failed attempt on decline: the deposit stays pending (docs/indonesian-payments.md)', async () => {
        const e = await createFiat(p, { paymentMethod: 'SHOPEEPAY' });
        const res = await p.app.request(`http://localhost/sandbox/ewallet/${e.depositId}/decline`, { method: 'POST' });
        assert.equal(res.status, 303);
        const d = await readDeposit(p, e.depositId);
        assert.equal(d.status, 'pending');
        assert.equal(d.activityHistory.at(-1)!.description, 'Payment failed: declined');
      });

      it('is a 404 for a deposit that is not an e-wallet one, which stays pending', async () => {
        const va = await createFiat(p);
        assert.equal((await p.app.request(`http://localhost/sandbox/ewallet/${va.depositId}`)).status, 404);
        assert.equal(
          (await p.app.request(`http://localhost/sandbox/ewallet/${va.depositId}/approve`, { method: 'POST' })).status,
          404,
        );
        assert.equal((await readDeposit(p, va.depositId)).status, 'pending');
      });
    });
  });

  describe('per service instance', () => {
    it('prices with the rate table of its own configuration', async () => {
      const cheap = await createTestProvider({ rates: { USD: '16000' } });
      try {
        const usd = await createFiat(cheap, { outputCurrency: 'USD', inputAmount: 1000000 });
        assert.equal(usd.exchangeRate, 0.0000625);
        assert.equal(usd.outputAmount, 62.25); // 996000 / 16000
        assert.equal(
          (await createFiat(p, { outputCurrency: 'USD', inputAmount: 1000000 })).exchangeRate,
          0.0000606060606061,
          'the other instance keeps the default table',
        );
      } finally {
        await cheap.close();
      }
    });

    it('keeps its caches to itself', async () => {
      const other = await createTestProvider();
      try {
        assert.notEqual(other.deps.caches.depositViews, p.deps.caches.depositViews);
        assert.notEqual(other.deps.caches.organizationNames, p.deps.caches.organizationNames);
      } finally {
        await other.close();
      }
    });
  });

  describe('the OpenAPI document and /docs', () => {
    let doc: OpenApiDocument;
    before(async () => {
      doc = await bodyOf<OpenApiDocument>(await p.app.request('http://localhost/v1/openapi.json'));
    });

    it('is OpenAPI 3.1 with every deposit route', () => {
      assert.equal(doc.openapi, '3.1.0');
      for (const path of [
        '/v1/deposit',
        '/v1/deposit/payment-method',
        '/v1/deposit/{depositIdOrReference}',
        '/v1/deposit/fiat',
        '/v1/deposit/crypto',
        '/v1/deposit/{depositId}/cancel',
        '/v1/reference/currencies',
        '/v1/reference/cryptos',
        '/v1/checkout',
      ]) {
        assert.ok(doc.paths[path], path);
      }
      // The sandbox status update (PATCH /v1/deposit/:depositId) shares the read's path: one path, one parameter name.
      assert.ok(doc.paths['/v1/deposit/{depositIdOrReference}'].patch);
    });

    it('declares the security schemes and which route takes which', () => {
      assert.deepEqual(Object.keys(doc.components.securitySchemes).sort(), [
        'Bearer',
        'ClientId',
        'Signature',
        'Timestamp',
      ]);
      assert.deepEqual(doc.paths['/v1/deposit/fiat'].post.security, [{ Bearer: [] }]);
    });

    it('marks the deprecated reference routes', () => {
      assert.equal(doc.paths['/v1/reference/cryptos'].get.deprecated, true);
    });

    it('serves the /docs page: every operation of the document, rendered on the server, with no script at all', async () => {
      const page = await p.app.request('http://localhost/docs');
      assert.equal(page.status, 200);
      assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'none'/);
      assert.doesNotMatch(page.headers.get('content-security-policy') ?? '', /script-src/);
      const html = await page.text();
      assert.doesNotMatch(html, /<script/i, 'no script');
      for (const [path, item] of Object.entries(
        doc.paths as Record<string, Record<string, { operationId?: string }>>,
      )) {
        for (const op of Object.values(item))
          if (op.operationId) assert.match(html, new RegExp(`id="op-${op.operationId}"`), path);
      }
      assert.match(html, /id="schema-CreateRecipientRequest"/);
      assert.match(html, /id="webhook-deposit\.completed"|id="webhook-deposit-completed"/);
    });
  });

  it('signs with the helper exactly as docs/design.md says (sanity check of the harness)', () => {
    const h = signHeaders('c', 's', 'GET', '/v1/deposit', '', '2026-11-22T01:02:03.456Z');
    assert.match(h['X-Signature'], /^[0-9a-f]{64}$/);
  });
});
