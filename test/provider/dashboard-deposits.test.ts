// The dashboard lists deposits with their webhook attempts and, in sandbox mode, pays or expires one (docs/design.md,
// "Seeing and testing an integration"): its API (bearer), refused outside sandbox mode, and the page in Chromium.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { bodyOf, errorOf, type Envelope } from '../support/envelope';
import { createTestProvider, startTestSandbox, type TestProvider, type TestSandbox } from '../support/provider';
import { createFiat } from './deposit-helpers';

type Row = {
  depositId: string;
  status: string;
  method: string;
  amount: number;
  currency: string;
  attempts: Array<{ event: string; status: number | null; error: string | null }>;
};
type Listing = { sandbox: boolean; deposits: Row[] };

describe('dashboard deposits API', () => {
  let p: TestProvider;
  before(async () => {
    p = await createTestProvider();
  });
  after(() => p.close());
  const api = (method: string, path: string) => p.bearer(method, `/dashboard/api${path}`);
  const list = async () => (await bodyOf<Envelope<Listing>>(await api('GET', '/deposits?limit=5'))).data;

  it('lists deposits newest first; pays and expires a pending one; a deposit no longer pending is a 400', async () => {
    const a = await createFiat(p);
    const b = await createFiat(p);
    const before = await list();
    assert.equal(before.sandbox, true);
    assert.deepEqual(
      before.deposits.slice(0, 2).map((d) => [d.depositId, d.status, d.amount, d.currency]),
      [
        [b.depositId, 'pending', 150000, 'IDR'],
        [a.depositId, 'pending', 150000, 'IDR'],
      ],
    );
    assert.equal((await api('POST', `/deposits/${a.depositId}/pay`)).status, 200);
    assert.equal((await api('POST', `/deposits/${b.depositId}/expire`)).status, 200);
    const after = await list();
    assert.deepEqual(
      after.deposits.slice(0, 2).map((d) => d.status),
      ['expired', 'completed'],
    );
    const again = await api('POST', `/deposits/${a.depositId}/pay`);
    assert.equal(again.status, 400);
    assert.match((await errorOf(again)).message, /Deposit is completed/);
    assert.equal((await api('POST', '/deposits/nope/expire')).status, 404);
    assert.equal((await p.app.request('http://localhost/dashboard/api/deposits')).status, 401);
  });

  it("carries each deposit's webhook attempts", async () => {
    const d = await createFiat(p);
    const merchant = await p.deps.db
      .selectFrom('merchants')
      .select('id')
      .where('client_id', '=', p.creds.clientId)
      .executeTakeFirstOrThrow();
    const delivery = await p.deps.db
      .insertInto('webhook_deliveries')
      .values({
        id: 'msg_test_attempt',
        merchant_id: merchant.id,
        event_type: 'deposit.completed',
        deposit_id: d.depositId,
        payload: '{}',
        status: 'failed',
        attempt_count: 1,
        next_attempt_at: 0,
        created_at: new Date().toISOString(),
        succeeded_at: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await p.deps.db
      .insertInto('webhook_attempts')
      .values({
        delivery_id: delivery.id,
        attempted_at: new Date().toISOString(),
        response_status: 401,
        error: 'Receiver answered HTTP 401',
        duration_ms: 7,
      })
      .execute();
    const row = (await list()).deposits.find((x) => x.depositId === d.depositId)!;
    assert.deepEqual(
      row.attempts.map((x) => [x.event, x.status]),
      [['deposit.completed', 401]],
    );
  });
});

describe('dashboard deposits outside sandbox mode', () => {
  let p: TestProvider;
  before(async () => {
    p = await createTestProvider({ sandbox: false });
  });
  after(() => p.close());

  it('lists but does not pay or expire (403)', async () => {
    const d = await createFiat(p);
    const listing = (await bodyOf<Envelope<Listing>>(await p.bearer('GET', '/dashboard/api/deposits'))).data;
    assert.equal(listing.sandbox, false);
    const res = await p.bearer('POST', `/dashboard/api/deposits/${d.depositId}/pay`);
    assert.equal(res.status, 403);
    assert.match((await errorOf(res)).message, /sandbox mode only/);
  });
});

describe('dashboard deposits in Chromium', () => {
  let running: TestSandbox;
  let browser: Browser;
  let page: Page;
  let hits = 0;
  const receiver = createServer((req, res) => {
    hits++;
    req.resume();
    res.writeHead(204).end();
  });
  before(async () => {
    running = await startTestSandbox('kasir-dash-deposits-');
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const { chromium } = await import('playwright-core');
    const { chromiumArgs, chromiumPath } = await import('../support/chromium');
    browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs });
    page = await browser.newPage();
  });
  after(async () => {
    await browser.close();
    receiver.closeAllConnections();
    receiver.close();
    await running.stop();
  });

  it('pays a pending deposit with its Pay button and shows the webhook attempt', async () => {
    const { sandbox } = running;
    const { credentials: creds, url } = sandbox;
    const A = { Authorization: `Bearer ${creds.accessToken}`, 'Content-Type': 'application/json' };
    const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    assert.equal(
      (
        await fetch(`${url}/dashboard/api/webhook-url`, {
          method: 'PUT',
          headers: A,
          body: JSON.stringify({ webhookUrl: hook }),
        })
      ).status,
      200,
    );
    const created = await fetch(`${url}/v1/deposit/fiat`, {
      method: 'POST',
      headers: A,
      body: JSON.stringify({
        inputCurrency: 'IDR',
        inputAmount: 150000,
        outputCurrency: 'IDR',
        balanceType: 'fiat',
        paymentMethod: 'BCA_VA',
      }),
    });
    const { depositId } = (await bodyOf<Envelope<{ depositId: string }>>(created)).data;

    // Signed in as the dashboard keeps its session: the token in sessionStorage.
    await page.goto(`${url}/dashboard`);
    await page.evaluate((token) => sessionStorage.setItem('kasir.dashboard.token', token), creds.accessToken);
    await page.goto(`${url}/dashboard`);
    const row = `#deposits tr[data-deposit-id="${depositId}"]`;
    await page.waitForSelector(`${row} .deposit-pay`);
    await page.click(`${row} .deposit-pay`);
    await page.waitForFunction(
      (sel) => document.querySelector(`${sel} .status-completed`)?.textContent === 'completed',
      row,
    );
    await page.waitForFunction(
      (sel) => /deposit\.completed: 204/.test(document.querySelector(`${sel} ol`)?.textContent ?? ''),
      row,
      { timeout: 10_000 },
    );
    assert.equal(await page.locator(`${row} .deposit-pay`).count(), 0, 'no Pay button on a completed deposit');
    assert.equal(hits, 1);
  });
});
