// A refund claim end to end (docs/refunds.md), in Chromium against the real `npm start` (sandbox + merchant backend +
// demo shop, whose onRefundRequested logs one line per run): a bank transfer paid in part and expired offers the
// refund form; the shopper's bank account becomes a recipient at the payment service and the hook runs once, with the
// amount the service counts (an amount slipped into the request is ignored); a second claim is 409; a checkout with
// nothing owed offers no form and a claim for it is 400.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { signedRequestHeaders } from '../../server/common/request-signing';
import { chooseMethod, launch, openShopper, startKasir, waitForState, type Kasir } from './harness';

describe('a refund claim, end to end (docs/refunds.md)', () => {
  let kasir: Kasir;
  let browser: Browser;

  before(async () => {
    kasir = await startKasir();
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await kasir?.stop();
  });

  const part = (page: Page, name: string) => page.locator(`kasir-checkout [part="${name}"]`).first();
  const text = async (page: Page, name: string) =>
    ((await part(page, name).textContent()) ?? '').replace(/\s+/g, ' ').trim();
  /** The demo's sandbox panel: a payment of `amount` arrives. */
  const pay = async (page: Page, amount = '') => {
    await page.fill('#pay-amount', amount);
    await page.click('#pay');
    await page.waitForFunction(() => document.querySelector('#sandbox-status')?.textContent !== '');
  };
  /** The demo's hook lines: one per run of onRefundRequested. */
  const refundLines = () =>
    kasir
      .output()
      .split('\n')
      .filter((l) => l.includes('"refund requested"'))
      .map(
        (l) =>
          JSON.parse(l) as {
            checkoutId: string;
            amount: string;
            currency: string;
            reason: string;
            recipient: { type: string; recipientId: string; bankCode: string };
          },
      );
  /** A signed read of the payment service, with the sandbox merchant's credentials (sandbox.json). */
  const service = async (path: string) => {
    const creds = JSON.parse(readFileSync(join(kasir.dataDir, 'sandbox.json'), 'utf8')) as {
      baseUrl: string;
      clientId: string;
      clientSecret: string;
    };
    const headers = signedRequestHeaders(creds.clientId, creds.clientSecret, 'GET', path, '', new Date().toISOString());
    return (await (await fetch(`${creds.baseUrl}${path}`, { headers })).json()) as { data: Record<string, any> };
  };
  /** Chooses a method; answers the checkout's id (from the element's request). */
  const choose = async (page: Page, method: string) => {
    const request = page.waitForRequest(
      (r) => r.method() === 'POST' && /\/api\/checkouts\/[^/]+\/deposit$/.test(r.url()),
    );
    await chooseMethod(page, method);
    return (await request).url().split('/').at(-2)!;
  };
  /** The widget API from the shopper's page. */
  const claim = (page: Page, id: string, body: unknown) =>
    page.evaluate(
      async ([id, body]) => {
        const res = await fetch(`/api/checkouts/${id}/refund-claim`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        return { status: res.status, message: ((await res.json()) as { message: string }).message };
      },
      [id, body] as const,
    );

  it("an expired bank transfer with money received: the form, a recipient at the service, the hook once with the service's amount; again 409", async () => {
    const { context, page, problems } = await openShopper(browser, kasir.url);
    const id = await choose(page, 'BCA_TRANSFER');
    await pay(page, '60000');
    await page.click('#expire');
    await waitForState(page, 'expired');
    const form = part(page, 'refund');
    await form.waitFor({ timeout: 20_000 });
    assert.match(await text(page, 'refund'), /The shop owes you Rp\s?60,000/);

    // The page claims a million is owed: the request carries it, the backend never reads it.
    await page.route('**/refund-claim', async (route) => {
      const request = route.request();
      if (request.method() !== 'POST') return route.continue();
      await route.continue({ postData: JSON.stringify({ ...request.postDataJSON(), amount: '1000000' }) });
    });
    await form.locator('select[name="bankCode"]').selectOption('BCA');
    await form.locator('input[name="accountNumber"]').fill('0123456789');
    await form.locator('input[name="accountName"]').fill('Siti Rahma');
    await form.locator('input[name="email"]').fill('siti@example.com');
    await form.locator('input[name="address"]').fill('Jl. Merdeka 1');
    await form.locator('input[name="city"]').fill('Bandung');
    await form.locator('input[name="postCode"]').fill('40111');
    await form.locator('button').click();
    await page.waitForFunction(
      () =>
        /The shop has your refund details/.test(
          document.querySelector('kasir-checkout')?.shadowRoot?.querySelector('[part="result"]')?.textContent ?? '',
        ),
      undefined,
      { timeout: 20_000 },
    );
    assert.equal(await part(page, 'refund').count(), 0);

    // The hook ran once, with the service's count.
    const lines = refundLines();
    assert.equal(lines.length, 1, kasir.output());
    assert.deepEqual(
      [
        lines[0].checkoutId,
        lines[0].amount,
        lines[0].currency,
        lines[0].reason,
        lines[0].recipient.type,
        lines[0].recipient.bankCode,
      ],
      [id, '60000', 'IDR', 'expired', 'bank', 'BCA'],
    );
    // The recipient at the payment service.
    const recipient = (await service(`/v1/recipient/${lines[0].recipient.recipientId}`)).data;
    assert.deepEqual(
      [
        recipient.name,
        recipient.email,
        recipient.city,
        recipient.bank[0].accountNumber,
        recipient.bank[0].bankName,
        recipient.bank[0].currency,
      ],
      ['Siti Rahma', 'siti@example.com', 'Bandung', '0123456789', 'Bank Central Asia', 'IDR'],
    );

    // A second claim for the deposit: 409, and the hook does not run again.
    await page.unroute('**/refund-claim');
    assert.deepEqual(
      await claim(page, id, {
        bankCode: 'BNI',
        accountNumber: '999999999',
        accountName: 'Someone Else',
        email: 'x@example.com',
        address: 'x 1',
        city: 'Jakarta',
        postCode: '10110',
      }),
      { status: 409, message: 'A refund was already requested' },
    );
    // The backend answers that the shop has the details (what a reload of this checkout shows).
    const read = await page.evaluate(
      async (id) => (await (await fetch(`/api/checkouts/${id}/refund-claim`)).json()).data,
      id,
    );
    // Everything owed was claimed: nothing more to claim, and the owed list says what the shop was told.
    assert.deepEqual(
      [read.claimed, read.amount, read.owed],
      [true, '0', [{ amount: '60000', currency: 'IDR', kind: 'bank', claimed: '60000' }]],
    );
    assert.equal(refundLines().length, 1);
    // Only the test's own second claim was refused (the browser logs its 409).
    assert.deepEqual(
      problems.filter((p) => !/409/.test(p)),
      [],
    );
    await context.close();
  });

  it('nothing owed (paid exactly): no form, and a claim is 400 whatever the body', async () => {
    const { context, page, problems } = await openShopper(browser, kasir.url);
    const id = await choose(page, 'BCA_VA');
    await pay(page);
    await waitForState(page, 'completed');
    await page.waitForTimeout(500);
    assert.equal(await part(page, 'refund').count(), 0);
    for (const body of [
      {
        bankCode: 'BCA',
        accountNumber: '0123456789',
        accountName: 'Siti',
        email: 'siti@example.com',
        address: 'Jl. 1',
        city: 'Bandung',
        postCode: '40111',
        amount: '150000',
      },
      {},
    ]) {
      assert.deepEqual(await claim(page, id, body), { status: 400, message: 'Nothing is owed back for this payment' });
    }
    assert.equal(refundLines().filter((l) => l.checkoutId === id).length, 0);
    assert.deepEqual(
      problems.filter((p) => !/400/.test(p)),
      [],
    );
    await context.close();
  });
});
