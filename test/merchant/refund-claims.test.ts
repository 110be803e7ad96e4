// Refund claims (docs/refunds.md) through createKasirApi against a real sandbox: what is owed (the service's count),
// the banks of the currency and what the form asks (less what priceOrder's customer tells), a bank claim that becomes a
// recipient at the service and runs onRefundRequested once (across copies on one data dir and a restart), a second
// claim 409, nothing owed 400 whatever the body, an `amount` in the body ignored, every field checked and named; a
// crypto claim's address checked (EIP-55, Stellar with memo); without the hook no claims are taken.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Decimal } from 'decimal.js';
import type { Checkout, Deposit, RefundClaim } from '@kasir/checkout';
import type { RefundRequest } from '../../server/merchant/hooks';
import { PaymentServiceClient } from '../../server/merchant/client/client';
import { call, merchantApp, startUpstream, type Envelope, type Upstream } from './support';

type Offer = Extract<RefundClaim, { accepted: true }>;

const BANK_CLAIM = {
  bankCode: 'BCA',
  accountNumber: '0123 4567 89',
  accountName: 'Siti Rahma',
  email: 'siti@example.com',
  address: 'Jl. Merdeka 1',
  city: 'Bandung',
  postCode: '40111',
};
/** A checksummed EVM address (EIP-55's own example) and a Stellar account id. */
const EVM = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const STELLAR = 'GCKFBEIYV2U22IO2BJ4KVJOIP7XPWQGQFKKWXR6DOSJBV7STMAQSMTGG';

