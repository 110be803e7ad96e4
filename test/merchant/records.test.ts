// The shop's records: kasir.listDeposits() and `kasir-merchant deposits`, the service's deposits newest first with the
// shop's orderId where the backend knows it; `--csv` is RFC 4180 with a header row, one row per deposit.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { createKasirApi, type KasirApi } from '../../server/merchant/api';
import { PaymentServiceClient } from '../../server/merchant/client/client';
import { call, runKasirMerchant, startUpstream, type Upstream } from './support';

const runDeposits = (env: Record<string, string>, args: string[]) => runKasirMerchant(['deposits', ...args], env);

describe("the shop's records", () => {
  let up: Upstream;
  let kasir: KasirApi;
  let dataDir: string;
  let env: Record<string, string>;
  /** depositId -> orderId (null: a deposit not made through one of this backend's checkouts). */
  const made = new Map<string, string | null>();
  let directDeposit: string;

  before(async () => {
    up = await startUpstream();
    dataDir = mkdtempSync(join(tmpdir(), 'kasir-records-'));
    kasir = createKasirApi(up.config({ dataDir }));
    for (const [orderId, amount, method] of [
      ['order-1', '150000', 'QRIS'],
      ['order-2', '20000', 'BCA_VA'],
    ]) {
      const checkout = await kasir.createCheckout({ amount, currency: 'IDR', orderId });
      const chosen = await call(kasir, 'POST', `/checkouts/${checkout.id}/deposit`, { method });
      assert.ok(chosen.status < 300, JSON.stringify(chosen.json));
      made.set(checkout.id, orderId);
    }
    // A deposit the shop made another way: no order known, and a reference a CSV must quote.
    const c = up.provider.credentials;
    const client = new PaymentServiceClient({
      baseUrl: c.baseUrl,
      clientId: c.clientId,
      clientSecret: c.clientSecret,
      accessToken: c.accessToken,
    });
    const direct = await client.createFiatDeposit({
      inputCurrency: 'IDR',
      inputAmount: 75000,
      outputCurrency: 'IDR',
      balanceType: 'fiat',
      paymentMethod: 'QRIS',
      reference: 'inv 7, "rush"',
    });
    directDeposit = direct.depositId;
    made.set(direct.depositId, null);
    await up.provider.pay(direct.depositId);
    env = {
      KASIR_BASE_URL: c.baseUrl,
      KASIR_CLIENT_ID: c.clientId,
      KASIR_CLIENT_SECRET: c.clientSecret,
      KASIR_ACCESS_TOKEN: c.accessToken,
      KASIR_WEBHOOK_SECRET: c.webhookSecret,
      KASIR_DATA_DIR: dataDir,
    };
  });
  after(async () => {
    await kasir.close();
    await up.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('kasir.listDeposits(): newest first, each with its orderId where the backend knows it, amounts exact', async () => {
    const records = await kasir.listDeposits();
    assert.equal(records.length, 3);
    assert.deepEqual(
      records.map((r) => [r.depositId, r.orderId]),
      [...made].reverse(),
    );
    const direct = records[0];
    assert.deepEqual(
      [direct.status, direct.amount, direct.paidAmount, direct.currency, direct.method],
      ['completed', '75000', '75000', 'IDR', 'QRIS'],
    );
    assert.equal(records[2].amount, '150000');
    // The filters: status, limit (pages followed up to it), since.
    assert.deepEqual(
      (await kasir.listDeposits({ status: 'completed' })).map((r) => r.depositId),
      [directDeposit],
    );
    assert.equal((await kasir.listDeposits({ limit: 2 })).length, 2);
    assert.deepEqual(await kasir.listDeposits({ since: new Date(Date.now() + 60_000).toISOString() }), []);
    assert.equal((await kasir.listDeposits({ since: '2000-01-01' })).length, 3);
    await assert.rejects(kasir.listDeposits({ since: 'yesterday' }), /since: an ISO 8601 date/);
    await assert.rejects(kasir.listDeposits({ status: 'paid' as never }), /status: one of pending, expired, completed/);
  });

  it('kasir-merchant deposits --csv: a header row naming the columns, one row per deposit, parsed as RFC 4180', async () => {
    const out = await runDeposits(env, ['--csv']);
    assert.equal(out.code, 0, out.stderr);
    assert.ok(out.stdout.endsWith('\r\n'), 'CRLF line ends');
    const rows = parse(out.stdout, { columns: true }) as Array<Record<string, string>>;
    assert.equal(rows.length, 3);
    assert.ok(rows.every((row) => 'depositId' in row && 'orderId' in row));
    assert.deepEqual(
      rows.map((row) => [row.depositId, row.orderId || null]),
      [...made].reverse(),
    );
    assert.equal(rows[0].reference, 'inv 7, "rush"');
    assert.equal(rows[0].amount, '75000');

    const pending = parse((await runDeposits(env, ['--csv', '--status', 'pending', '--limit', '1'])).stdout, {
      columns: true,
    }) as Array<Record<string, string>>;
    assert.deepEqual(
      pending.map((row) => row.orderId),
      ['order-2'],
    );
  });

  it('kasir-merchant deposits: a table by default, one line naming what is wrong otherwise', async () => {
    const table = await runDeposits(env, []);
    assert.equal(table.code, 0, table.stderr);
    const lines = table.stdout.trim().split('\n');
    assert.match(lines[0], /^createdAt\s+depositId\s+orderId\s+status\s+amount/);
    assert.equal(lines.length, 4);
    assert.match(lines.find((line) => line.includes('order-1')) ?? '', /pending\s+150000\s+IDR/);

    const bad = await runDeposits(env, ['--since', 'last week']);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /since: an ISO 8601 date/);
    const refused = await runDeposits({ ...env, KASIR_CLIENT_SECRET: 'wrong' }, []);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /KASIR_CLIENT_SECRET/);
  });
});

