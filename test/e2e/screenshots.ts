// Screenshots of each phase of the demo (choosing, with a group open, VA, QRIS, e-wallet, crypto, bank transfer,
// completed, expired, the modal) on a desktop and phones, in English and Indonesian, into demo/screenshots/. Not part
// of `npm test`: `npm run build && npx tsx test/e2e/screenshots.ts`.
import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { launch, showMethod, startKasir, waitForState } from './harness';

const out = 'demo/screenshots';
const viewports = {
  desktop: { width: 1280, height: 900 },
  phone: { width: 390, height: 844 },
  'phone-320': { width: 320, height: 700 },
};

async function shoot(browser: Browser, url: string, device: keyof typeof viewports) {
  const context = await browser.newContext({
    viewport: viewports[device],
    deviceScaleFactor: device === 'desktop' ? 1 : 2,
  });
  const snap = async (page: Page, name: string) => {
    await page.waitForTimeout(300);
    const target = device === 'desktop' ? page : page.locator('kasir-checkout');
    await target.screenshot({ path: `${out}/${name}-${device}.png` });
  };
  const open = async () => {
    const page = await context.newPage();
    await page.goto(url);
    await waitForState(page, 'choosing');
    return page;
  };
  const pick = async (page: Page, code: string) => {
    await (await showMethod(page, code)).click();
    await waitForState(page, 'pending');
  };
  const group = (page: Page, kind: string) =>
    page.locator(`kasir-checkout [part="method-group"][data-kind="${kind}"] button.kind`).click();

  let page: Page;
  // Choosing: the grouped list, then with the virtual accounts and the cryptos open, in English and Indonesian.
  for (const locale of ['en', 'id'] as const) {
    const suffix = locale === 'en' ? '' : '-id';
    page = await open();
    if (locale === 'id') await page.click('[data-locale="id"]');
    await snap(page, `choosing${suffix}`);
    await group(page, 'va');
    await snap(page, `choosing-va${suffix}`);
    await group(page, 'crypto');
    await snap(page, `choosing-crypto${suffix}`);
    await page.close();
  }
  // The modal: a second element on the page, opened over it (the whole screen is shot).
  page = await open();
  await page.evaluate(() => {
    const modal = Object.assign(document.createElement('kasir-checkout'), { id: 'modal' });
    for (const [name, value] of Object.entries({
      modal: '',
      endpoint: '/api',
      amount: '99000',
      currency: 'IDR',
      locale: 'en',
    }))
      modal.setAttribute(name, value);
    document.body.append(modal);
    return (modal as HTMLElement & { open(): Promise<void> }).open();
  });
  await page.waitForSelector('#modal[state="choosing"]');
  await page.waitForTimeout(300);
  await page.screenshot({ path: `${out}/modal-${device}.png` });
  await page.close();

  page = await open();
  await pick(page, 'BCA_VA');
  await snap(page, 'va');
  await page.click('#pay');
  await waitForState(page, 'completed');
  await snap(page, 'completed');
  await page.click('#restart');
  await waitForState(page, 'choosing');
  await pick(page, 'QRIS');
  await snap(page, 'qris');
  await page.click('#expire');
  await waitForState(page, 'expired');
  await snap(page, 'expired');
  await page.click('#restart');
  await waitForState(page, 'choosing');
  await pick(page, 'OVO');
  await snap(page, 'ewallet');
  await page.close();
  // Crypto and bank transfer, in English and Indonesian.
  for (const locale of ['en', 'id'] as const) {
    const suffix = locale === 'en' ? '' : '-id';
    for (const [code, name] of [
      ['USDC-POLYGON', 'crypto'],
      ['BCA_TRANSFER', 'bank'],
    ] as const) {
      page = await open();
      if (locale === 'id') await page.click('[data-locale="id"]');
      await pick(page, code);
      await snap(page, `${name}${suffix}`);
      await page.close();
    }
  }
  if (device !== 'desktop') {
    // Indonesian: the pending VA screen with Indonesian amounts.
    page = await open();
    await page.click('[data-locale="id"]');
    await pick(page, 'BRI_VA');
    await snap(page, 'va-id');
    await page.close();
  }
  await context.close();
}

mkdirSync(out, { recursive: true });
const kasir = await startKasir();
const browser = await launch();
try {
  for (const device of Object.keys(viewports) as Array<keyof typeof viewports>) await shoot(browser, kasir.url, device);
  console.log(`screenshots in ${out}/`);
} finally {
  await browser.close();
  await kasir.stop();
}
