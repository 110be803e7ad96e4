// Payments that do not go as planned (docs/design.md, "Payments that do not go as planned"), as a shopper meets them in
// Chromium against the real `npm start`: a USDC deposit paid in part shows what is still due and a QR for exactly the
// rest; paying the rest completes it; a bank transfer paid over says by how much; a crypto payment after expiry says it
// will be refunded; a partial USDC payment finished by a virtual account completes the checkout once. Payments are made
// with the demo's sandbox panel (`#pay-amount`, `#pay`, `#expire`), as a merchant trying it would.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { chooseMethod, launch, openShopper, showMethod, startKasir, waitForState, type Kasir } from './harness';
import { readQr } from './read-qr';

interface CryptoReference {
  id: string;
  address: string;
  chainId: number;
  decimal: number;
}

/** "9.2345" -> 9234500n for 6 decimals: the test's own base-unit arithmetic (BigInt), not the product's. */
function baseUnits(amount: string, decimals: number): bigint {
  const [whole, fraction = ''] = amount.split('.');
  assert.ok(fraction.length <= decimals, `${amount} has more than ${decimals} decimals`);
  return BigInt(whole) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, '0') || '0');
}

/** Base units back to the shortest decimal text (9234500n, 6 -> "9.2345"). */
function decimalText(units: bigint, decimals: number): string {
  const whole = units / 10n ** BigInt(decimals);
  const fraction = (units % 10n ** BigInt(decimals)).toString().padStart(decimals, '0').replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : String(whole);
}

describe('payments that do not go as planned, end to end (docs/design.md, "Payments that do not go as planned")', () => {
  let kasir: Kasir;
  let browser: Browser;
  let usdc: CryptoReference;

  before(async () => {
    kasir = await startKasir();
    browser = await launch();
    const cryptos: CryptoReference[] = (await (await fetch(`${kasir.providerUrl}/v1/reference/cryptos`)).json()).data;
    usdc = cryptos.find((c) => c.id === 'USDC-POLYGON')!;
  });
  after(async () => {
    await browser?.close();
    await kasir?.stop();
  });

  const shopper = () => openShopper(browser, kasir.url, { deviceScaleFactor: 2 });
  const part = (page: Page, name: string) => page.locator(`kasir-checkout [part="${name}"]`).first();
  const text = async (page: Page, name: string) =>
    ((await part(page, name).textContent()) ?? '').replace(/\s+/g, ' ').trim();
  /** The token amount asked on screen ("9.234568 USDC" -> "9.234568"). */
  const tokenAmount = async (page: Page, symbol: string) => {
    const match = (await text(page, 'amount')).match(new RegExp(`([0-9][0-9,]*(?:\\.[0-9]+)?)\\s*${symbol}`));
    assert.ok(match, `the amount names ${symbol}: ${await text(page, 'amount')}`);
    return match[1].replace(/,/g, '');
  };
  /** The demo's sandbox panel: a payment of `amount` arrives (empty: what is still due). */
  const pay = async (page: Page, amount = '') => {
    await page.fill('#pay-amount', amount);
    await page.click('#pay');
    await page.waitForFunction(() => document.querySelector('#sandbox-status')?.textContent !== '');
    return (await page.textContent('#sandbox-status')) ?? '';
  };
  const completions = (page: Page) => page.locator('#log li', { hasText: 'kasir-completed' }).count();

  /** Chooses USDC on Polygon and pays 60 % of it; answers what was asked and what is still due (decimal text). */
  const payPartOfUsdc = async (page: Page) => {
    await chooseMethod(page, 'USDC-POLYGON');
    const asked = baseUnits(await tokenAmount(page, 'USDC'), usdc.decimal);
    const paid = (asked * 60n) / 100n;
    const status = await pay(page, decimalText(paid, usdc.decimal));
    assert.match(status, /pending/, status);
    await part(page, 'paid').waitFor({ timeout: 20_000 });
    return { asked, paid, rest: asked - paid };
  };

  it('a USDC deposit paid 60 %: what arrived and the rest due, a QR for exactly the rest; paying the rest completes it', async () => {
    const { context, page, problems } = await shopper();
    const { rest } = await payPartOfUsdc(page);
    assert.equal(await page.locator('kasir-checkout').getAttribute('state'), 'pending');
    // The amount, its copy and the QR ask for the rest only.
    assert.equal(await tokenAmount(page, 'USDC'), decimalText(rest, usdc.decimal));
    const address = await text(page, 'address');
    const qr = readQr(await part(page, 'qr').screenshot());
    assert.equal(qr, `ethereum:${usdc.address}@${usdc.chainId}/transfer?address=${address}&uint256=${rest}`);
    await pay(page);
    await waitForState(page, 'completed');
    assert.deepEqual(problems, []);
    await context.close();
  });

  it('a bank transfer paid over says by how much', async () => {
    const { context, page, problems } = await shopper();
    await chooseMethod(page, 'BCA_TRANSFER');
    const asked = Number((await text(page, 'amount')).replace(/[^0-9]/g, ''));
    assert.ok(asked >= 150_000, `the transfer asks at least the order: ${asked}`);
    await pay(page, String(asked + 5_000));
    await waitForState(page, 'completed');
    // The words of a payment not as planned come in their own chunk, a moment after the completed screen.
    await page.waitForFunction(
      () =>
        /5[,.]000/.test(
          document.querySelector('kasir-checkout')?.shadowRoot?.querySelector('[part="result"]')?.textContent ?? '',
        ),
      undefined,
      { timeout: 20_000 },
    );
    assert.match(await text(page, 'result'), /5[,.]000/, 'the result names the 5,000 paid over');
    assert.deepEqual(problems, []);
    await context.close();
  });

  it('a crypto payment after expiry says that the shop will refund it', async () => {
    const { context, page, problems } = await shopper();
    await chooseMethod(page, 'USDC-POLYGON');
    const asked = await tokenAmount(page, 'USDC');
    await page.click('#expire');
    await waitForState(page, 'expired');
    const status = await pay(page, asked);
    assert.match(status, /expired/, status);
    await page.waitForFunction(
      () =>
        /refund/i.test(
          document.querySelector('kasir-checkout')?.shadowRoot?.querySelector('[part="result"]')?.textContent ?? '',
        ),
      undefined,
      { timeout: 20_000 },
    );
    assert.match(await text(page, 'result'), new RegExp(asked.replace('.', '\\.')));
    assert.deepEqual(problems, []);
    await context.close();
  });

  it('a partial USDC payment finished by a virtual account completes the checkout once', async () => {
    const { context, page, problems } = await shopper();
    await payPartOfUsdc(page);
    await part(page, 'change-method').click();
    await waitForState(page, 'choosing');
    await (await showMethod(page, 'BCA_VA')).click();
    await waitForState(page, 'pending');
    // The virtual account asks only the rest of the order (less than the whole 150,000).
    const rest = Number((await text(page, 'amount')).replace(/[^0-9]/g, ''));
    assert.ok(rest > 0 && rest < 150_000, `the VA asks the rest: ${rest}`);
    await pay(page);
    await waitForState(page, 'completed');
    // Give a second completion (a double webhook, a second status) time to show, then count.
    await page.waitForTimeout(1500);
    assert.equal(await completions(page), 1);
    assert.deepEqual(problems, []);
    await context.close();
  });
});
