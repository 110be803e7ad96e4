// Racing method switches: two copies of the payment service on one PostgreSQL database and
// two copies of the merchant backend on one Redis. Each round, ~20 choices of one checkout's method land at once, half
// through the hosted session API (balanced over both service copies) and half through both merchants' /api. Then,
// within 1 s, both merchant copies show what the database holds (method, payment details, version); the history has
// one entry per real switch ("changed from X to X" never), its times and the version follow commit order; and each
// answer said what it did: one `created`, and as many `switched` as the history has switches.
// Run by `npm run test:multi` (KASIR_TEST_DATABASE_URL and KASIR_TEST_REDIS_URL); build first (`npm run build`).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import type { Deposit } from '@kasir/checkout';
import { startCopies, type Copies, type Proc } from '../support/multi';

const ROUNDS = 50;
const CHOICES = 20;
const METHODS = ['BCA_VA', 'BNI_VA', 'QRIS', 'DANA', 'BCA_TRANSFER', 'ETH-ETHEREUM', 'USDC-POLYGON'];
/** What the merchant's widget API says for each choice (it has no field of its own: the service's choice, passed on). */
const MERCHANT_MESSAGES: Record<string, string> = {
  'Payment method chosen': 'created',
  'Payment method already chosen': 'unchanged',
  'Payment method changed': 'switched',
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Truth {
  method: string;
  version: number | undefined;
  account: string | undefined;
}

describe('racing method switches through both service copies and both merchant copies', { timeout: 600_000 }, () => {
  let database: Copies['database'];
  let merchants: Proc[];
  let serviceBalancer: Copies['serviceBalancer'];
  let stop: Copies['stop'] | undefined;
  let sql: pg.Client;

  before(async () => {
    ({ database, serviceBalancer, merchants, stop } = await startCopies({
      prefix: 'kasir-race',
      merchantEnv: { KASIR_TRANSFER_RATE_LIMIT: '10000', KASIR_STATUS_REFRESH_MS: '250' },
    }));
    sql = new pg.Client({ connectionString: database.url });
    await sql.connect();
  });

  after(async () => {
    await sql?.end();
    await stop?.();
  });

  const post = async (url: string, body: unknown) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return {
      status: res.status,
      json: (await res.json()) as { message: string; choice?: string; checkoutId?: string },
    };
  };

  /** What the database holds for the checkout's deposit: its method, version and the account or wallet to pay. */
  async function truth(checkoutId: string): Promise<Truth> {
    const {
      rows: [row],
    } = await sql.query<{
      method_code: string | null;
      input_currency: string;
      version?: number;
      payment_fiat: string;
      payment_crypto: string;
    }>('select * from deposits where deposit_id = $1', [checkoutId]);
    assert.ok(row, `no deposit for ${checkoutId}`);
    const fiat = JSON.parse(row.payment_fiat) as { accountNumber?: string; qrData?: string; checkoutUrl?: string };
    const crypto = JSON.parse(row.payment_crypto) as { payoutWallet?: string };
    return {
      method: row.method_code ?? row.input_currency,
      version: row.version,
      account: fiat.accountNumber ?? crypto.payoutWallet ?? fiat.checkoutUrl ?? fiat.qrData,
    };
  }

  /** What a merchant copy shows a shopper polling the checkout's deposit. */
  async function shown(merchant: Proc, checkoutId: string): Promise<Truth> {
    const res = await fetch(`${merchant.url}/api/checkouts/${checkoutId}/deposit`);
    const { data } = (await res.json()) as { data: Deposit };
    return {
      method: data.method.code,
      version: data.version,
      account: data.accountNumber ?? data.address ?? data.checkoutUrl ?? data.qrData,
    };
  }

  it(`keeps every round consistent within 1 s (${ROUNDS} rounds of ${CHOICES} concurrent choices)`, async () => {
    const slowest: number[] = [];
    const failures: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const order = await post(`${merchants[round % 2]!.url}/shop/orders`, { items: [{ sku: 'teh', quantity: 1 }] });
      assert.equal(order.status, 201, order.json.message);
      const checkoutId = order.json.checkoutId!;
      const answers = await Promise.all(
        Array.from({ length: CHOICES }, async (_, i) => {
          const method = METHODS[Math.floor(Math.random() * METHODS.length)]!;
          if (i % 2 === 0) {
            const res = await post(`${serviceBalancer.url}/checkout/${checkoutId}/deposit`, { paymentMethod: method });
            assert.ok(res.status === 200 || res.status === 201, `session API ${res.status}: ${res.json.message}`);
            return res.json.choice;
          }
          const res = await post(`${merchants[(i >> 1) % 2]!.url}/api/checkouts/${checkoutId}/deposit`, { method });
          assert.ok(res.status === 200 || res.status === 201, `merchant /api ${res.status}: ${res.json.message}`);
          return MERCHANT_MESSAGES[res.json.message];
        }),
      );
      const answered = Date.now();
      let expected = await truth(checkoutId);
      let seen: Truth[] = [];
      for (;;) {
        seen = await Promise.all(merchants.map((m) => shown(m, checkoutId)));
        if (
          seen.every(
            (s) => s.method === expected.method && s.account === expected.account && s.version === expected.version,
          )
        )
          break;
        if (Date.now() - answered > 1000) break;
        await sleep(20);
        expected = await truth(checkoutId);
      }
      const elapsed = Date.now() - answered;
      slowest.push(elapsed);
      if (elapsed > 1000)
        failures.push(
          `round ${round}: the service holds ${JSON.stringify(expected)}, the merchant copies show ${JSON.stringify(seen)}`,
        );

      const { rows: history } = await sql.query<{
        seq: number;
        activity: string;
        description: string;
        updated_at: string;
      }>(
        'select a.seq, a.activity, a.description, a.updated_at from deposit_activities a join deposits d on d.id = a.deposit_row_id where d.deposit_id = $1 order by a.seq',
        [checkoutId],
      );
      const switches = history.filter((h) => h.activity === 'Payment Method Changed');
      for (const s of switches)
        assert.doesNotMatch(s.description, /from (\S+) to \1;/, `round ${round}: a switch to the method it had`);
      for (let i = 1; i < history.length; i++)
        assert.ok(history[i]!.updated_at >= history[i - 1]!.updated_at, `round ${round}: history times run backwards`);
      assert.equal(expected.version, history.length, `round ${round}: the version counts the committed changes`);
      assert.equal(answers.filter((a) => a === 'created').length, 1, `round ${round}: answers ${answers.join(' ')}`);
      assert.equal(
        answers.filter((a) => a === 'switched').length,
        switches.length,
        `round ${round}: answers ${answers.join(' ')}, ${switches.length} switches`,
      );
    }
    slowest.sort((a, b) => a - b);
    console.log(
      `switch race: ${ROUNDS} rounds, consistent after median ${slowest[Math.floor(ROUNDS / 2)]} ms, slowest ${slowest.at(-1)} ms`,
    );
    assert.deepEqual(failures, []);
  });
});
