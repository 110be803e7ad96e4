// An OVO push payment end to end (docs/indonesian-payments.md), in Chromium against the real `npm start`: the shopper
// types the number, the sandbox's approval page declines the request, the element shows the failure, "try again" sends
// a new request, the approval page approves it, and the checkout completes.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { chooseMethod, launch, openShopper, startKasir, waitForState, type Kasir } from './harness';

describe('an OVO push payment, end to end', () => {
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

  it('phone entry, push, declined, try again, approved: completed', async () => {
    const { page, context, problems } = await openShopper(browser, kasir.url);
    const created = page.waitForResponse(
      (r) => r.request().method() === 'POST' && /\/api\/checkouts\/[^/]+\/deposit$/.test(r.url()),
    );
    await chooseMethod(page, 'OVO');
    const checkoutId = new URL((await created).url()).pathname.split('/').at(-2)!;
    const part = (name: string) => page.locator(`kasir-checkout [part="${name}"]`).first();
    await part('phone').fill('0812 3456 7890');
    await part('phone').press('Enter');
    await part('wallet-countdown').waitFor();
    assert.match(await page.locator('kasir-checkout [role="status"]').first().innerText(), /0812\*+7890/);
    const decide = (what: string) =>
      fetch(`${kasir.providerUrl}/sandbox/ewallet/${checkoutId}/${what}`, { method: 'POST', redirect: 'manual' });
    assert.equal((await decide('decline')).status, 303);
    await part('failure').waitFor({ timeout: 20_000 });
    assert.match(await part('failure').innerText(), /declined in OVO/);
    await part('failure').locator('button').first().click();
    await part('wallet-countdown').waitFor();
    assert.equal((await decide('approve')).status, 303);
    await waitForState(page, 'completed');
    assert.deepEqual(problems, []);
    await context.close();
  });
});
