// The payment service made hard to break, on SQLite or (with test/support/with-postgres.sh) PostgreSQL: a NUL byte
// anywhere a route reads is a 400 naming the field (PostgreSQL cannot store one: it was a 500 there); a deposit's
// version grows with each committed change and a choice of the method it has changes nothing; the session API says what
// a choice did; bank-transfer unique codes are pooled per merchant, and a full pool says "choose another method" (409).
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { switchDepositMethod } from '../../server/provider/deposits/switch-method';
import { bodyOf, dataOf, errorOf, type Envelope } from '../support/envelope';
import { createTestProvider, type TestProvider } from '../support/provider';
import { addMerchant, createFiat, fiatBody, fillUniqueCodes, readDeposit, type DepositView } from './deposit-helpers';

describe('hardening: bad input refused in the envelope', () => {
  let p: TestProvider;
  before(async () => {
    p = await createTestProvider();
  });
  after(async () => {
    await p.close();
  });

  const request = (method: string, path: string, body?: string) =>
    p.app.request(`http://localhost${path}`, {
      method,
      headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
      body,
    });
  const newCheckout = async () =>
    (
      await dataOf<{ id: string }>(
        await p.signed('POST', '/v1/checkout', { inputCurrency: 'IDR', inputAmount: 150000 }),
      )
    ).id;
  const choose = async (id: string, paymentMethod: string) => {
    const res = await request('POST', `/checkout/${id}/deposit`, JSON.stringify({ paymentMethod }));
    return { status: res.status, body: await bodyOf<Envelope<DepositView> & { choice: string }>(res) };
  };
  const historyOf = async (depositId: string) => (await readDeposit(p, depositId)).activityHistory;

  describe('a NUL byte is a 400 naming the field, never stored', () => {
    const refused = async (res: Response, field: string) => {
      const error = await errorOf(res);
      assert.deepEqual([error.statusCode, error.error], [400, 'Bad Request']);
      assert.equal(error.message, `${field}: must not contain a NUL byte (\\u0000)`);
    };

    it('in a path parameter', async () => {
      await refused(await request('GET', '/checkout/abc%00def/session'), 'id');
      await refused(await request('POST', '/checkout/abc%00def/deposit', '{"paymentMethod":"QRIS"}'), 'id');
      await refused(await p.signed('GET', '/v1/deposit/abc%00def'), 'depositIdOrReference');
    });

    it('in a query parameter', async () => {
      await refused(await p.signed('GET', '/v1/recipient?search=a%00b'), 'search');
    });

    it('in a JSON body string, nested or in a key', async () => {
      await refused(await p.bearer('POST', '/v1/deposit/fiat', fiatBody({ note: 'a\u0000b' })), 'note');
      await refused(
        await p.signed('POST', '/v1/recipient', { name: 'x', bank: { accountName: 'a\u0000' } }),
        'bank.accountName',
      );
      await refused(await p.bearer('POST', '/v1/deposit/fiat', '{"a\\u0000":1}'), 'body (a key)');
      const id = await newCheckout();
      await refused(
        await request('POST', `/checkout/${id}/deposit`, '{"paymentMethod":"QR\\u0000IS"}'),
        'paymentMethod',
      );
      assert.equal(
        (await p.deps.db.selectFrom('deposits').select('id').where('deposit_id', '=', id).execute()).length,
        0,
      );
    });

    it('in a header: refused before any route (Node answers 400; a Headers object cannot hold one)', async () => {
      assert.throws(() => new Headers({ 'x-note': 'a\u0000b' }), TypeError);
      let reached = false;
      const server = createServer((_req, res) => {
        reached = true;
        res.end();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () =>
          socket.end('GET / HTTP/1.1\r\nHost: x\r\nX-Note: a\u0000b\r\n\r\n'),
        );
        let text = '';
        socket.on('data', (chunk) => (text += chunk));
        socket.on('end', () => resolve(text));
        socket.on('error', reject);
      });
      server.close();
      assert.match(answer, /^HTTP\/1\.1 400 /);
      assert.equal(reached, false);
    });
  });

  describe('versions and choices', () => {
    it('grows the version with each committed change; the same method again changes nothing; the answer says what it did', async () => {
      const id = await newCheckout();
      const created = await choose(id, 'QRIS');
      assert.deepEqual([created.status, created.body.choice, created.body.data.version], [201, 'created', 1]);
      const again = await choose(id, 'QRIS');
      assert.deepEqual([again.status, again.body.choice, again.body.data.version], [200, 'unchanged', 1]);
      const switched = await choose(id, 'BCA_VA');
      assert.deepEqual([switched.status, switched.body.choice, switched.body.data.version], [200, 'switched', 2]);
      assert.equal(switched.body.data.paymentFiat.bankCode, 'BCA_VA');

      // A racing request priced for BCA_VA whose lock comes after the switch: nothing changes, the details stand.
      const racing = await switchDepositMethod(p.deps, id, {
        depositType: 'fiat',
        request: {
          inputCurrency: 'IDR',
          inputAmount: 150000,
          outputCurrency: 'IDR',
          balanceType: 'fiat',
          paymentMethod: 'BCA_VA',
        },
      });
      assert.equal(racing.switched, false);
      assert.equal(racing.view.version, 2);
      assert.equal(racing.view.paymentFiat.accountNumber, switched.body.data.paymentFiat.accountNumber);
      const history = await historyOf(id);
      assert.equal(history.length, 2);
      assert.ok(!history.some((h) => /from (\S+) to \1;/.test(h.description)), JSON.stringify(history));

      const paid = await dataOf<DepositView>(await p.signed('PATCH', `/v1/deposit/${id}`, { status: 'completed' }));
      assert.equal(paid.version, 3);
      assert.equal((await readDeposit(p, id)).version, 3);
    });

    it('counts an expiry and a cancel as changes', async () => {
      const d = await createFiat(p);
      assert.equal(d.version, 1);
      assert.equal((await p.bearer('PATCH', `/v1/deposit/${d.depositId}/cancel`)).status, 200);
      const cancelled = await readDeposit(p, d.depositId);
      assert.deepEqual([cancelled.status, cancelled.version], ['expired', 2]);
      const overdue = await createFiat(p);
      p.clock.offsetMs = 2 * 24 * 3600_000;
      try {
        const expired = await readDeposit(p, overdue.depositId);
        assert.deepEqual([expired.status, expired.version], ['expired', 2]);
      } finally {
        p.clock.offsetMs = 0;
      }
    });
  });

  describe('bank-transfer unique codes', () => {
    it("are pooled per merchant: a full pool refuses with 'choose another method' (409), another merchant's transfers go on", async () => {
      await fillUniqueCodes(p.deps, (await createFiat(p)).id);
      const refused = await p.bearer('POST', '/v1/deposit/fiat', fiatBody({ paymentMethod: 'BCA_TRANSFER' }));
      const error = await errorOf(refused);
      assert.equal(error.statusCode, 409);
      assert.match(
        error.message,
        /^paymentMethod: every unique code of BCA_TRANSFER is held by a pending transfer; choose another method$/,
      );
      const id = await newCheckout();
      const chosen = await choose(id, 'BCA_TRANSFER');
      assert.equal(chosen.status, 409);
      assert.match(chosen.body.message, /choose another method/);
      assert.equal((await choose(id, 'BCA_VA')).status, 201, 'another method still works');

      const other = await addMerchant(p);
      const theirs = await p.bearer(
        'POST',
        '/v1/deposit/fiat',
        fiatBody({ paymentMethod: 'BCA_TRANSFER' }),
        other.token,
      );
      assert.equal(theirs.status, 201, await theirs.clone().text());
    });
  });
});
