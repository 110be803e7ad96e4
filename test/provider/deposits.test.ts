import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { crc16CcittFalse, isValidStellarAddress, parseTlv } from '../../server/provider/deposits/payment-details';
import { createTestProvider, signHeaders, type TestProvider } from '../support/provider';
import { addMerchant, createFiat, fiatBody, outbox } from './deposit-helpers';

const PAGE_KEYS = ['docs', 'totalDocs', 'offset', 'limit', 'totalPages', 'page', 'pagingCounter', 'hasPrevPage', 'hasNextPage', 'prevPage', 'nextPage'];

describe('deposits', () => {
  let p: TestProvider;
  before(async () => { p = await createTestProvider(); });
  after(async () => { await p.close(); });

  describe('POST /v1/deposit/fiat', () => {
    it('creates a VA deposit: 16-digit number with the bank prefix, fee, the waiting entry', async () => {
      const res = await p.bearer('POST', '/v1/deposit/fiat', fiatBody({ reference: 'order-va-1', note: 'first' }));
      assert.equal(res.status, 201);
      const body = await res.json() as any;
      assert.equal(body.statusCode, 201);
      assert.equal(typeof body.message, 'string');
      const d = body.data;
      assert.match(d.id, /^[0-9a-f]{24}$/);
      assert.match(d.depositId, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      assert.equal(d.depositType, 'fiat');
      assert.equal(d.userId.length, 24);
      assert.equal(d.inputCurrency, 'IDR');
      assert.equal(d.inputAmount, 150000);
      assert.equal(d.outputCurrency, 'IDR');
      assert.equal(d.exchangeRate, 1);
      assert.deepEqual(d.fee, { amount: 4000, percentage: 0, currency: 'IDR' });
      assert.equal(d.outputAmount, 146000);
      assert.equal(d.paymentFiat.bankCode, 'BCA_VA');
      assert.equal(d.paymentFiat.bankName, 'Bank Central Asia');
      assert.equal(d.paymentFiat.accountName, 'Kasir Sandbox Store');
      assert.match(d.paymentFiat.accountNumber, /^39358\d{11}$/);
      assert.deepEqual(d.paymentCrypto, {});
      assert.equal(d.status, 'pending');
      assert.equal(d.activityHistory.length, 1);
      assert.equal(d.activityHistory[0].status, 'pending');
      assert.equal(d.activityHistory[0].description, 'Waiting for payment');
      assert.equal(d.activityHistory[0].activity, 'Payee Payment');
      assert.equal(d.reference, 'order-va-1');
      assert.equal(d.note, 'first');
      assert.equal('exchangeInfo' in d, false, 'no exchangeInfo without conversion');
      assert.equal(Date.parse(d.expiredAt) - Date.parse(d.createdAt), 24 * 3600 * 1000);
    });

    it('gives every bank its own prefix and unique VA numbers', async () => {
      const prefixes: Record<string, string> = { BNI_VA: '8808', BRI_VA: '26215', MANDIRI_VA: '88608', PERMATA_VA: '8625', CIMB_VA: '5919' };
      const seen = new Set<string>();
      for (const [code, prefix] of Object.entries(prefixes)) {
        for (let i = 0; i < 3; i++) {
          const d = await createFiat(p, { paymentMethod: code });
          assert.match(d.paymentFiat.accountNumber, new RegExp(`^${prefix}\\d{${16 - prefix.length}}$`));
          assert.ok(!seen.has(d.paymentFiat.accountNumber));
          seen.add(d.paymentFiat.accountNumber);
        }
      }
    });

    it('refuses a duplicate VA number at the database', async () => {
      const d = await createFiat(p);
      const row = await p.deps.db.selectFrom('deposits').selectAll().where('deposit_id', '=', d.depositId).executeTakeFirstOrThrow();
      await assert.rejects(p.deps.db.insertInto('deposits').values({ ...row, id: 'x'.repeat(24), deposit_id: 'dup-va', reference: null }).execute(), /unique/i);
    });

    it('creates a QRIS deposit with a dynamic EMVCo payload and a correct CRC', async () => {
      const d = await createFiat(p, { paymentMethod: 'QRIS', inputAmount: 150000 });
      assert.deepEqual(d.fee, { amount: 1050, percentage: 0.7, currency: 'IDR' });
      assert.equal(d.outputAmount, 148950);
      const qr: string = d.paymentFiat.qrData;
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
      const bill = parseTlv(fields.get('62')!);
      assert.equal(bill.get('01'), d.id);
      assert.equal(qr.slice(-8, -4), '6304');
      assert.equal(qr.slice(-4), crc16CcittFalse(qr.slice(0, -4)).toString(16).toUpperCase().padStart(4, '0'));
      // The detail read shows the same value under qrData.
      const read = await (await p.signed('GET', `/v1/deposit/${d.depositId}`)).json() as any;
      assert.equal(read.data.paymentFiat.qrData, qr);
      assert.equal(Date.parse(d.expiredAt) - Date.parse(d.createdAt), 30 * 60 * 1000);
    });

    it('CRC-16/CCITT-FALSE matches the standard check value', () => {
      assert.equal(crc16CcittFalse('123456789'), 0x29b1);
      assert.equal(crc16CcittFalse(''), 0xffff);
    });

    it('creates an e-wallet deposit whose checkoutUrl is the sandbox approval page', async () => {
      const d = await createFiat(p, { paymentMethod: 'OVO', inputAmount: 100000 });
      assert.deepEqual(d.fee, { amount: 1500, percentage: 1.5, currency: 'IDR' });
      assert.equal(d.outputAmount, 98500);
      assert.equal(d.paymentFiat.checkoutUrl, `${p.deps.config.baseUrl}/sandbox/ewallet/${d.depositId}`);
      assert.equal(Date.parse(d.expiredAt) - Date.parse(d.createdAt), 15 * 60 * 1000);
    });

    it('derives inputAmount from outputAmount.fiat (smallest amount whose output after fee reaches it)', async () => {
      const d = await createFiat(p, { inputAmount: undefined, outputAmount: { fiat: 100000 }, paymentMethod: 'OVO' });
      assert.equal(d.inputAmount, 101523);
      assert.equal(d.fee.amount, 1523);
      assert.equal(d.outputAmount, 100000);
      const va = await createFiat(p, { inputAmount: undefined, outputAmount: { fiat: 150000 } });
      assert.equal(va.inputAmount, 154000);
      assert.equal(va.outputAmount, 150000);
    });

    it('converts directly into a crypto with exchangeInfo', async () => {
      const d = await createFiat(p, { paymentMethod: 'QRIS', outputCurrency: 'USDC-POLYGON' });
      assert.equal(d.exchangeRate, 0.000060624431646);
      assert.equal(d.outputAmount, 9.030009);
      assert.deepEqual(d.exchangeInfo, { exchangeRate: 0.000060624431646, outputCurrency: 'USDC-POLYGON', outputAmount: 9.030009 });
      const byOutput = await createFiat(p, { paymentMethod: 'BCA_VA', outputCurrency: 'USDC-POLYGON', inputAmount: undefined, outputAmount: { crypto: 10 } });
      // (x - 4000) * rate >= 10  =>  x = 4000 + ceil(10 / rate) = 4000 + 164950 (rounded output reaches 10.000000)
      assert.equal(byOutput.outputAmount, 10);
      assert.equal(byOutput.inputAmount, 168950);
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
      ['fiat output for a crypto', { inputAmount: undefined, outputCurrency: 'USDC-POLYGON', outputAmount: { fiat: 10 } }, /outputAmount.fiat/],
      ['IDR decimals', { inputAmount: 150000.5 }, /inputAmount: IDR amounts have at most 0 decimal places/],
      ['below minimum', { inputAmount: 9999 }, /inputAmount: 9999 IDR is below the minimum of 10000 IDR for BCA_VA/],
      ['above maximum', { inputAmount: 50000001 }, /inputAmount: .* above the maximum of 50000000 IDR/],
      ['unknown input currency', { inputCurrency: 'XYZ' }, /inputCurrency/],
      ['wrong input currency', { inputCurrency: 'USD' }, /inputCurrency: BCA_VA accepts IDR only/],
      ['unknown output currency', { outputCurrency: 'DOGE' }, /outputCurrency: unsupported currency/],
      ['note too long', { note: 'x'.repeat(501) }, /^note: /],
      ['reference empty', { reference: '' }, /^reference: /],
    ];
    for (const [name, over, message] of badFiat) {
      it(`rejects ${name} with a 400 naming the field`, async () => {
        const res = await p.bearer('POST', '/v1/deposit/fiat', fiatBody(over));
        const body = await res.json() as any;
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(body.statusCode, 400);
        assert.equal(body.error, 'Bad Request');
        assert.match(body.message, message);
      });
    }

    it('rejects malformed JSON and a non-object body in the envelope', async () => {
      let res = await p.app.request('http://localhost/v1/deposit/fiat', {
        method: 'POST', headers: { Authorization: `Bearer ${p.creds.accessToken}`, 'Content-Type': 'application/json' }, body: '{"inputCurrency":',
      });
      assert.equal(res.status, 400);
      assert.deepEqual(await res.json(), { statusCode: 400, error: 'Bad Request', message: 'Malformed JSON in request body' });
      res = await p.bearer('POST', '/v1/deposit/fiat', [1, 2]);
      assert.equal(res.status, 400);
      assert.match((await res.json() as any).message, /^body: /);
    });

    it('requires the bearer token', async () => {
      const res = await p.app.request('http://localhost/v1/deposit/fiat', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(fiatBody()) });
      assert.equal(res.status, 401);
      assert.equal((await res.json() as any).error, 'Unauthorized');
      const bad = await p.bearer('POST', '/v1/deposit/fiat', fiatBody(), 'not-a-token');
      assert.equal(bad.status, 401);
    });

    it('keeps reference unique per merchant: a second create is a 409, another merchant may reuse it', async () => {
      await createFiat(p, { reference: 'dup-ref' });
      const res = await p.bearer('POST', '/v1/deposit/fiat', fiatBody({ reference: 'dup-ref' }));
      assert.equal(res.status, 409);
      assert.deepEqual(await res.json(), { statusCode: 409, error: 'Conflict', message: "reference: a deposit with reference 'dup-ref' already exists" });
      const other = await addMerchant(p);
      const res2 = await p.bearer('POST', '/v1/deposit/fiat', fiatBody({ reference: 'dup-ref' }), other.token);
      assert.equal(res2.status, 201);
    });

    it('lets exactly one of many concurrent creates with one reference win', async () => {
      const results = await Promise.all(Array.from({ length: 12 }, (_, i) =>
        p.bearer('POST', i % 2 ? '/v1/deposit/fiat' : '/v1/deposit/crypto', i % 2
          ? fiatBody({ reference: 'race-1' })
          : { inputCurrency: 'USDC-POLYGON', inputAmount: 10, reference: 'race-1' })));
      const statuses = results.map((r) => r.status);
      assert.equal(statuses.filter((s) => s === 201).length, 1, statuses.join(','));
      assert.ok(statuses.filter((s) => s !== 201).every((s) => s === 409), statuses.join(','));
      const rows = await p.deps.db.selectFrom('deposits').select('id').where('reference', '=', 'race-1').execute();
      assert.equal(rows.length, 1);
    });
  });

  describe('POST /v1/deposit/crypto', () => {
    it('creates an EVM deposit with a well-formed address and network', async () => {
      const res = await p.bearer('POST', '/v1/deposit/crypto', { inputCurrency: 'USDC-POLYGON', inputAmount: 25.5, reference: 'c-1' });
      assert.equal(res.status, 201);
      const d = (await res.json() as any).data;
      assert.equal(d.depositType, 'crypto');
      assert.equal(d.outputCurrency, 'USDC-POLYGON');
      assert.equal(d.outputAmount, 25.5);
      assert.match(d.paymentCrypto.payoutWallet, /^0x[0-9a-fA-F]{40}$/);
      assert.equal(d.paymentCrypto.network, 'POLYGON');
      assert.deepEqual(d.paymentFiat, {});
      assert.equal(d.status, 'pending');
      assert.equal('exchangeInfo' in d, false);
      assert.equal(Date.parse(d.expiredAt) - Date.parse(d.createdAt), 60 * 60 * 1000);
    });

    it('creates a Stellar deposit with a valid G-address and converts into fiat', async () => {
      const res = await p.bearer('POST', '/v1/deposit/crypto', { inputCurrency: 'XLM-STELLAR', inputAmount: 12.3456789, outputCurrency: 'IDR' });
      assert.equal(res.status, 201);
      const d = (await res.json() as any).data;
      assert.match(d.paymentCrypto.payoutWallet, /^G[A-Z2-7]{55}$/);
      assert.ok(isValidStellarAddress(d.paymentCrypto.payoutWallet));
      assert.equal(d.paymentCrypto.network, 'STELLAR');
      assert.equal(d.exchangeRate, 4950);
      assert.equal(d.outputAmount, 61111); // 12.3456789 x 4950 = 61111.110555 -> 61111
      assert.deepEqual(d.exchangeInfo, { exchangeRate: 4950, outputCurrency: 'IDR', outputAmount: 61111 });
    });

    it('answers the interface error row for an unknown crypto', async () => {
      const res = await p.bearer('POST', '/v1/deposit/crypto', { inputCurrency: 'DOGE-DOGE', inputAmount: 1 });
      assert.equal(res.status, 400);
      assert.deepEqual(await res.json(), { statusCode: 400, error: 'Not Found', message: 'Crypto not found' });
    });

    it('validates amount, decimals and pairing, naming the field', async () => {
      const cases: Array<[Record<string, unknown>, RegExp]> = [
        [{ inputCurrency: 'USDC-POLYGON' }, /inputAmount/],
        [{ inputCurrency: 'USDC-POLYGON', inputAmount: -1 }, /inputAmount: must be positive/],
        [{ inputCurrency: 'USDC-POLYGON', inputAmount: 1.0000001 }, /inputAmount: USDC-POLYGON amounts have at most 6 decimal places/],
        [{ inputCurrency: 'IDRX-POLYGON', inputAmount: 100, outputCurrency: 'USD' }, /outputCurrency: USD does not pair with IDRX-POLYGON/],
        [{ inputCurrency: 'USDC-POLYGON', inputAmount: 1, outputCurrency: 'ZZZ' }, /outputCurrency: unsupported currency/],
        [{ inputAmount: 1 }, /inputCurrency/],
      ];
      for (const [b, message] of cases) {
        const res = await p.bearer('POST', '/v1/deposit/crypto', b);
        assert.equal(res.status, 400, JSON.stringify(b));
        assert.match((await res.json() as any).message, message);
      }
    });
  });

  describe('GET /v1/deposit/:depositIdOrReference', () => {
    it('reads by depositId and by reference, with isReconciled, payerInfo and _id on history', async () => {
      const d = await createFiat(p, { reference: 'read-me' });
      for (const key of [d.depositId, 'read-me']) {
        const res = await p.signed('GET', `/v1/deposit/${key}`);
        assert.equal(res.status, 200);
        const body = await res.json() as any;
        assert.equal(body.statusCode, 200);
        assert.equal(body.data.depositId, d.depositId);
        assert.equal(body.data.id, d.id);
        assert.equal(body.data.isReconciled, false);
        assert.deepEqual(Object.keys(body.data.payerInfo).sort(), ['accountNumber', 'bankName', 'mid', 'name', 'transactionCode']);
        assert.match(body.data.activityHistory[0]._id, /^[0-9a-f]{24}$/);
        assert.equal(body.data.bankNote, '');
      }
    });

    it('is 404 for unknown ids and for another merchant\'s deposit', async () => {
      const d = await createFiat(p);
      let res = await p.signed('GET', '/v1/deposit/nope');
      assert.equal(res.status, 404);
      assert.deepEqual(await res.json(), { statusCode: 404, error: 'Not Found', message: 'Deposit not found' });
      const other = await addMerchant(p);
      res = await p.signed('GET', `/v1/deposit/${d.depositId}`, undefined, { clientId: other.clientId, secret: other.clientSecret });
      assert.equal(res.status, 404);
    });

    it('requires the signature headers', async () => {
      const res = await p.app.request(`http://localhost/v1/deposit/x`);
      assert.equal(res.status, 401);
    });
  });

  describe('GET /v1/deposit', () => {
    let q: TestProvider;
    let token: string;
    before(async () => {
      q = await createTestProvider();
      token = q.creds.accessToken;
      for (let i = 0; i < 13; i++) {
        q.clock.offsetMs = i * 1000;
        await createFiat(q, { reference: `list-${i}` });
      }
      q.clock.offsetMs = 14_000;
      for (let i = 0; i < 2; i++) await q.bearer('POST', '/v1/deposit/crypto', { inputCurrency: 'USDT-ETHEREUM', inputAmount: 5 }, token);
      q.clock.offsetMs = 15_000;
    });
    after(async () => { await q.close(); });

    it('answers the pagination envelope exactly, 10 per page by default', async () => {
      const res = await q.signed('GET', '/v1/deposit');
      assert.equal(res.status, 200);
      const { data } = await res.json() as any;
      assert.deepEqual(Object.keys(data).sort(), [...PAGE_KEYS].sort());
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
      assert.equal(data.docs[0].reference, 'list-0', 'createdAt ascending by default');
      assert.equal('payerInfo' in data.docs[0], false);
    });

    it('pages, sorts and filters', async () => {
      let data = (await (await q.signed('GET', '/v1/deposit?page=2&limit=5')).json() as any).data;
      assert.equal(data.docs.length, 5);
      assert.deepEqual([data.offset, data.pagingCounter, data.prevPage, data.nextPage, data.totalPages], [5, 6, 1, 3, 3]);
      assert.equal(data.docs[0].reference, 'list-5');
      data = (await (await q.signed('GET', '/v1/deposit?sort=-createdAt&limit=3&depositType=fiat')).json() as any).data;
      assert.deepEqual(data.docs.map((d: any) => d.reference), ['list-12', 'list-11', 'list-10']);
      assert.equal(data.totalDocs, 13);
      data = (await (await q.signed('GET', '/v1/deposit?depositType=crypto')).json() as any).data;
      assert.equal(data.totalDocs, 2);
      assert.ok(data.docs.every((d: any) => d.depositType === 'crypto'));
      data = (await (await q.signed('GET', '/v1/deposit?page=9')).json() as any).data;
      assert.deepEqual([data.docs.length, data.hasPrevPage, data.hasNextPage, data.prevPage, data.nextPage], [0, true, false, 8, null]);
      data = (await (await q.signed('GET', '/v1/deposit?limit=100')).json() as any).data;
      assert.equal(data.docs.length, 15);
    });

    it('filters by status and sorts by updatedAt', async () => {
      const target = (await (await q.signed('GET', '/v1/deposit?limit=1')).json() as any).data.docs[0];
      q.clock.offsetMs = 20_000;
      const patched = await q.bearer('PATCH', `/v1/deposit/${target.depositId}`, { status: 'completed' });
      assert.equal(patched.status, 200);
      let data = (await (await q.signed('GET', '/v1/deposit?status=completed')).json() as any).data;
      assert.deepEqual(data.docs.map((d: any) => d.depositId), [target.depositId]);
      data = (await (await q.signed('GET', '/v1/deposit?sort=-updatedAt&limit=1')).json() as any).data;
      assert.equal(data.docs[0].depositId, target.depositId);
      data = (await (await q.signed('GET', '/v1/deposit?status=pending')).json() as any).data;
      assert.equal(data.totalDocs, 14);
    });

    it('rejects bad query values with a 400 naming the parameter', async () => {
      for (const [query, field] of [['limit=0', 'limit'], ['limit=101', 'limit'], ['limit=abc', 'limit'], ['page=0', 'page'], ['page=1.5', 'page'],
        ['sort=amount', 'sort'], ['status=paid', 'status'], ['depositType=card', 'depositType']]) {
        const res = await q.signed('GET', `/v1/deposit?${query}`);
        assert.equal(res.status, 400, query);
        const body = await res.json() as any;
        assert.equal(body.statusCode, 400);
        assert.match(body.message, new RegExp(`^${field}: `));
      }
    });

    it('shows only the caller\'s deposits', async () => {
      const other = await addMerchant(q);
      const data = (await (await q.signed('GET', '/v1/deposit', undefined, { clientId: other.clientId, secret: other.clientSecret })).json() as any).data;
      assert.equal(data.totalDocs, 0);
      assert.equal(data.totalPages, 1);
    });
  });

  describe('GET /v1/deposit/payment-method', () => {
    it('lists the Indonesian methods with limits, fees and logo URLs', async () => {
      const res = await p.bearer('GET', '/v1/deposit/payment-method');
      assert.equal(res.status, 200);
      const { data } = await res.json() as any;
      const codes = data.map((m: any) => m.bankCode);
      for (const code of ['BCA_VA', 'BNI_VA', 'BRI_VA', 'MANDIRI_VA', 'PERMATA_VA', 'CIMB_VA', 'QRIS', 'OVO', 'DANA', 'SHOPEEPAY', 'GOPAY', 'LINKAJA']) {
        assert.ok(codes.includes(code), code);
      }
      for (const m of data) {
        assert.deepEqual(Object.keys(m).sort(), ['bankCode', 'bankName', 'currency', 'depositPaymentType', 'feeFlat', 'feePercentage', 'image', 'maximumAmount', 'minimumAmount']);
        assert.ok(m.minimumAmount > 0 && m.maximumAmount > m.minimumAmount);
        assert.ok(['va', 'qris', 'ewallet'].includes(m.depositPaymentType));
        const logo = await p.app.request(m.image.replace(p.deps.config.baseUrl, 'http://localhost'));
        assert.equal(logo.status, 200, m.image);
        assert.match(logo.headers.get('content-type')!, /image\/svg\+xml/);
        assert.match(await logo.text(), /^<svg /);
      }
      const qris = data.find((m: any) => m.bankCode === 'QRIS');
      assert.deepEqual([qris.depositPaymentType, qris.feeFlat, qris.feePercentage], ['qris', 0, 0.7]);
    });

    it('filters by currency and needs the bearer token', async () => {
      assert.ok(((await (await p.bearer('GET', '/v1/deposit/payment-method?currency=IDR')).json()) as any).data.length >= 12);
      assert.deepEqual(((await (await p.bearer('GET', '/v1/deposit/payment-method?currency=USD')).json()) as any).data, []);
      assert.equal((await p.app.request('http://localhost/v1/deposit/payment-method')).status, 401);
      assert.equal((await p.app.request('http://localhost/static/logos/nope.svg')).status, 404);
    });
  });

  describe('transitions', () => {
    it('cancel moves pending to expired with a history entry and a deposit.expired webhook', async () => {
      const d = await createFiat(p, { reference: 'cancel-me' });
      const res = await p.bearer('PATCH', `/v1/deposit/${d.depositId}/cancel`);
      assert.equal(res.status, 200);
      const body = await res.json() as any;
      assert.equal(body.statusCode, 200);
      assert.equal('data' in body, false);
      const read = (await (await p.signed('GET', `/v1/deposit/${d.depositId}`)).json() as any).data;
      assert.equal(read.status, 'expired');
      assert.deepEqual(read.activityHistory.map((a: any) => a.status), ['pending', 'expired']);
      assert.match(read.activityHistory[1].description, /[Cc]ancelled/);
      const events = await outbox(p, d.depositId);
      assert.equal(events.length, 1);
      assert.equal(events[0].type, 'deposit.expired');
      assert.equal(events[0].payload.orderId, d.depositId);
      assert.equal(events[0].payload.reference, 'cancel-me');
      assert.equal(events[0].payload.data.status, 'expired');
      // Cancelling again: not pending any more.
      const again = await p.bearer('PATCH', `/v1/deposit/${d.depositId}/cancel`);
      assert.equal(again.status, 400);
      assert.match((await again.json() as any).message, /expired/);
      const unknown = await p.bearer('PATCH', '/v1/deposit/nope/cancel');
      assert.equal(unknown.status, 404);
    });

    it('sandbox update completes a pending deposit (bearer) and sends deposit.completed', async () => {
      const d = await createFiat(p);
      const res = await p.bearer('PATCH', `/v1/deposit/${d.depositId}`, { status: 'completed' });
      assert.equal(res.status, 200);
      const body = await res.json() as any;
      assert.equal(body.data.status, 'completed');
      assert.equal(body.data.isReconciled, true);
      assert.ok(body.data.payerInfo.transactionCode);
      assert.deepEqual(body.data.activityHistory.map((a: any) => a.status), ['pending', 'completed']);
      const events = await outbox(p, d.depositId);
      assert.deepEqual(events.map((e) => e.type), ['deposit.completed']);
      assert.equal(events[0].payload.data.status, 'completed');
      assert.equal(events[0].payload.depositId, d.depositId);
      // completed is final
      const again = await p.bearer('PATCH', `/v1/deposit/${d.depositId}`, { status: 'expired' });
      assert.equal(again.status, 400);
      assert.match((await again.json() as any).message, /^status: deposit is completed/);
      assert.equal((await p.bearer('PATCH', `/v1/deposit/${d.depositId}/cancel`)).status, 400);
    });

    it('sandbox update accepts the signature too, and can expire', async () => {
      const d = await createFiat(p);
      const res = await p.signed('PATCH', `/v1/deposit/${d.depositId}`, { status: 'expired' });
      assert.equal(res.status, 200);
      assert.equal((await res.json() as any).data.status, 'expired');
      assert.deepEqual((await outbox(p, d.depositId)).map((e) => e.type), ['deposit.expired']);
    });

    it('sandbox update: the interface row for an unknown deposit, and a 400 naming status', async () => {
      let res = await p.bearer('PATCH', '/v1/deposit/00000000-0000-0000-0000-000000000000', { status: 'completed' });
      assert.equal(res.status, 400);
      assert.deepEqual(await res.json(), { statusCode: 400, error: 'Bad Request', message: 'Deposit not found' });
      const d = await createFiat(p);
      for (const b of [{ status: 'pending' }, { status: 'paid' }, {}, { status: 1 }]) {
        res = await p.bearer('PATCH', `/v1/deposit/${d.depositId}`, b);
        assert.equal(res.status, 400);
        assert.match((await res.json() as any).message, /^status: /);
      }
      // another merchant cannot touch it
      const other = await addMerchant(p);
      res = await p.bearer('PATCH', `/v1/deposit/${d.depositId}`, { status: 'completed' }, other.token);
      assert.deepEqual(await res.json(), { statusCode: 400, error: 'Bad Request', message: 'Deposit not found' });
    });

    it('sandbox update is 403 outside sandbox mode', async () => {
      const prod = await createTestProvider({ sandbox: false });
      try {
        const d = await createFiat(prod);
        const res = await prod.bearer('PATCH', `/v1/deposit/${d.depositId}`, { status: 'completed' });
        assert.equal(res.status, 403);
        assert.equal((await res.json() as any).error, 'Forbidden');
        assert.equal((await prod.app.request(`http://localhost/sandbox/ewallet/${d.depositId}`)).status, 403);
      } finally {
        await prod.close();
      }
    });

    it('e-wallet approval page completes the deposit; decline expires it', async () => {
      const d = await createFiat(p, { paymentMethod: 'DANA' });
      const pagePath = new URL(d.paymentFiat.checkoutUrl).pathname;
      let res = await p.app.request(`http://localhost${pagePath}`);
      assert.equal(res.status, 200);
      const csp = res.headers.get('content-security-policy')!;
      assert.match(csp, /default-src 'none'/);
      assert.doesNotMatch(csp, /script-src/);
      const html = await res.text();
      assert.doesNotMatch(html, /<script/);
      assert.match(html, /Rp 150\.000/);
      assert.match(html, new RegExp(`action="/sandbox/ewallet/${d.depositId}/approve"`));
      res = await p.app.request(`http://localhost${pagePath}/approve`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: '' });
      assert.equal(res.status, 303);
      assert.equal(res.headers.get('location'), pagePath);
      const read = (await (await p.signed('GET', `/v1/deposit/${d.depositId}`)).json() as any).data;
      assert.equal(read.status, 'completed');
      assert.deepEqual((await outbox(p, d.depositId)).map((e) => e.type), ['deposit.completed']);
      assert.match(await (await p.app.request(`http://localhost${pagePath}`)).text(), /Payment approved/);

      const e = await createFiat(p, { paymentMethod: 'SHOPEEPAY' });
      res = await p.app.request(`http://localhost/sandbox/ewallet/${e.depositId}/decline`, { method: 'POST' });
      assert.equal(res.status, 303);
      assert.equal((await (await p.signed('GET', `/v1/deposit/${e.depositId}`)).json() as any).data.status, 'expired');
      // Not an e-wallet deposit, or unknown: 404 page.
      const va = await createFiat(p);
      assert.equal((await p.app.request(`http://localhost/sandbox/ewallet/${va.depositId}`)).status, 404);
      assert.equal((await p.app.request(`http://localhost/sandbox/ewallet/${va.depositId}/approve`, { method: 'POST' })).status, 404);
      assert.equal((await (await p.signed('GET', `/v1/deposit/${va.depositId}`)).json() as any).data.status, 'pending');
    });
  });

  it('serves an OpenAPI 3.1 document with every deposit route and the security schemes, and the /docs page', async () => {
    const doc = await (await p.app.request('http://localhost/v1/openapi.json')).json() as any;
    assert.equal(doc.openapi, '3.1.0');
    for (const path of ['/v1/deposit', '/v1/deposit/payment-method', '/v1/deposit/{depositIdOrReference}', '/v1/deposit/fiat', '/v1/deposit/crypto',
      '/v1/deposit/{depositId}/cancel', '/v1/deposit/{depositId}', '/v1/reference/currencies', '/v1/reference/cryptos', '/v1/checkout']) {
      assert.ok(doc.paths[path], path);
    }
    assert.deepEqual(Object.keys(doc.components.securitySchemes).sort(), ['Bearer', 'ClientId', 'Signature', 'Timestamp']);
    assert.deepEqual(doc.paths['/v1/deposit/fiat'].post.security, [{ Bearer: [] }]);
    assert.equal(doc.paths['/v1/reference/cryptos'].get.deprecated, true);
    const page = await p.app.request('http://localhost/docs');
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.match(html, /swagger-ui-bundle\.js/);
    assert.doesNotMatch(html, /<script>[^<]/, 'no inline script');
    const asset = await p.app.request('http://localhost/docs/swagger-ui-bundle.js');
    assert.equal(asset.status, 200);
    assert.match(await (await p.app.request('http://localhost/docs/initializer.js')).text(), /\/v1\/openapi\.json/);
  });

  it('signs with the helper exactly as DESIGN.md says (sanity check of the harness)', () => {
    const h = signHeaders('c', 's', 'GET', '/v1/deposit', '', '2026-11-22T01:02:03.456Z');
    assert.match(h['X-Signature'], /^[0-9a-f]{64}$/);
  });
});