describe('refund claims (docs/refunds.md)', () => {
  let up: Upstream;
  let dataDir: string;
  const requests: RefundRequest[] = [];
  const orders = new Map<string, { amount: string; currency: string; customer?: Record<string, string> }>();
  const hooks = {
    onRefundRequested: (request: RefundRequest) => {
      requests.push(request);
    },
    priceOrder: (orderId: string) => orders.get(orderId),
  };
  let app: ReturnType<typeof merchantApp>;

  before(async () => {
    up = await startUpstream();
    dataDir = mkdtempSync(join(tmpdir(), 'kasir-refund-claims-'));
    app = merchantApp(up, hooks, { dataDir });
  });
  after(async () => {
    await app.api.close();
    await up.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** An order priced by the shop (with what it knows of the customer), its deposit made with `method`. */
  const order = async (method: string, customer?: Record<string, string>) => {
    const orderId = `order-${orders.size + 1}`;
    orders.set(orderId, { amount: '150000', currency: 'IDR', ...(customer ? { customer } : {}) });
    const created = await call<Envelope<Checkout>>(app, 'POST', '/api/checkouts', { orderId });
    assert.equal(created.status, 201, JSON.stringify(created.json));
    const id = created.json.data.id;
    const chosen = await call<Envelope<Deposit>>(app, 'POST', `/api/checkouts/${id}/deposit`, { method });
    assert.equal(chosen.status, 201, JSON.stringify(chosen.json));
    return { id, orderId, deposit: chosen.json.data };
  };
  const pay = async (id: string, amount?: string) => {
    const paid = await call<Envelope<Deposit>>(
      app,
      'POST',
      `/api/sandbox/checkouts/${id}/pay`,
      amount === undefined ? undefined : { amount },
    );
    assert.equal(paid.status, 200, JSON.stringify(paid.json));
    return paid.json.data;
  };
  const offer = async (id: string) => {
    const got = await call<Envelope<Offer>>(app, 'GET', `/api/checkouts/${id}/refund-claim`);
    assert.equal(got.status, 200, JSON.stringify(got.json));
    return got.json.data;
  };
  const client = () => {
    const c = up.config();
    return new PaymentServiceClient({
      baseUrl: c.baseUrl!,
      checkoutUrl: c.checkoutUrl!,
      clientId: c.clientId!,
      clientSecret: c.clientSecret!,
      accessToken: c.accessToken!,
    });
  };

  it('an expired bank transfer with money received: what is owed, the banks, the fields; the claim makes a recipient and runs the hook once', async () => {
    const { id, orderId } = await order('BCA_TRANSFER');
    const pending = await offer(id);
    assert.deepEqual(
      { ...pending, banks: [] },
      {
        accepted: true,
        owed: [],
        amount: '0',
        currency: 'IDR',
        claimed: false,
        kind: 'bank',
        banks: [],
        ask: ['email', 'address', 'city', 'postCode'],
      },
    );
    const nothing = await call(app, 'POST', `/api/checkouts/${id}/refund-claim`, BANK_CLAIM);
    assert.deepEqual(
      [nothing.status, nothing.json?.message],
      [400, 'Nothing is owed back for this payment'],
      'pending: nothing owed',
    );

    await pay(id, '60000');
    const cancelled = await call<Envelope<Deposit>>(app, 'POST', `/api/checkouts/${id}/cancel`);
    assert.equal(cancelled.json.data.status, 'expired');
    const owed = await offer(id);
    assert.deepEqual(
      [owed.amount, owed.currency, owed.reason, owed.claimed, owed.kind],
      ['60000', 'IDR', 'expired', false, 'bank'],
    );
    assert.ok(
      owed.banks!.some((b) => b.code === 'BCA' && b.name === 'Bank Central Asia'),
      JSON.stringify(owed.banks),
    );
    assert.ok(
      owed.banks!.every((b) => !['DBS', 'CHASE'].includes(b.code)),
      'only the banks of IDR',
    );

    // The page says it is owed a million: the service's count is what the hook gets.
    const claimed = await call<Envelope<Offer>>(app, 'POST', `/api/checkouts/${id}/refund-claim`, {
      ...BANK_CLAIM,
      amount: '1000000',
    });
    assert.equal(claimed.status, 201, JSON.stringify(claimed.json));
    assert.equal(claimed.json.data.claimed, true);
    assert.equal(requests.length, 1);
    const request = requests[0];
    assert.deepEqual(
      [
        request.eventId,
        request.orderId,
        request.checkoutId,
        request.depositId,
        request.amount,
        request.currency,
        request.reason,
      ],
      [`refund:${id}:IDR:1`, orderId, id, id, '60000', 'IDR', 'expired'],
    );
    assert.equal(request.recipient.type, 'bank');
    if (request.recipient.type !== 'bank') return;
    assert.deepEqual(
      [
        request.recipient.bankCode,
        request.recipient.bankName,
        request.recipient.accountNumber,
        request.recipient.accountName,
        request.recipient.name,
        request.recipient.country,
      ],
      ['BCA', 'Bank Central Asia', '0123456789', 'Siti Rahma', 'Siti Rahma', 'ID'],
    );
    // The recipient at the service, as the service has it.
    const recipient = await client().getRecipient(request.recipient.recipientId);
    assert.deepEqual(
      [recipient.name, recipient.email, recipient.address, recipient.city, recipient.postCode, recipient.reference],
      ['Siti Rahma', 'siti@example.com', 'Jl. Merdeka 1', 'Bandung', '40111', `Refund of deposit ${id}`],
    );
    assert.deepEqual(
      [
        recipient.bank[0].accountName,
        recipient.bank[0].accountNumber,
        recipient.bank[0].bankName,
        recipient.bank[0].currency,
        recipient.bank[0].country,
      ],
      ['Siti Rahma', '0123456789', 'Bank Central Asia', 'IDR', 'ID'],
    );

    // A second claim, with other details or none: 409, and the hook does not run again.
    for (const body of [BANK_CLAIM, { ...BANK_CLAIM, accountNumber: '999999999' }, {}]) {
      const again = await call(app, 'POST', `/api/checkouts/${id}/refund-claim`, body);
      assert.deepEqual([again.status, again.json?.message], [409, 'A refund was already requested']);
    }
    assert.equal((await offer(id)).claimed, true);
    assert.equal(requests.length, 1);

    // A restart on the same data dir remembers it.
    await app.api.close();
    app = merchantApp(up, hooks, { dataDir });
    const afterRestart = await call(app, 'POST', `/api/checkouts/${id}/refund-claim`, BANK_CLAIM);
    assert.equal(afterRestart.status, 409);
    assert.equal(requests.length, 1);
  });

  it('two claims at once for one deposit: one is taken, the other answers 409; the hook runs once', async () => {
    const { id } = await order('BCA_TRANSFER');
    await pay(id, '5000');
    await call(app, 'POST', `/api/checkouts/${id}/cancel`);
    const before = requests.length;
    const answers = await Promise.all(
      [1, 2, 3].map(() => call(app, 'POST', `/api/checkouts/${id}/refund-claim`, BANK_CLAIM)),
    );
    assert.deepEqual(answers.map((a) => a.status).sort(), [201, 409, 409]);
    assert.equal(requests.length, before + 1);
  });

  it('nothing owed (completed exactly, or expired with nothing paid): 400 whatever the body', async () => {
    const paid = await order('BCA_VA');
    await pay(paid.id);
    const expired = await order('BCA_TRANSFER');
    await call(app, 'POST', `/api/checkouts/${expired.id}/cancel`);
    for (const id of [paid.id, expired.id]) {
      assert.deepEqual([(await offer(id)).amount, (await offer(id)).claimed], ['0', false]);
      for (const body of [BANK_CLAIM, {}, { amount: '150000' }, { address: EVM }]) {
        const res = await call(app, 'POST', `/api/checkouts/${id}/refund-claim`, body);
        assert.deepEqual(
          [res.status, res.json?.message],
          [400, 'Nothing is owed back for this payment'],
          JSON.stringify(body),
        );
      }
    }
  });

  it('overpaid: the overpayment is owed; each field is checked and named, and a refused claim can be sent again', async () => {
    const { id } = await order('BRI_TRANSFER');
    const deposit = await pay(id, '200000');
    assert.equal(deposit.status, 'completed');
    const owed = await offer(id);
    assert.deepEqual([owed.amount, owed.reason], [deposit.overpaidAmount, 'overpaid']);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...BANK_CLAIM, bankCode: 'DBS' }, 'bankCode: choose one of the banks listed for IDR'],
      [{ ...BANK_CLAIM, bankCode: undefined }, 'bankCode: is required'],
      [{ ...BANK_CLAIM, accountNumber: 123456789 }, 'accountNumber: must be text (a number would lose leading zeros)'],
      [{ ...BANK_CLAIM, accountNumber: '12' }, 'accountNumber: must be 5 to 34 digits or letters'],
      [{ ...BANK_CLAIM, accountName: '' }, 'accountName: is required'],
      [{ ...BANK_CLAIM, email: 'siti' }, 'email: must be an email address'],
      [{ ...BANK_CLAIM, email: undefined }, 'email: is required'],
      [{ ...BANK_CLAIM, city: ' ' }, 'city: is required'],
      [{ ...BANK_CLAIM, postCode: '40111!' }, 'postCode: must be 3 to 12 letters, digits, spaces or dashes'],
    ];
    for (const [body, message] of cases) {
      const res = await call(app, 'POST', `/api/checkouts/${id}/refund-claim`, body);
      assert.deepEqual([res.status, res.json?.message], [400, message], JSON.stringify(body));
    }
    const before = requests.length;
    const ok = await call(app, 'POST', `/api/checkouts/${id}/refund-claim`, BANK_CLAIM);
    assert.equal(ok.status, 201, JSON.stringify(ok.json));
    assert.deepEqual([requests[before].amount, requests[before].reason], [deposit.overpaidAmount, 'overpaid']);
  });

  it("priceOrder's customer: the form does not ask what the shop knows, and the shop's values are the recipient's", async () => {
    const customer = {
      name: 'Budi Santoso',
      email: 'budi@example.com',
      address: 'Jl. Sudirman 5',
      city: 'Jakarta',
      postCode: '10220',
    };
    const { id } = await order('MANDIRI_TRANSFER', customer);
    await pay(id, '7000');
    await call(app, 'POST', `/api/checkouts/${id}/cancel`);
    assert.deepEqual((await offer(id)).ask, []);
    const before = requests.length;
    const res = await call(app, 'POST', `/api/checkouts/${id}/refund-claim`, {
      bankCode: 'bca',
      accountNumber: '555000111',
      accountName: 'Budi S',
      email: 'someone@else.example',
    });
    assert.equal(res.status, 201, JSON.stringify(res.json));
    const recipient = requests[before].recipient;
    assert.ok(recipient.type === 'bank');
    assert.deepEqual(
      [recipient.name, recipient.email, recipient.city, recipient.accountName, recipient.bankCode],
      ['Budi Santoso', 'budi@example.com', 'Jakarta', 'Budi S', 'BCA'],
    );

    const partly = await order('MANDIRI_TRANSFER', { email: 'ani@example.com' });
    await pay(partly.id, '7000');
    await call(app, 'POST', `/api/checkouts/${partly.id}/cancel`);
    assert.deepEqual((await offer(partly.id)).ask, ['address', 'city', 'postCode']);
  });

  it('crypto: an address on the deposit network, EIP-55 checked; a memo only on Stellar; no recipient at the service', async () => {
    const { id } = await order('USDC-POLYGON');
    const deposit = (await call<Envelope<Deposit>>(app, 'GET', `/api/checkouts/${id}/deposit`)).json.data;
    await pay(id, new Decimal(deposit.amount).plus(1).toFixed());
    const owed = await offer(id);
    assert.deepEqual(
      [owed.kind, owed.amount, owed.currency, owed.network, owed.chain, owed.reason],
      ['crypto', '1', 'USDC-POLYGON', 'POLYGON', 'EVM', 'overpaid'],
    );
    assert.equal(owed.banks, undefined);
    const wrongCase = `0x5A${EVM.slice(4)}`; // one letter's case changed: the checksum breaks
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, 'address: is required'],
      [{ address: '0x1234' }, 'address: must be 0x followed by 40 hexadecimal characters'],
      [{ address: wrongCase }, 'address: has a wrong checksum (EIP-55): check it for a typo'],
      [{ address: STELLAR }, 'address: must be 0x followed by 40 hexadecimal characters'],
      [{ address: EVM, memo: '123' }, 'memo: only a Stellar address takes a memo'],
    ];
    for (const [body, message] of cases) {
      const res = await call(app, 'POST', `/api/checkouts/${id}/refund-claim`, body);
      assert.deepEqual([res.status, res.json?.message], [400, message], JSON.stringify(body));
    }
    const before = requests.length;
    const res = await call(app, 'POST', `/api/checkouts/${id}/refund-claim`, {
      address: EVM.toLowerCase(),
      amount: '999',
    });
    assert.equal(res.status, 201, JSON.stringify(res.json));
    assert.deepEqual(requests[before].recipient, {
      type: 'crypto',
      asset: 'USDC-POLYGON',
      network: 'POLYGON',
      address: EVM.toLowerCase(),
    });
    assert.equal(requests[before].amount, '1');
  });

  it('crypto on Stellar: a G... account id with its checksum, and a memo within its limits', async () => {
    const { id } = await order('USDC-STELLAR');
    const deposit = (await call<Envelope<Deposit>>(app, 'GET', `/api/checkouts/${id}/deposit`)).json.data;
    await pay(id, new Decimal(deposit.amount).plus('2.5').toFixed());
    assert.deepEqual([(await offer(id)).chain, (await offer(id)).amount], ['STELLAR', '2.5']);
    const typo = STELLAR.slice(0, 10) + (STELLAR[10] === 'A' ? 'B' : 'A') + STELLAR.slice(11);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ address: EVM }, 'address: must be a Stellar account id: G followed by 55 letters A-Z and digits 2-7'],
      [{ address: typo }, 'address: has a wrong checksum: check it for a typo'],
      [{ address: STELLAR, memo: 'x'.repeat(29) }, 'memo: must be at most 28 bytes of text, or a number'],
    ];
    for (const [body, message] of cases) {
      const res = await call(app, 'POST', `/api/checkouts/${id}/refund-claim`, body);
      assert.deepEqual([res.status, res.json?.message], [400, message], JSON.stringify(body));
    }
    const before = requests.length;
    assert.equal(
      (await call(app, 'POST', `/api/checkouts/${id}/refund-claim`, { address: STELLAR, memo: '1234567890' })).status,
      201,
    );
    assert.deepEqual(requests[before].recipient, {
      type: 'crypto',
      asset: 'USDC-STELLAR',
      network: 'STELLAR',
      address: STELLAR,
      memo: '1234567890',
    });
  });

  it('a hook that throws: 503 and nothing remembered, so the shopper can send the details again', async () => {
    let fail = true;
    const flaky = merchantApp(
      up,
      {
        ...hooks,
        onRefundRequested: (r: RefundRequest) => {
          if (fail) throw new Error('database down');
          requests.push(r);
        },
      },
      { dataDir: mkdtempSync(join(tmpdir(), 'kasir-refund-flaky-')) },
    );
    try {
      orders.set('order-flaky', { amount: '150000', currency: 'IDR' });
      const id = (await call<Envelope<Checkout>>(flaky, 'POST', '/api/checkouts', { orderId: 'order-flaky' })).json.data
        .id;
      await call(flaky, 'POST', `/api/checkouts/${id}/deposit`, { method: 'BRI_TRANSFER' });
      await call(flaky, 'POST', `/api/sandbox/checkouts/${id}/pay`, { amount: '100' });
      await call(flaky, 'POST', `/api/checkouts/${id}/cancel`);
      const refused = await call(flaky, 'POST', `/api/checkouts/${id}/refund-claim`, BANK_CLAIM);
      assert.deepEqual(
        [refused.status, refused.json?.message],
        [503, 'The shop could not take the refund details just now; please try again in a moment'],
      );
      fail = false;
      assert.equal((await call(flaky, 'POST', `/api/checkouts/${id}/refund-claim`, BANK_CLAIM)).status, 201);
    } finally {
      await flaky.api.close();
    }
  });

  it(
    'copies of the backend on one Redis: claims sent to three copies at once make one recipient and run the hook once',
    {
      skip:
        !process.env.KASIR_TEST_REDIS_URL && 'KASIR_TEST_REDIS_URL is not set (run through test/support/with-redis.sh)',
    },
    async () => {
      const redisPrefix = `kasir-test-${Date.now()}-${Math.random().toString(36).slice(2)}:`;
      const copies = [1, 2, 3].map(() =>
        merchantApp(up, { ...hooks, redisUrl: process.env.KASIR_TEST_REDIS_URL, redisPrefix }),
      );
      try {
        orders.set('order-copies', { amount: '150000', currency: 'IDR' });
        const created = await call<Envelope<Checkout>>(copies[0], 'POST', '/api/checkouts', {
          orderId: 'order-copies',
        });
        assert.equal(created.status, 201, JSON.stringify(created.json));
        const id = created.json.data.id;
        assert.equal(
          (await call(copies[1], 'POST', `/api/checkouts/${id}/deposit`, { method: 'BRI_TRANSFER' })).status,
          201,
        );
        await call(copies[2], 'POST', `/api/sandbox/checkouts/${id}/pay`, { amount: '3000' });
        await call(copies[0], 'POST', `/api/checkouts/${id}/cancel`);
        const before = requests.length;
        const answers = await Promise.all(
          copies.map((copy) => call(copy, 'POST', `/api/checkouts/${id}/refund-claim`, BANK_CLAIM)),
        );
        assert.deepEqual(answers.map((a) => a.status).sort(), [201, 409, 409]);
        assert.equal(requests.length, before + 1);
        const seen = await call<Envelope<Offer>>(copies[1], 'GET', `/api/checkouts/${id}/refund-claim`);
        assert.equal(seen.json.data.claimed, true);
      } finally {
        await Promise.all(copies.map((copy) => copy.api.close()));
      }
    },
  );

  it('each address may ask at most 100 times in ten minutes (each read asks the payment service): then 429', async () => {
    const limited = merchantApp(up, hooks);
    try {
      orders.set('order-limit', { amount: '150000', currency: 'IDR' });
      const id = (await call<Envelope<Checkout>>(limited, 'POST', '/api/checkouts', { orderId: 'order-limit' })).json
        .data.id;
      const statuses: number[] = [];
      for (let i = 0; i < 101; i++)
        statuses.push((await call(limited, 'GET', `/api/checkouts/${id}/refund-claim`)).status);
      assert.deepEqual([statuses.slice(0, 100).every((s) => s === 404), statuses[100]], [true, 429]);
      const refused = await call(limited, 'POST', `/api/checkouts/${id}/refund-claim`, BANK_CLAIM);
      assert.deepEqual(
        [refused.status, refused.json?.message],
        [429, 'Too many refund requests from this address; try again in a few minutes'],
      );
    } finally {
      await limited.api.close();
    }
  });

  it('without onRefundRequested no claims are taken: GET says so, POST 404; and an id that is no checkout is 404', async () => {
    const plain = merchantApp(up, {});
    try {
      const id = (
        await call<Envelope<Checkout>>(plain, 'POST', '/api/checkouts', { amount: '150000', currency: 'IDR' })
      ).json.data.id;
      const got = await call<Envelope<RefundClaim>>(plain, 'GET', `/api/checkouts/${id}/refund-claim`);
      assert.deepEqual([got.status, got.json.data], [200, { accepted: false }]);
      assert.equal((await call(plain, 'POST', `/api/checkouts/${id}/refund-claim`, BANK_CLAIM)).status, 404);
    } finally {
      await plain.api.close();
    }
    assert.equal((await call(app, 'GET', '/api/checkouts/not-a-checkout/refund-claim')).status, 404);
    assert.equal((await call(app, 'POST', '/api/checkouts/not-a-checkout/refund-claim', BANK_CLAIM)).status, 404);
    const text = await call(app, 'POST', `/api/checkouts/x/refund-claim`, 'a', { 'content-type': 'text/plain' });
    assert.equal(text.status, 415);
  });
});
