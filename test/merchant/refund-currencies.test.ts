// Money back as it arrived (docs/refunds.md, docs/money.md), through createKasirApi against a real sandbox (SQLite, or
// PostgreSQL under test:server:pg): what is owed is listed per currency as the money arrived, whatever method the
// deposit has now; each currency is asked where it can go and claimed once; money arriving after a claim is owed and
// claimed on its own, its own hook run with its own amount; shopper-typed text holds no hidden characters.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Decimal } from 'decimal.js';
import type { Checkout, Deposit, RefundClaim } from '@kasir/checkout';
import type { ExpiredDeposit, RefundRequest } from '../../server/merchant/hooks';
import { call, merchantApp, startUpstream, type Envelope, type Upstream } from './support';

type Offer = Extract<RefundClaim, { accepted: true }>;

const BANK_CLAIM = {
  bankCode: 'BCA',
  accountNumber: '0123456789',
  accountName: 'Siti Rahma',
  email: 'siti@example.com',
  address: 'Jl. Merdeka 1',
  city: 'Bandung',
  postCode: '40111',
};
const EVM = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

describe('refunds in the currency the money arrived in', () => {
  let up: Upstream;
  let dataDir: string;
  const requests: RefundRequest[] = [];
  const expired: ExpiredDeposit[] = [];
  let app: ReturnType<typeof merchantApp>;

  before(async () => {
    up = await startUpstream();
    dataDir = mkdtempSync(join(tmpdir(), 'kasir-refund-currencies-'));
    app = merchantApp(
      up,
      {
        onRefundRequested: (request: RefundRequest) => void requests.push(request),
        onDepositExpired: (event: ExpiredDeposit) => void expired.push(event),
      },
      { dataDir },
    );
  });
  after(async () => {
    await app.api.close();
    await up.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const checkout = async (method: string) => {
    const created = await call<Envelope<Checkout>>(app, 'POST', '/api/checkouts', {
      amount: '150000',
      currency: 'IDR',
    });
    assert.equal(created.status, 201, JSON.stringify(created.json));
    const id = created.json.data.id;
    await choose(id, method);
    return id;
  };
  const choose = async (id: string, method: string) => {
    const chosen = await call<Envelope<Deposit>>(app, 'POST', `/api/checkouts/${id}/deposit`, { method });
    assert.ok([200, 201].includes(chosen.status), JSON.stringify(chosen.json));
    return chosen.json.data;
  };
  /** A payment as it arrives at the service: to the method named (an earlier one too), of that method's currency. */
  const arrive = async (id: string, amount: string, method: string) => {
    const { baseUrl, accessToken } = up.config();
    const res = await fetch(`${baseUrl}/v1/deposit/${id}/payments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${accessToken}` },
      body: JSON.stringify({ amount: Number(amount), method }),
    });
    assert.equal(res.status, 200, await res.clone().text());
    return ((await res.json()) as { data: { status: string } }).data;
  };
  const cancel = async (id: string) =>
    assert.equal(
      (await call<Envelope<Deposit>>(app, 'POST', `/api/checkouts/${id}/cancel`)).json.data.status,
      'expired',
    );
  const offer = async (id: string) => {
    const got = await call<Envelope<Offer>>(app, 'GET', `/api/checkouts/${id}/refund-claim`);
    assert.equal(got.status, 200, JSON.stringify(got.json));
    return got.json.data;
  };
  const claim = (id: string, body: Record<string, unknown>) =>
    call<Envelope<Offer>>(app, 'POST', `/api/checkouts/${id}/refund-claim`, body);
  /** What the hooks were told per currency for a deposit. */
  const told = (id: string) => {
    const sums = new Map<string, Decimal>();
    for (const r of requests.filter((r) => r.depositId === id))
      sums.set(r.currency, (sums.get(r.currency) ?? new Decimal(0)).plus(r.amount));
    return Object.fromEntries([...sums].map(([c, a]) => [c, a.toFixed()]));
  };

  it('rupiah arrived by transfer, then a switch to USDC and a cancel: 100,000 IDR owed to a bank account, the hook told IDR', async () => {
    const id = await checkout('BCA_TRANSFER');
    await arrive(id, '100000', 'BCA_TRANSFER');
    await choose(id, 'USDC-POLYGON');
    await cancel(id);
    const owed = await offer(id);
    assert.deepEqual(owed.owed, [{ amount: '100000', currency: 'IDR', kind: 'bank', claimed: '0' }]);
    assert.deepEqual([owed.amount, owed.currency, owed.kind, owed.reason], ['100000', 'IDR', 'bank', 'expired']);
    assert.ok(
      owed.banks?.some((b) => b.code === 'BCA'),
      'the banks of IDR are offered',
    );
    assert.equal(owed.network, undefined, 'no wallet address is asked');

    const res = await claim(id, BANK_CLAIM);
    assert.equal(res.status, 201, JSON.stringify(res.json));
    const request = requests.find((r) => r.depositId === id)!;
    assert.deepEqual([request.amount, request.currency, request.recipient.type], ['100000', 'IDR', 'bank']);
    assert.deepEqual(res.json.data.owed, [{ amount: '100000', currency: 'IDR', kind: 'bank', claimed: '100000' }]);
    assert.equal(res.json.data.claimed, true);
  });

  it('USDC arrived on Polygon, then a switch to a bank: the USDC is owed to an address on Polygon, whatever the method now', async () => {
    const id = await checkout('USDC-POLYGON');
    await arrive(id, '3', 'USDC-POLYGON');
    await choose(id, 'BCA_VA');
    await cancel(id);
    const owed = await offer(id);
    assert.deepEqual(owed.owed, [{ amount: '3', currency: 'USDC-POLYGON', kind: 'crypto', claimed: '0' }]);
    assert.deepEqual(
      [owed.kind, owed.currency, owed.network, owed.chain],
      ['crypto', 'USDC-POLYGON', 'POLYGON', 'EVM'],
    );
    assert.equal(owed.banks, undefined, 'no bank account is asked');
    const refused = await claim(id, BANK_CLAIM);
    assert.deepEqual(
      [refused.status, refused.json.message],
      [400, 'address: must be 0x followed by 40 hexadecimal characters'],
    );
    const res = await claim(id, { address: EVM });
    assert.equal(res.status, 201, JSON.stringify(res.json));
    const request = requests.find((r) => r.depositId === id)!;
    assert.deepEqual([request.amount, request.currency], ['3', 'USDC-POLYGON']);
    assert.deepEqual(request.recipient, { type: 'crypto', asset: 'USDC-POLYGON', network: 'POLYGON', address: EVM });
  });

  it('money after a claim: 100,000 more arrives late after a claim of 50,000; it is owed, claimable, and its hook told 100,000', async () => {
    const id = await checkout('BCA_TRANSFER');
    await arrive(id, '50000', 'BCA_TRANSFER');
    await cancel(id);
    assert.equal((await claim(id, BANK_CLAIM)).status, 201);
    assert.deepEqual(told(id), { IDR: '50000' });
    await arrive(id, '100000', 'BCA_TRANSFER');
    const owed = await offer(id);
    // What the shopper reads as claimed is what the hook was told, and the rest is offered.
    assert.deepEqual(owed.owed, [{ amount: '150000', currency: 'IDR', kind: 'bank', claimed: '50000' }]);
    assert.deepEqual([owed.amount, owed.claimed, owed.reason], ['100000', false, 'paid_late']);
    const second = await claim(id, BANK_CLAIM);
    assert.equal(second.status, 201, JSON.stringify(second.json));
    assert.deepEqual(told(id), { IDR: '150000' });
    const hooks = requests.filter((r) => r.depositId === id);
    assert.deepEqual(
      hooks.map((r) => [r.amount, r.reason]),
      [
        ['50000', 'expired'],
        ['100000', 'paid_late'],
      ],
    );
    assert.notEqual(hooks[0]!.eventId, hooks[1]!.eventId, 'each claim is its own event');
    assert.deepEqual(second.json.data.owed, [{ amount: '150000', currency: 'IDR', kind: 'bank', claimed: '150000' }]);
    assert.deepEqual((await claim(id, BANK_CLAIM)).status, 409);
    assert.equal(requests.filter((r) => r.depositId === id).length, 2);
  });

  it('two currencies owed: a claim names its currency, each is asked where it can go and claimed once', async () => {
    const id = await checkout('BCA_TRANSFER');
    await arrive(id, '100000', 'BCA_TRANSFER');
    await choose(id, 'USDC-POLYGON');
    await arrive(id, '1', 'USDC-POLYGON');
    await cancel(id);
    const owed = await offer(id);
    assert.deepEqual(owed.owed, [
      { amount: '100000', currency: 'IDR', kind: 'bank', claimed: '0' },
      { amount: '1', currency: 'USDC-POLYGON', kind: 'crypto', claimed: '0' },
    ]);
    const unnamed = await claim(id, BANK_CLAIM);
    assert.deepEqual(
      [unnamed.status, unnamed.json.message],
      [400, 'currency: name the currency to refund (IDR or USDC-POLYGON)'],
    );
    const unknown = await claim(id, { ...BANK_CLAIM, currency: 'USD' });
    assert.deepEqual(
      [unknown.status, unknown.json.message],
      [400, 'currency: nothing is owed back in USD (owed: IDR, USDC-POLYGON)'],
    );
    assert.equal((await claim(id, { ...BANK_CLAIM, currency: 'IDR' })).status, 201);
    const next = await offer(id);
    assert.deepEqual([next.currency, next.kind, next.amount, next.claimed], ['USDC-POLYGON', 'crypto', '1', false]);
    assert.equal((await claim(id, { ...BANK_CLAIM, currency: 'IDR' })).status, 409);
    assert.equal((await claim(id, { currency: 'USDC-POLYGON', address: EVM })).status, 201);
    assert.deepEqual(told(id), { IDR: '100000', 'USDC-POLYGON': '1' });
    assert.equal((await offer(id)).claimed, true);
  });

  it('overpaid after a switch: what arrived beyond the order is owed in the currency that brought it', async () => {
    const id = await checkout('BCA_TRANSFER');
    await arrive(id, '100000', 'BCA_TRANSFER');
    const usdc = await choose(id, 'USDC-POLYGON');
    const done = await arrive(id, new Decimal(usdc.remainingAmount!).plus(2).toFixed(), 'USDC-POLYGON');
    assert.equal(done.status, 'completed');
    const owed = await offer(id);
    assert.deepEqual(owed.owed, [{ amount: '2', currency: 'USDC-POLYGON', kind: 'crypto', claimed: '0' }]);
    assert.equal(owed.reason, 'overpaid');
  });

  it('shopper-typed fields: control characters and text-direction marks refused naming the field, every field bounded', async () => {
    const id = await checkout('BRI_TRANSFER');
    await arrive(id, '5000', 'BRI_TRANSFER');
    await cancel(id);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...BANK_CLAIM, accountName: 'Siti\u202eRahma' }, 'accountName'],
      [{ ...BANK_CLAIM, accountName: 'Siti\u2066Rahma' }, 'accountName'],
      [{ ...BANK_CLAIM, address: 'Jl. Merdeka\u0001 1' }, 'address'],
      [{ ...BANK_CLAIM, city: 'Bandung\u0085' }, 'city'],
      [{ ...BANK_CLAIM, email: 'siti@example.com\u001b' }, 'email'],
      [{ ...BANK_CLAIM, accountNumber: '0123\u202a456789' }, 'accountNumber'],
      [{ ...BANK_CLAIM, currency: 'IDR\u0007' }, 'currency'],
    ];
    for (const [body, field] of cases) {
      const res = await claim(id, body);
      assert.deepEqual(
        [res.status, res.json.message],
        [400, `${field}: must not contain control characters or text-direction marks`],
        JSON.stringify(body),
      );
    }
    const long = await claim(id, { ...BANK_CLAIM, accountNumber: '1'.repeat(65) });
    assert.deepEqual([long.status, long.json.message], [400, 'accountNumber: must be at most 64 characters']);
    const longCurrency = await claim(id, { ...BANK_CLAIM, currency: 'X'.repeat(33) });
    assert.deepEqual(
      [longCurrency.status, longCurrency.json.message],
      [400, 'currency: must be at most 32 characters'],
    );
    assert.equal(requests.filter((r) => r.depositId === id).length, 0);
  });
});