describe("the records follow the service's pages", () => {
  it('takes pages of one size up to the limit, newest first, each deposit once, and stops at since', async () => {
    // A stand-in service with 250 deposits, one a minute, newest first on sort=-createdAt, paged as the interface says.
    const base = Date.parse('2026-11-01T00:00:00Z');
    const all = Array.from({ length: 250 }, (_, i) => ({
      depositId: `dep-${String(i).padStart(3, '0')}`,
      status: 'completed',
      createdAt: new Date(base + i * 60_000).toISOString(),
      updatedAt: new Date(base + i * 60_000).toISOString(),
      depositType: 'fiat',
      paymentFiat: { bankCode: 'QRIS' },
      paymentCrypto: {},
      inputCurrency: 'IDR',
      inputAmount: 1000 + i,
      paidAmount: 1000 + i,
      remainingAmount: 0,
      overpaidAmount: 0,
      reference: '',
    })).reverse();
    const asked: string[] = [];
    const serviceFetch: typeof fetch = async (input) => {
      const url = new URL(String(input));
      asked.push(url.search);
      const limit = Number(url.searchParams.get('limit'));
      const page = Number(url.searchParams.get('page'));
      const docs = all.slice((page - 1) * limit, page * limit);
      return Response.json({
        statusCode: 200,
        message: 'OK',
        data: { docs, totalDocs: all.length, limit, page, hasNextPage: page * limit < all.length },
      });
    };
    const kasir = createKasirApi({
      baseUrl: 'https://service.example',
      clientId: 'a',
      clientSecret: 'b',
      accessToken: 'c',
      webhookSecret: 'whsec_eA==',
      dataDir: false,
      fetch: serviceFetch,
    });
    try {
      const records = await kasir.listDeposits({ limit: 150 });
      assert.equal(records.length, 150);
      assert.equal(new Set(records.map((r) => r.depositId)).size, 150);
      assert.deepEqual([records[0].depositId, records[149].depositId], ['dep-249', 'dep-100']);
      assert.deepEqual(asked, ['?limit=100&page=1&sort=-createdAt', '?limit=100&page=2&sort=-createdAt']);
      assert.equal(records[0].amount, '1249');

      asked.length = 0;
      const recent = await kasir.listDeposits({ since: new Date(base + 245 * 60_000).toISOString(), limit: 1000 });
      assert.deepEqual(
        recent.map((r) => r.depositId),
        ['dep-249', 'dep-248', 'dep-247', 'dep-246', 'dep-245'],
      );
      assert.equal(asked.length, 1, 'no page after the one that reached since');
    } finally {
      await kasir.close();
    }
  });
});
