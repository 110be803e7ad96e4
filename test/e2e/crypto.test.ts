// A shopper pays the demo's order in crypto, switches method mid-payment and pays by bank transfer, in Chromium
// against the real `npm start`. The QR codes are read off the screen, as a wallet app would read them.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { chooseMethod, launch, openShopper, showMethod, startKasir, waitForState, type Kasir } from './harness';
import { readQr } from './read-qr';

interface CryptoReference {
  id: string;
  symbol: string;
  address: string;
  chainId: number;
  decimal: number;
  is_native: boolean;
}

/** "9.2345 " -> 9234500n for 6 decimals: the test's own base-unit arithmetic (BigInt), not the product's. */
function baseUnits(amount: string, decimals: number): string {
  const [whole, fraction = ''] = amount.split('.');
  assert.ok(fraction.length <= decimals, `${amount} has more than ${decimals} decimals`);
  return (BigInt(whole) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, '0') || '0')).toString();
}

describe('crypto, switching method and bank transfer, end to end', () => {
  let kasir: Kasir;
  let browser: Browser;
  let cryptos: CryptoReference[];

  before(async () => {
    kasir = await startKasir();
    browser = await launch();
    cryptos = (await (await fetch(`${kasir.providerUrl}/v1/reference/cryptos`)).json()).data;
  });
  after(async () => {
    await browser?.close();
    await kasir?.stop();
  });

  // Twice the pixels, so the QR code read off the screen has crisp modules.
  const shopper = () => openShopper(browser, kasir.url, { deviceScaleFactor: 2 });
  const choose = chooseMethod;
  const text = async (page: Page, part: string) =>
    ((await page.locator(`kasir-checkout [part="${part}"]`).first().textContent()) ?? '').trim();
  const qrOnScreen = async (page: Page) => readQr(await page.locator('kasir-checkout [part="qr"]').screenshot());
  /** The token amount on screen ("9.234568 USDC" -> "9.234568"). */
  const tokenAmount = async (page: Page, symbol: string) => {
    const shown = await text(page, 'amount');
    const match = shown.match(new RegExp(`([0-9]+(?:\\.[0-9]+)?)\\s*${symbol}`));
    assert.ok(match, `the amount names the token: ${shown}`);
    return match[1];
  };

  it('pays in USDC on Polygon: network warning, address, exact amount, an EIP-681 token transfer in the QR', async () => {
    const { context, page, problems } = await shopper();
    const usdc = cryptos.find((c) => c.id === 'USDC-POLYGON')!;
    const listed = await (await showMethod(page, 'USDC-POLYGON')).textContent();
    assert.match(listed!, /USDC/);
    assert.match(listed!, /Polygon/);
    await choose(page, 'USDC-POLYGON');
    assert.match(await text(page, 'network'), /Polygon/);
    const address = await text(page, 'address');
    assert.match(address, /^0x[0-9a-fA-F]{40}$/);
    const amount = await tokenAmount(page, 'USDC');
    assert.ok(!amount.includes('.') || amount.split('.')[1].length <= usdc.decimal);
    assert.equal(
      await qrOnScreen(page),
      `ethereum:${usdc.address}@${usdc.chainId}/transfer?address=${address}&uint256=${baseUnits(amount, usdc.decimal)}`,
    );
    await page.click('#pay');
    await waitForState(page, 'completed');
    assert.deepEqual(problems, []);
    await context.close();
  });

  it('pays in ETH: the QR asks for the exact amount in wei', async () => {
    const { context, page, problems } = await shopper();
    const eth = cryptos.find((c) => c.id === 'ETH-ETHEREUM')!;
    await choose(page, 'ETH-ETHEREUM');
    const address = await text(page, 'address');
    const amount = await tokenAmount(page, 'ETH');
    assert.equal(await qrOnScreen(page), `ethereum:${address}@${eth.chainId}?value=${baseUnits(amount, eth.decimal)}`);
    assert.deepEqual(problems, []);
    await context.close();
  });

  it('switches from a virtual account to USDC while pending: same checkout, new details, one completion', async () => {
    const { context, page, problems } = await shopper();
    await choose(page, 'BCA_VA');
    const vaNumber = await text(page, 'va-number');
    assert.match(vaNumber, /^\d{4} \d{4} \d{4} \d{4}$/);
    await page.locator('kasir-checkout [part="change-method"]').click();
    await waitForState(page, 'choosing');
    await choose(page, 'USDC-POLYGON');
    assert.equal(await page.locator('kasir-checkout [part="va-number"]').count(), 0, 'the VA number is gone');
    const address = await text(page, 'address');
    assert.match((await qrOnScreen(page)) ?? '', new RegExp(`address=${address}&uint256=\\d+$`));
    // The merchant's API answers the switched deposit under the same checkout.
    const log = (await page.locator('#log').textContent())!;
    const id = log.match(/kasir-ready\s+([A-Za-z0-9_-]+)/)![1];
    const deposit = (await (await fetch(`${kasir.url}/api/checkouts/${id}/deposit`)).json()).data;
    assert.equal(deposit.id, id);
    assert.equal(deposit.method.code, 'USDC-POLYGON');
    await page.click('#pay');
    await waitForState(page, 'completed');
    const events = (await page.locator('#log').textContent())!;
    assert.equal(events.match(/kasir-completed/g)?.length, 1);
    assert.equal(events.match(/kasir-method-selected/g)?.length, 2);
    assert.deepEqual(problems, []);
    await context.close();
  });

  it('pays by bank transfer: the exact amount with its unique code, explained, copied as shown', async () => {
    const { context, page, problems } = await shopper();
    await choose(page, 'BCA_TRANSFER');
    assert.match(await text(page, 'va-number'), /\d/);
    const amount = await text(page, 'amount');
    const digits = amount.replace(/\D/g, '');
    assert.ok(Number(digits) > 150000 && Number(digits) < 151000, `the amount carries a code of 1-999: ${amount}`);
    const code = String(Number(digits) - 150000);
    assert.match(await text(page, 'instructions'), new RegExp(code));
    assert.deepEqual(problems, []);
    await context.close();
  });
});
