import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestProvider, type TestProvider } from '../support/provider';
import { addMerchant, outbox } from './deposit-helpers';

describe('checkout', () => {
  let p: TestProvider;
  before(async () => { p = await createTestProvider(); });
  after(async () => { await p.close(); });

  const create = async (body: Record<string, unknown>) => {
    const res = await p.signed('POST', '/v1/checkout', body);
    const json = await res.json() as any;
    assert.equal(res.status, 200, JSON.stringify(json));
    return json.data as { id: string; url: string };
  };
  const get = (path: string, headers: Record<string, string> = {}) => p.app.request(`http://localhost${path}`, { headers });
  const post = (path: string, body?: unknown) => p.app.request(`http://localhost${path}`, {
    method: 'POST', headers: body === undefined ? {} : { 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
  });

  describe('POST /v1/checkout', () => {
    it('returns {id, url} with url = checkout URL / id', async () => {
      const res = await p.signed('POST', '/v1/checkout', { inputCurrency: 'IDR', inputAmount: 150000 });
      assert.equal(res.status, 200);
      const body = await res.json() as any;
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
        assert.deepEqual(await res.json(), { statusCode: 400, error: 'Bad Request', message: 'Checkout is not enabled' });
      }
    });

    it('validates its body, naming the field', async () => {
      const cases: Array<[Record<string, unknown>, RegExp]> = [
        [{ inputAmount: 1000 }, /^inputCurrency: /],
        [{ inputCurrency: 'IDR' }, /exactly one of inputAmount and outputAmount/],
        [{ inputCurrency: 'IDR', inputAmount: 150000, outputAmount: 10 }, /exactly one of inputAmount and outputAmount/],
        [{ inputCurrency: 'IDR', inputAmount: -1 }, /^inputAmount: must be positive/],
        [{ inputCurrency: 'IDR', inputAmount: 10.5 }, /^inputAmount: IDR amounts have at most 0 decimal places/],
        [{ inputCurrency: 'USD', inputAmount: 10 }, /^inputCurrency: checkout accepts IDR/],
        [{ inputCurrency: 'IDR', inputAmount: 100, outputCurrency: 'NOPE' }, /^outputCurrency: /],
        [{ inputCurrency: 'IDR', inputAmount: 999_999_999 }, /^inputAmount: no payment method accepts this amount/],
        [{ inputCurrency: 'IDR', outputAmount: 'x' }, /^outputAmount: /],
      ];
      for (const [b, message] of cases) {
        const res = await p.signed('POST', '/v1/checkout', b);
        assert.equal(res.status, 400, JSON.stringify(b));
        assert.match((await res.json() as any).message, message, JSON.stringify(b));
      }
    });
  });

  describe('hosted checkout', () => {
    it('GET of the checkout id before a method is chosen is the interface 404', async () => {
      const { id } = await create({ inputCurrency: 'IDR', inputAmount: 150000 });
      const res = await p.signed('GET', `/v1/deposit/${id}`);
      assert.equal(res.status, 404);
      assert.deepEqual(await res.json(), { statusCode: 404, error: 'Not Found', message: 'Deposit not found' });
    });

    it('session lists methods with the payable amount; choosing creates the deposit whose depositId is the checkout id', async () => {
      const { id } = await create({ inputCurrency: 'IDR', inputAmount: 150000 });
      const session = (await (await get(`/checkout/${id}/session`)).json() as any).data;
      assert.equal(session.id, id);
      assert.equal(session.inputAmount, 150000);
      assert.equal(session.outputAmount, null);
      assert.equal(session.feesPaidBy, 'merchant');
      assert.equal(session.deposit, null);
      assert.equal(session.expired, false);
      const bca = session.methods.find((m: any) => m.bankCode === 'BCA_VA');
      assert.deepEqual([bca.paymentAmount, bca.fee, bca.shopperFee, bca.outputAmount, bca.available], [150000, 4000, 0, 146000, true]);

      let res = await p.app.request(`http://localhost/checkout/${id}/deposit`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ paymentMethod: 'BCA_VA' }) });
      assert.equal(res.status, 201);
      const created = (await res.json() as any).data;
      assert.equal(created.depositId, id);
      assert.equal(created.inputAmount, 150000);
      assert.deepEqual(created.exchangeInfo, { exchangeRate: 1, outputCurrency: 'IDR', outputAmount: 146000 });
      assert.match(created.paymentFiat.accountNumber, /^39358\d{11}$/);

      // same method again: the same deposit; another method: 400
      res = await p.app.request(`http://localhost/checkout/${id}/deposit`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ paymentMethod: 'BCA_VA' }) });
      assert.equal(res.status, 200);
      assert.equal((await res.json() as any).data.id, created.id);
      res = await p.app.request(`http://localhost/checkout/${id}/deposit`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ paymentMethod: 'QRIS' }) });
      assert.equal(res.status, 400);
      assert.match((await res.json() as any).message, /^paymentMethod: /);

      // tracking and sandbox completion use the checkout id; the webhook's orderId is the checkout id
      const read = (await (await p.signed('GET', `/v1/deposit/${id}`)).json() as any).data;
      assert.equal(read.depositId, id);
      assert.ok(read.exchangeInfo);
      const done = await p.signed('PATCH', `/v1/deposit/${id}`, { status: 'completed' });
      assert.equal(done.status, 200);
      const events = await outbox(p, id);
      assert.equal(events[0].payload.orderId, id);
      assert.equal(events[0].payload.type, 'deposit.completed');
      assert.equal((await (await get(`/checkout/${id}/session`)).json() as any).data.deposit.status, 'completed');
    });

    it('concurrent choices of one method create one deposit', async () => {
      const { id } = await create({ inputCurrency: 'IDR', inputAmount: 50000 });
      const results = await Promise.all(Array.from({ length: 6 }, () => post(`/checkout/${id}/deposit`, { paymentMethod: 'QRIS' })));
      const statuses = results.map((r) => r.status).sort();
      assert.deepEqual(statuses, [200, 200, 200, 200, 200, 201]);
      const rows = await p.deps.db.selectFrom('deposits').select('id').where('deposit_id', '=', id).execute();
      assert.equal(rows.length, 1);
    });

    it('outputAmount: the payer amount per method includes the fee', async () => {
      const { id } = await create({ inputCurrency: 'IDR', outputAmount: 100000 });
      const session = (await (await get(`/checkout/${id}/session`)).json() as any).data;
      assert.equal(session.feesPaidBy, 'shopper');
      const by = Object.fromEntries(session.methods.map((m: any) => [m.bankCode, m]));
      assert.deepEqual([by.BCA_VA.paymentAmount, by.BCA_VA.shopperFee, by.BCA_VA.outputAmount], [104000, 4000, 100000]);
      assert.deepEqual([by.OVO.paymentAmount, by.OVO.shopperFee, by.OVO.outputAmount], [101523, 1523, 100000]);
      assert.deepEqual([by.QRIS.paymentAmount, by.QRIS.outputAmount], [100705, 100000]); // 100705 - round(704.935) = 100000
      const d = (await (await post(`/checkout/${id}/deposit`, { paymentMethod: 'QRIS' })).json() as any).data;
      assert.equal(d.inputAmount, 100705);
      assert.equal(d.outputAmount, 100000);
    });

    it('session orderAmount: what the order costs in the input currency, as the hosted widget API says', async () => {
      for (const body of [
        { inputCurrency: 'IDR', inputAmount: 150000 },
        { inputCurrency: 'IDR', outputAmount: 100000 },
        { inputCurrency: 'IDR', outputAmount: 6, outputCurrency: 'USDT-POLYGON' },
      ]) {
        const { id } = await create(body);
        const session = (await (await get(`/checkout/${id}/session`)).json() as any).data;
        const widget = (await (await get(`/checkout/api/checkouts/${id}`)).json() as any).data;
        assert.equal(typeof session.orderAmount, 'string', JSON.stringify(body));
        assert.equal(session.orderAmount, widget.amount, JSON.stringify(body));
      }
      const { id } = await create({ inputCurrency: 'IDR', outputAmount: 6, outputCurrency: 'USDT-POLYGON' });
      const session = (await (await get(`/checkout/${id}/session`)).json() as any).data;
      assert.notEqual(session.orderAmount, '6'); // rupiah, not the crypto amount
      assert.ok(Number(session.orderAmount) > 1000, session.orderAmount);
    });

    it('marks methods whose total is outside their limits as unavailable and refuses them', async () => {
      const { id } = await create({ inputCurrency: 'IDR', inputAmount: 5000 });
      const session = (await (await get(`/checkout/${id}/session`)).json() as any).data;
      const by = Object.fromEntries(session.methods.map((m: any) => [m.bankCode, m]));
      assert.equal(by.BCA_VA.available, false);
      assert.equal(by.QRIS.available, true);
      const res = await post(`/checkout/${id}/deposit`, { paymentMethod: 'BCA_VA' });
      assert.equal(res.status, 400);
      assert.match((await res.json() as any).message, /^paymentMethod: BCA_VA does not accept 5000 IDR/);
    });

    it('after 15 minutes no deposit can be created; unknown method and checkout are refused', async () => {
      const { id } = await create({ inputCurrency: 'IDR', inputAmount: 150000 });
      let res = await post(`/checkout/${id}/deposit`, { paymentMethod: 'NOPE' });
      assert.deepEqual(await res.json(), { statusCode: 400, error: 'Not Found', message: 'Payment method not found' });
      res = await post(`/checkout/${id}/deposit`, {});
      assert.equal(res.status, 400);
      assert.match((await res.json() as any).message, /^paymentMethod: /);
      p.clock.offsetMs = 15 * 60 * 1000;
      try {
        res = await post(`/checkout/${id}/deposit`, { paymentMethod: 'BCA_VA' });
        assert.equal(res.status, 400);
        assert.match((await res.json() as any).message, /Checkout has expired/);
        assert.equal((await (await get(`/checkout/${id}/session`)).json() as any).data.expired, true);
      } finally { p.clock.offsetMs = 0; }
      res = await get('/checkout/00000000-0000-0000-0000-000000000000/session');
      assert.deepEqual(await res.json(), { statusCode: 404, error: 'Not Found', message: 'Checkout not found' });
    });

    it('speaks the shopper\'s language on the hosted page: ?lang=, then Accept-Language, else English', async () => {
      const { id } = await create({ inputCurrency: 'IDR', inputAmount: 150000 });
      const page = async (path: string, headers: Record<string, string> = {}) => (await p.app.request(`http://localhost${path}`, { headers })).text();
      const indonesian = await page(`/checkout/${id}`, { 'Accept-Language': 'id-ID,id;q=0.9,en;q=0.8' });
      assert.match(indonesian, /<html lang="id">/);
      assert.ok(indonesian.includes(`checkout-id="${id}" locale="id"`));
      assert.match(await page(`/checkout/${id}?lang=id`, { 'Accept-Language': 'en' }), /locale="id"/);
      assert.match(await page(`/checkout/${id}`, { 'Accept-Language': 'fr-FR' }), /locale="en"/);
      assert.match(await page('/checkout/nope', { 'Accept-Language': 'id' }), /Checkout tidak ditemukan/);
    });

    it('serves the hosted page: the widget element, the widget module, a strict CSP and no inline script', async () => {
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
      assert.ok(html.includes(`<kasir-checkout endpoint="/checkout/api" checkout-id="${id}" locale="en"></kasir-checkout>`));
      assert.ok(html.includes('<script type="module" src="/checkout/kasir-checkout.js"></script>'));
      assert.equal((html.match(/<script/g) ?? []).length, 1, 'only the module script, no inline script');
      const style = /<style>([\s\S]*?)<\/style>/.exec(html)![1];
      const { createHash } = await import('node:crypto');
      assert.ok(csp.includes(`'sha256-${createHash('sha256').update(style).digest('base64')}'`), 'the page style is allowed by its hash');
      const js = await get('/checkout/kasir-checkout.js');
      assert.ok(js.status === 200 || js.status === 503);
      if (js.status === 200) assert.match(js.headers.get('content-type')!, /javascript/);
      else assert.match((await js.json() as any).message, /not built/);
      process.env.KASIR_WIDGET_FILE = '/nonexistent/kasir-checkout.js';
      try {
        const notBuilt = await get('/checkout/kasir-checkout.js');
        assert.equal(notBuilt.status, 503);
        assert.deepEqual(await notBuilt.json(), { statusCode: 503, error: 'Service Unavailable', message: 'The checkout widget is not built yet: run npm run build' });
      } finally { delete process.env.KASIR_WIDGET_FILE; }
      const { mkdtempSync, writeFileSync } = await import('node:fs');
      const { join } = await import('node:path');
      const { tmpdir } = await import('node:os');
      process.env.KASIR_WIDGET_FILE = join(mkdtempSync(join(tmpdir(), 'kasir-widget-')), 'kasir-checkout.js');
      writeFileSync(process.env.KASIR_WIDGET_FILE, 'export const built = true;\n');
      try {
        const built = await get('/checkout/kasir-checkout.js');
        assert.equal(built.status, 200);
        assert.match(built.headers.get('content-type')!, /text\/javascript/);
        assert.equal(await built.text(), 'export const built = true;\n');
      } finally { delete process.env.KASIR_WIDGET_FILE; }
      const missing = await get('/checkout/00000000-0000-0000-0000-000000000000');
      assert.equal(missing.status, 404);
      assert.doesNotMatch(await missing.text(), /<kasir-checkout/);
    });
  });

  describe('widget API of the hosted page (/checkout/api)', () => {
    it('GET checkout: the widget shape, feesPaidBy merchant for inputAmount', async () => {
      const { id } = await create({ inputCurrency: 'IDR', inputAmount: 150000 });
      const res = await get(`/checkout/api/checkouts/${id}`);
      assert.equal(res.status, 200);
      const c = (await res.json() as any).data;
      assert.deepEqual(Object.keys(c).sort(), ['amount', 'capabilities', 'currency', 'deposit', 'expiresAt', 'feesPaidBy', 'id', 'methods', 'serverTime'].sort());
      assert.equal(c.id, id);
      assert.equal(c.currency, 'IDR');
      assert.equal(c.amount, '150000');
      assert.equal(c.feesPaidBy, 'merchant');
      assert.deepEqual(c.capabilities, { events: false });
      assert.equal(c.deposit, null);
      const bca = c.methods.find((m: any) => m.code === 'BCA_VA');
      assert.deepEqual(bca, { kind: 'va', code: 'BCA_VA', name: 'BCA Virtual Account', image: `${p.deps.config.baseUrl}/static/logos/bca.svg`, currency: 'IDR', fee: '0', total: '150000', available: true });
      assert.ok(c.methods.some((m: any) => m.kind === 'qris') && c.methods.some((m: any) => m.kind === 'ewallet'));
    });

    it('feesPaidBy shopper for outputAmount, with fee and total per method as decimal strings', async () => {
      const { id } = await create({ inputCurrency: 'IDR', outputAmount: 100000 });
      const c = (await (await get(`/checkout/api/checkouts/${id}`)).json() as any).data;
      assert.equal(c.feesPaidBy, 'shopper');
      assert.equal(c.amount, '100000');
      const ovo = c.methods.find((m: any) => m.code === 'OVO');
      assert.deepEqual([ovo.fee, ovo.total], ['1523', '101523']);
    });

    it('POST deposit {method}, GET deposit with ETag and 304, cancel', async () => {
      const { id } = await create({ inputCurrency: 'IDR', inputAmount: 150000 });
      assert.equal((await get(`/checkout/api/checkouts/${id}/deposit`)).status, 404);
      let res = await post(`/checkout/api/checkouts/${id}/deposit`, { method: 'QRIS' });
      assert.equal(res.status, 201);
      const d = (await res.json() as any).data;
      assert.equal(d.id, id);
      assert.equal(d.checkoutId, id);
      assert.equal(d.status, 'pending');
      assert.deepEqual(d.method, { kind: 'qris', code: 'QRIS', name: 'QRIS', image: `${p.deps.config.baseUrl}/static/logos/qris.svg` });
      assert.equal(d.amount, '150000');
      assert.equal(d.fee, '0');
      assert.match(d.qrData, /^000201010212/);
      assert.ok(d.expiresAt && d.serverTime && d.updatedAt);
      assert.equal((await post(`/checkout/api/checkouts/${id}/deposit`, { method: 'QRIS' })).status, 200);
      assert.equal((await post(`/checkout/api/checkouts/${id}/deposit`, { method: 'OVO' })).status, 400);
      const bad = await post(`/checkout/api/checkouts/${id}/deposit`, { method: 7 });
      assert.equal(bad.status, 400);
      assert.match((await bad.json() as any).message, /^method: /);

      res = await get(`/checkout/api/checkouts/${id}/deposit`);
      assert.equal(res.status, 200);
      const etag = res.headers.get('etag')!;
      assert.match(etag, /^"[^"]+"$/);
      const notModified = await get(`/checkout/api/checkouts/${id}/deposit`, { 'If-None-Match': etag });
      assert.equal(notModified.status, 304);
      assert.equal(await notModified.text(), '');
      assert.equal((await get(`/checkout/api/checkouts/${id}`)).status, 200);
      assert.equal(((await (await get(`/checkout/api/checkouts/${id}`)).json()) as any).data.deposit.id, id);

      res = await post(`/checkout/api/checkouts/${id}/cancel`);
      assert.equal(res.status, 200);
      assert.equal((await res.json() as any).data.status, 'expired');
      const changed = await get(`/checkout/api/checkouts/${id}/deposit`, { 'If-None-Match': etag });
      assert.equal(changed.status, 200, 'the ETag changes with the status');
      assert.notEqual(changed.headers.get('etag'), etag);
      assert.equal((await post(`/checkout/api/checkouts/${id}/cancel`)).status, 400);
    });

    it('shopper-paid deposit shows the fee on top; sandbox pay completes it', async () => {
      const { id } = await create({ inputCurrency: 'IDR', outputAmount: 100000 });
      const d = (await (await post(`/checkout/api/checkouts/${id}/deposit`, { method: 'BRI_VA' })).json() as any).data;
      assert.deepEqual([d.amount, d.fee], ['104000', '4000']);
      assert.match(d.accountNumber, /^26215\d{11}$/);
      assert.equal(d.accountName, 'Kasir Sandbox Store');
      const paid = await post(`/checkout/api/sandbox/checkouts/${id}/pay`);
      assert.equal(paid.status, 200);
      assert.equal((await paid.json() as any).data.status, 'completed');
      assert.deepEqual((await outbox(p, id)).map((e) => e.type), ['deposit.completed']);
    });

    it('unknown checkout is a 404 envelope', async () => {
      for (const path of ['/checkout/api/checkouts/nope', '/checkout/api/checkouts/nope/deposit']) {
        const res = await get(path);
        assert.deepEqual(await res.json(), { statusCode: 404, error: 'Not Found', message: 'Checkout not found' });
      }
    });
  });
});
