import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import type { Checkout as WidgetCheckout, Deposit as WidgetDeposit } from '@kasir/checkout';
import type { CheckoutSession } from '../../server/provider/checkout/session';
import { bodyOf, dataOf, errorOf, type Envelope } from '../support/envelope';
import { createTestProvider, type TestProvider } from '../support/provider';
import { addMerchant, outbox, type DepositView } from './deposit-helpers';

describe('checkout', () => {
  let p: TestProvider;
  before(async () => {
    p = await createTestProvider();
  });
  after(async () => {
    await p.close();
  });

  const create = async (body: Record<string, unknown>) => {
    const res = await p.signed('POST', '/v1/checkout', body);
    const json = await bodyOf<Envelope<{ id: string; url: string }>>(res);
    assert.equal(res.status, 200, JSON.stringify(json));
    return json.data;
  };
  const get = (path: string, headers: Record<string, string> = {}) =>
    p.app.request(`http://localhost${path}`, { headers });
  const post = (path: string, body?: unknown) =>
    p.app.request(`http://localhost${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const session = async (id: string) => dataOf<CheckoutSession>(await get(`/checkout/${id}/session`));
  const byCode = <T extends { bankCode: string }>(methods: T[]) =>
    Object.fromEntries(methods.map((m) => [m.bankCode, m]));

  describe('POST /v1/checkout', () => {
    it('returns {id, url} with url = checkout URL / id', async () => {
      const res = await p.signed('POST', '/v1/checkout', { inputCurrency: 'IDR', inputAmount: 150000 });
      assert.equal(res.status, 200);
      const body = await bodyOf<Envelope<{ id: string; url: string }>>(res);
      assert.equal(body.statusCode, 200);
      assert.equal(typeof body.message, 'string');
      assert.deepEqual(Object.keys(body.data).sort(), ['id', 'url']);
      assert.match(body.data.id, /^[0-9a-f-]{36}$/);
      assert.equal(body.data.url, `${p.creds.checkoutUrl}/${body.data.id}`);
    });

    it('answers the interface row when checkout is not enabled, even before validating the body', async () => {
      const other = await addMerchant(p, { checkoutEnabled: false });
      for (const b of [{ inputCurrency: 'IDR', inputAmount: 150000 }, {}]) {
        const res = await p.signed('POST', '/v1/checkout', b, { clientId: other.clientId, secret: other.clientSecret });
        assert.equal(res.status, 400);
        assert.deepEqual(await res.json(), {
          statusCode: 400,
          error: 'Bad Request',
          message: 'Checkout is not enabled',
        });
      }
    });

    it('validates its body, naming the field', async () => {
      const cases: Array<[Record<string, unknown>, RegExp]> = [
        [{ inputAmount: 1000 }, /^inputCurrency: /],
        [{ inputCurrency: 'IDR' }, /exactly one of inputAmount and outputAmount/],
        [
          { inputCurrency: 'IDR', inputAmount: 150000, outputAmount: 10 },
          /exactly one of inputAmount and outputAmount/,
        ],
        [{ inputCurrency: 'IDR', inputAmount: -1 }, /^inputAmount: must be positive/],
        [{ inputCurrency: 'IDR', inputAmount: 10.5 }, /^inputAmount: IDR amounts have at most 0 decimal places/],
        [{ inputCurrency: 'USD', inputAmount: 10 }, /^inputCurrency: checkout accepts IDR/],
        [{ inputCurrency: 'IDR', inputAmount: 100, outputCurrency: 'NOPE' }, /^outputCurrency: /],
        [
          { inputCurrency: 'IDR', inputAmount: 999_999_999 },
          /^inputAmount: 999999999 is above the maximum of 100000000 IDR of every payment method$/,
        ],
        [{ inputCurrency: 'IDR', outputAmount: 'x' }, /^outputAmount: /],
      ];
      for (const [b, message] of cases) {
        const res = await p.signed('POST', '/v1/checkout', b);
        assert.equal(res.status, 400, JSON.stringify(b));
        assert.match((await errorOf(res)).message, message, JSON.stringify(b));
      }
    });
  });

  describe('hosted checkout: the session API', () => {
    const choose = (id: string, paymentMethod: string) => post(`/checkout/${id}/deposit`, { paymentMethod });

    it('GET of the checkout id before a method is chosen is the interface 404', async () => {
      const { id } = await create({ inputCurrency: 'IDR', inputAmount: 150000 });
      const res = await p.signed('GET', `/v1/deposit/${id}`);
      assert.equal(res.status, 404);
      assert.deepEqual(await res.json(), { statusCode: 404, error: 'Not Found', message: 'Deposit not found' });
    });

    it('the session lists each method with its payable amount, fee, shopper fee and output', async () => {
      const { id } = await create({ inputCurrency: 'IDR', inputAmount: 150000 });
      const s = await session(id);
      assert.equal(s.id, id);
      assert.equal(s.inputAmount, 150000);
      assert.equal(s.outputAmount, null);
      assert.equal(s.feesPaidBy, 'merchant');
      assert.equal(s.deposit, null);
      assert.equal(s.expired, false);
      const bca = byCode(s.methods).BCA_VA;
      assert.deepEqual(
        [bca.paymentAmount, bca.fee, bca.shopperFee, bca.outputAmount, bca.available],
        [150000, 4000, 0, 146000, true],
      );
    });

    it('choosing a method creates the deposit whose depositId is the checkout id', async () => {
      const { id } = await create({ inputCurrency: 'IDR', inputAmount: 150000 });
      const res = await choose(id, 'BCA_VA');
      assert.equal(res.status, 201);
      const created = await dataOf<DepositView>(res);
      assert.equal(created.depositId, id);
      assert.equal(created.inputAmount, 150000);
      assert.deepEqual(created.exchangeInfo, { exchangeRate: 1, outputCurrency: 'IDR', outputAmount: 146000 });
      assert.match(created.paymentFiat.accountNumber!, /^39358\d{11}$/);
    });

    it('choosing the same method again answers the same deposit, unchanged (200)', async () => {
      const { id } = await create({ inputCurrency: 'IDR', inputAmount: 150000 });
      const created = await dataOf<DepositView>(await choose(id, 'BCA_VA'));
      const res = await choose(id, 'BCA_VA');
      assert.equal(res.status, 200);
      const again = await dataOf<DepositView>(res);
      assert.equal(again.depositId, created.depositId);
      assert.equal(again.paymentFiat.accountNumber, created.paymentFiat.accountNumber);
      assert.equal(again.version, created.version, 'unchanged');
      assert.equal('activityHistory' in again, false, 'the shopper projection: no history');
    });

    it("the deposit is read and completed by the checkout id, and its webhook's orderId is the checkout id", async () => {
      const { id } = await create({ inputCurrency: 'IDR', inputAmount: 150000 });
      await choose(id, 'BCA_VA');
      const read = await dataOf<DepositView>(await p.signed('GET', `/v1/deposit/${id}`));
      assert.equal(read.depositId, id);
      assert.ok(read.exchangeInfo);
      const done = await p.signed('PATCH', `/v1/deposit/${id}`, { status: 'completed' });
      assert.equal(done.status, 200);
      const events = await outbox(p, id);
      assert.equal(events[0].payload.orderId, id);
      assert.equal(events[0].payload.type, 'deposit.completed');
      assert.equal((await session(id)).deposit?.status, 'completed');
    });

    it('concurrent choices of one method create one deposit', async () => {
      const { id } = await create({ inputCurrency: 'IDR', inputAmount: 50000 });
      const results = await Promise.all(Array.from({ length: 6 }, () => choose(id, 'QRIS')));
      const statuses = results.map((r) => r.status).sort();
      assert.deepEqual(statuses, [200, 200, 200, 200, 200, 201]);
      const rows = await p.deps.db.selectFrom('deposits').select('id').where('deposit_id', '=', id).execute();
      assert.equal(rows.length, 1);
    });

    it('outputAmount: the payer amount per method includes the fee', async () => {
      const { id } = await create({ inputCurrency: 'IDR', outputAmount: 100000 });
      const s = await session(id);
      assert.equal(s.feesPaidBy, 'shopper');
      const by = byCode(s.methods);
      assert.deepEqual([by.BCA_VA.paymentAmount, by.BCA_VA.shopperFee, by.BCA_VA.outputAmount], [104000, 4000, 100000]);
      assert.deepEqual([by.OVO.paymentAmount, by.OVO.shopperFee, by.OVO.outputAmount], [101523, 1523, 100000]);
      // QRIS is never surcharged (docs/indonesian-payments.md): the order amount, its fee borne by the merchant.
      assert.deepEqual([by.QRIS.paymentAmount, by.QRIS.shopperFee, by.QRIS.outputAmount], [100000, 0, 99300]);
      const d = await dataOf<DepositView>(await choose(id, 'OVO'));
      assert.equal(d.inputAmount, 101523);
      assert.equal(d.outputAmount, 100000);
    });

    it('session orderAmount: what the order costs in the input currency, as the hosted widget API says', async () => {
      for (const body of [
        { inputCurrency: 'IDR', inputAmount: 150000 },
        { inputCurrency: 'IDR', outputAmount: 100000 },
        { inputCurrency: 'IDR', outputAmount: 6, outputCurrency: 'USDT-POLYGON' },
      ]) {
        const { id } = await create(body);
        const s = await session(id);
        const widget = await dataOf<WidgetCheckout>(await get(`/checkout/api/checkouts/${id}`));
        assert.equal(typeof s.orderAmount, 'string', JSON.stringify(body));
        assert.equal(s.orderAmount, widget.amount, JSON.stringify(body));
      }
    });

    it('session orderAmount of a checkout priced in crypto is in the input currency (rupiah), not the crypto amount', async () => {
      const { id } = await create({ inputCurrency: 'IDR', outputAmount: 6, outputCurrency: 'USDT-POLYGON' });
      const s = await session(id);
      assert.notEqual(s.orderAmount, '6');
      assert.ok(Number(s.orderAmount) > 1000, s.orderAmount);
    });

    it('marks methods whose total is outside their limits as unavailable and refuses them', async () => {
      const { id } = await create({ inputCurrency: 'IDR', inputAmount: 5000 });
      const by = byCode((await session(id)).methods);
      assert.equal(by.BCA_VA.available, false);
      assert.equal(by.QRIS.available, true);
      const res = await choose(id, 'BCA_VA');
      assert.equal(res.status, 400);
      assert.match((await errorOf(res)).message, /^paymentMethod: BCA_VA does not accept 5000 IDR/);
    });

    it('an unknown payment method is the interface\'s 400 "Payment method not found"', async () => {
      const { id } = await create({ inputCurrency: 'IDR', inputAmount: 150000 });
      const res = await choose(id, 'NOPE');
      assert.deepEqual(await res.json(), { statusCode: 400, error: 'Not Found', message: 'Payment method not found' });
    });

    it('a choice without paymentMethod is a 400 naming it', async () => {
      const { id } = await create({ inputCurrency: 'IDR', inputAmount: 150000 });
      const res = await post(`/checkout/${id}/deposit`, {});
      assert.equal(res.status, 400);
      assert.match((await errorOf(res)).message, /^paymentMethod: /);
    });

    it('after 15 minutes no method can be chosen and the session says it expired', async () => {
      const { id } = await create({ inputCurrency: 'IDR', inputAmount: 150000 });
      p.clock.offsetMs = 15 * 60 * 1000;
      try {
        const res = await choose(id, 'BCA_VA');
        assert.equal(res.status, 400);
        assert.match((await errorOf(res)).message, /Checkout has expired/);
        assert.equal((await session(id)).expired, true);
      } finally {
        p.clock.offsetMs = 0;
      }
    });

    it('the session of an unknown checkout is the 404 envelope', async () => {
      const res = await get('/checkout/00000000-0000-0000-0000-000000000000/session');
      assert.deepEqual(await res.json(), { statusCode: 404, error: 'Not Found', message: 'Checkout not found' });
    });
  });

  describe('hosted checkout: the page', () => {
    it("speaks the shopper's language on the hosted page: ?lang=, then Accept-Language, else English", async () => {
      const { id } = await create({ inputCurrency: 'IDR', inputAmount: 150000 });
      const page = async (path: string, headers: Record<string, string> = {}) =>
        (await p.app.request(`http://localhost${path}`, { headers })).text();
      const indonesian = await page(`/checkout/${id}`, { 'Accept-Language': 'id-ID,id;q=0.9,en;q=0.8' });
      assert.match(indonesian, /<html lang="id">/);
      assert.ok(indonesian.includes(`checkout-id="${id}" locale="id"`));
      assert.match(await page(`/checkout/${id}?lang=id`, { 'Accept-Language': 'en' }), /locale="id"/);
      assert.match(await page(`/checkout/${id}`, { 'Accept-Language': 'fr-FR' }), /locale="en"/);
      assert.match(await page('/checkout/nope', { 'Accept-Language': 'id' }), /Checkout tidak ditemukan/);
    });

    it('renders the widget element and its module under a strict CSP, with no inline script', async () => {
      const { id } = await create({ inputCurrency: 'IDR', inputAmount: 150000 });
      const res = await get(`/checkout/${id}`);
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type')!, /text\/html/);
      const csp = res.headers.get('content-security-policy')!;
      assert.match(csp, /script-src 'self'(;|$)/);
      assert.match(csp, /default-src 'none'/);
      assert.match(csp, /frame-ancestors 'none'/);
      assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
      const html = await res.text();
      assert.ok(
        html.includes(`<kasir-checkout endpoint="/checkout/api" checkout-id="${id}" locale="en"></kasir-checkout>`),
      );
      assert.ok(html.includes('<script type="module" src="/checkout/kasir-checkout.js"></script>'));
      // The widget's module and, in sandbox mode, the sandbox panel's (docs/design.md, "Payments that do not go as
      // planned"): files of this origin, no inline script.
      assert.deepEqual(html.match(/<script[^>]*>/g), [
        '<script type="module" src="/checkout/kasir-checkout.js">',
        '<script type="module" src="/checkout/sandbox-panel.js">',
      ]);
      assert.equal((html.match(/<script[^>]*><\/script>/g) ?? []).length, 2, 'no inline script');
      const style = /<style>([\s\S]*?)<\/style>/.exec(html)![1];
      assert.ok(
        csp.includes(`'sha256-${createHash('sha256').update(style).digest('base64')}'`),
        'the page style is allowed by its hash',
      );
    });

    it('serves the widget module when it is built, or says in a 503 that it is not', async () => {
      const js = await get('/checkout/kasir-checkout.js');
      assert.ok(js.status === 200 || js.status === 503);
      if (js.status === 200) assert.match(js.headers.get('content-type')!, /javascript/);
      else assert.match((await errorOf(js)).message, /not built/);
    });

    it("serves the widget's files precompressed as the browser takes them (br, else gzip, else as is), with Vary", async () => {
      const dir = mkdtempSync(join(tmpdir(), 'kasir-widget-'));
      const entry = join(dir, 'kasir-checkout.js');
      const body = Buffer.from(`export const kasir = "${'checkout '.repeat(200)}";\n`);
      writeFileSync(entry, body);
      writeFileSync(`${entry}.br`, brotliCompressSync(body));
      writeFileSync(`${entry}.gz`, gzipSync(body));
      process.env.KASIR_WIDGET_FILE = entry;
      try {
        for (const [accept, encoding, decode] of [
          ['br, gzip', 'br', brotliDecompressSync],
          ['gzip', 'gzip', gunzipSync],
          [undefined, null, (b: Buffer) => b],
        ] as const) {
          const res = await get('/checkout/kasir-checkout.js', accept ? { 'Accept-Encoding': accept } : {});
          assert.equal(res.status, 200);
          assert.equal(res.headers.get('content-encoding'), encoding, String(accept));
          assert.equal(res.headers.get('vary'), 'Accept-Encoding');
          const sent = Buffer.from(await res.arrayBuffer());
          assert.equal(res.headers.get('content-length'), String(sent.length));
          assert.ok(decode(sent).equals(body), String(accept));
        }
      } finally {
        delete process.env.KASIR_WIDGET_FILE;
      }
    });

    it('answers a 503 envelope when KASIR_WIDGET_FILE names no file', async () => {
      process.env.KASIR_WIDGET_FILE = '/nonexistent/kasir-checkout.js';
      try {
        const notBuilt = await get('/checkout/kasir-checkout.js');
        assert.equal(notBuilt.status, 503);
        assert.deepEqual(await notBuilt.json(), {
          statusCode: 503,
          error: 'Service Unavailable',
          message: 'The checkout widget is not built yet: run npm run build',
        });
      } finally {
        delete process.env.KASIR_WIDGET_FILE;
      }
    });

    it('serves the file KASIR_WIDGET_FILE names as JavaScript', async () => {
      process.env.KASIR_WIDGET_FILE = join(mkdtempSync(join(tmpdir(), 'kasir-widget-')), 'kasir-checkout.js');
      writeFileSync(process.env.KASIR_WIDGET_FILE, 'export const built = true;\n');
      try {
        const built = await get('/checkout/kasir-checkout.js');
        assert.equal(built.status, 200);
        assert.match(built.headers.get('content-type')!, /text\/javascript/);
        assert.equal(await built.text(), 'export const built = true;\n');
      } finally {
        delete process.env.KASIR_WIDGET_FILE;
      }
    });

    it('answers an unknown checkout with a 404 page without the element', async () => {
      const missing = await get('/checkout/00000000-0000-0000-0000-000000000000');
      assert.equal(missing.status, 404);
      assert.doesNotMatch(await missing.text(), /<kasir-checkout/);
    });
  });

  describe('widget API of the hosted page (/checkout/api)', () => {
    const chooseMethod = (id: string, method: unknown) => post(`/checkout/api/checkouts/${id}/deposit`, { method });
    /** A checkout of 150000 IDR paid with `method`, and the deposit the widget API answered. */
    const chosen = async (method: string) => {
      const { id } = await create({ inputCurrency: 'IDR', inputAmount: 150000 });
      const res = await chooseMethod(id, method);
      return { id, res };
    };

    it('GET refund-claim: this page takes no refund claims (the shop does), so its element offers no form; 404 for no checkout', async () => {
      const { id } = await create({ inputCurrency: 'IDR', inputAmount: 150000 });
      const res = await get(`/checkout/api/checkouts/${id}/refund-claim`);
      assert.equal(res.status, 200);
      assert.deepEqual(await dataOf(res), { accepted: false });
      assert.equal(
        (await get('/checkout/api/checkouts/00000000-0000-0000-0000-000000000000/refund-claim')).status,
        404,
      );
    });

    it('GET checkout: the widget shape, feesPaidBy merchant for inputAmount', async () => {
      const { id } = await create({ inputCurrency: 'IDR', inputAmount: 150000 });
      const res = await get(`/checkout/api/checkouts/${id}`);
      assert.equal(res.status, 200);
      const c = await dataOf<WidgetCheckout>(res);
      assert.deepEqual(
        Object.keys(c).sort(),
        [
          'amount',
          'capabilities',
          'currency',
          'deposit',
          'expiresAt',
          'feesPaidBy',
          'id',
          'methods',
          'serverTime',
        ].sort(),
      );
      assert.equal(c.id, id);
      assert.equal(c.currency, 'IDR');
      assert.equal(c.amount, '150000');
      assert.equal(c.feesPaidBy, 'merchant');
      assert.deepEqual(c.capabilities, { events: false });
      assert.equal(c.deposit, null);
      const bca = c.methods.find((m) => m.code === 'BCA_VA');
      assert.deepEqual(bca, {
        kind: 'va',
        code: 'BCA_VA',
        name: 'BCA Virtual Account',
        image: `${p.deps.config.baseUrl}/static/logos/bca.svg`,
        currency: 'IDR',
        fee: '0',
        total: '150000',
        available: true,
      });
      assert.ok(c.methods.some((m) => m.kind === 'qris') && c.methods.some((m) => m.kind === 'ewallet'));
    });

    it('answers the deposit with one serverTime, in the same envelope the merchant backend uses', async () => {
      const { id } = await chosen('BCA_VA');
      const text = await (await get(`/checkout/api/checkouts/${id}/deposit`)).text();
      assert.equal(text.match(/"serverTime"/g)?.length, 1);
      assert.match(text, /^\{"statusCode":200,"message":"Success","data":\{.*\}\}$/);
    });

    it('feesPaidBy shopper for outputAmount, with fee and total per method as decimal strings', async () => {
      const { id } = await create({ inputCurrency: 'IDR', outputAmount: 100000 });
      const c = await dataOf<WidgetCheckout>(await get(`/checkout/api/checkouts/${id}`));
      assert.equal(c.feesPaidBy, 'shopper');
      assert.equal(c.amount, '100000');
      const ovo = c.methods.find((m) => m.code === 'OVO')!;
      assert.deepEqual([ovo.fee, ovo.total], ['1523', '101523']);
    });

    it('GET deposit before a method is chosen is a 404', async () => {
      const { id } = await create({ inputCurrency: 'IDR', inputAmount: 150000 });
      assert.equal((await get(`/checkout/api/checkouts/${id}/deposit`)).status, 404);
    });

    it('POST deposit {method} creates the deposit in the widget shape', async () => {
      const { id, res } = await chosen('QRIS');
      assert.equal(res.status, 201);
      const d = await dataOf<WidgetDeposit>(res);
      assert.equal(d.id, id);
      assert.equal(d.checkoutId, id);
      assert.equal(d.status, 'pending');
      assert.deepEqual(d.method, {
        kind: 'qris',
        code: 'QRIS',
        name: 'QRIS',
        image: `${p.deps.config.baseUrl}/static/logos/qris.svg`,
      });
      assert.equal(d.amount, '150000');
      assert.equal(d.fee, '0');
      assert.match(d.qrData!, /^000201010212/);
      assert.ok(d.expiresAt && d.serverTime && d.updatedAt);
    });

    it('the same method again is a 200; another method switches the deposit (200, same id); a method that is not a string is a 400', async () => {
      const { id } = await chosen('QRIS');
      const again = await chooseMethod(id, 'QRIS');
      assert.equal(again.status, 200);
      assert.equal((await bodyOf<Envelope<unknown>>(again)).message, 'Payment method already chosen');
      const switched = await chooseMethod(id, 'OVO');
      assert.equal(switched.status, 200);
      assert.equal((await bodyOf<Envelope<unknown>>(switched.clone())).message, 'Payment method changed');
      const d = await dataOf<WidgetDeposit>(switched);
      assert.deepEqual([d.id, d.method.code, d.qrData], [id, 'OVO', undefined]);
      assert.match(d.checkoutUrl!, /\/sandbox\/ewallet\//);
      const bad = await chooseMethod(id, 7);
      assert.equal(bad.status, 400);
      assert.match((await errorOf(bad)).message, /^method: /);
    });

    it('GET deposit carries an ETag, and If-None-Match with it is an empty 304', async () => {
      const { id } = await chosen('QRIS');
      const res = await get(`/checkout/api/checkouts/${id}/deposit`);
      assert.equal(res.status, 200);
      const etag = res.headers.get('etag')!;
      assert.match(etag, /^"[^"]+"$/);
      const notModified = await get(`/checkout/api/checkouts/${id}/deposit`, { 'If-None-Match': etag });
      assert.equal(notModified.status, 304);
      assert.equal(await notModified.text(), '');
    });

    it('GET checkout includes the chosen deposit', async () => {
      const { id } = await chosen('QRIS');
      assert.equal((await get(`/checkout/api/checkouts/${id}`)).status, 200);
      assert.equal((await dataOf<WidgetCheckout>(await get(`/checkout/api/checkouts/${id}`))).deposit?.id, id);
    });

    it('refuses a cancel with the checkout id alone (403): the shop cancels; the deposit stays pending, its ETag as it was', async () => {
      const { id } = await chosen('QRIS');
      const etag = (await get(`/checkout/api/checkouts/${id}/deposit`)).headers.get('etag')!;
      const res = await post(`/checkout/api/checkouts/${id}/cancel`);
      assert.equal(res.status, 403);
      assert.match((await errorOf(res)).message, /cancelled by the shop: PATCH \/v1\/deposit\/:depositId\/cancel/);
      assert.equal((await get(`/checkout/api/checkouts/${id}/deposit`, { 'If-None-Match': etag })).status, 304);
      // The shop's own cancel (bearer) does it, and the hosted page's read shows it.
      assert.equal((await p.bearer('PATCH', `/v1/deposit/${id}/cancel`)).status, 200);
      const changed = await get(`/checkout/api/checkouts/${id}/deposit`, { 'If-None-Match': etag });
      assert.equal(changed.status, 200, 'the ETag changes with the status');
      assert.equal((await dataOf<WidgetDeposit>(changed)).status, 'expired');
    });

    it('shopper-paid deposit shows the fee on top; sandbox pay completes it', async () => {
      const { id } = await create({ inputCurrency: 'IDR', outputAmount: 100000 });
      const d = await dataOf<WidgetDeposit>(await chooseMethod(id, 'BRI_VA'));
      assert.deepEqual([d.amount, d.fee], ['104000', '4000']);
      assert.match(d.accountNumber!, /^26215\d{11}$/);
      assert.equal(d.accountName, 'Kasir Sandbox Store');
      const paid = await post(`/checkout/api/sandbox/checkouts/${id}/pay`);
      assert.equal(paid.status, 200);
      assert.equal((await dataOf<WidgetDeposit>(paid)).status, 'completed');
      assert.deepEqual(
        (await outbox(p, id)).map((e) => e.type),
        ['deposit.completed'],
      );
    });

    it('unknown checkout is a 404 envelope', async () => {
      for (const path of ['/checkout/api/checkouts/nope', '/checkout/api/checkouts/nope/deposit']) {
        const res = await get(path);
        assert.deepEqual(await res.json(), { statusCode: 404, error: 'Not Found', message: 'Checkout not found' });
      }
    });
  });
});
