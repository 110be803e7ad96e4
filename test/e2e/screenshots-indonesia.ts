// Screenshots of the Indonesian payments' views (docs/indonesian-payments.md) on a desktop and a phone (390 px, touch),
// in English and Indonesian, into demo/screenshots/: a Mandiri VA's steps per channel, OVO's phone entry, its request's
// window and a declined request, GoPay's QR (desktop) or app link (phone), DANA's redirect, a Stellar deposit's memo.
// Not part of `npm test`: `npm run build && npx tsx test/e2e/screenshots-indonesia.ts`.
import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { launch, showMethod, startKasir, waitForState, type Kasir } from './harness';

const out = 'demo/screenshots';
const devices = {
  desktop: { viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 },
  phone: { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, hasTouch: true, isMobile: true },
};

async function shoot(browser: Browser, kasir: Kasir, device: keyof typeof devices, locale: 'en' | 'id') {
  const context = await browser.newContext(devices[device]);
  const suffix = `${locale === 'id' ? '-id' : ''}-${device}`;
  const snap = async (page: Page, name: string) => {
    await page.waitForTimeout(300);
    await (device === 'desktop' ? page : page.locator('kasir-checkout')).screenshot({
      path: `${out}/${name}${suffix}.png`,
    });
  };
  /** A fresh page with `code` chosen; answers the page and the checkout id. */
  const pick = async (code: string) => {
    const page = await context.newPage();
    await page.goto(kasir.url);
    await waitForState(page, 'choosing');
    if (locale === 'id') await page.click('[data-locale="id"]');
    const created = page.waitForResponse(
      (r) => r.request().method() === 'POST' && /\/api\/checkouts\/[^/]+\/deposit$/.test(r.url()),
    );
    await (await showMethod(page, code)).click();
    await waitForState(page, 'pending');
    return { page, id: new URL((await created).url()).pathname.split('/').at(-2)! };
  };
  const part = (page: Page, name: string) => page.locator(`kasir-checkout [part="${name}"]`).first();

  let { page } = await pick('MANDIRI_VA');
  await snap(page, 'va-mandiri');
  await page.close();

  let id: string;
  ({ page, id } = await pick('OVO'));
  await snap(page, 'ovo-phone');
  await part(page, 'phone').fill('0812 3456 7890');
  await part(page, 'phone').press('Enter');
  await part(page, 'wallet-countdown').waitFor();
  await snap(page, 'ovo-push');
  await fetch(`${kasir.providerUrl}/sandbox/ewallet/${id}/decline`, { method: 'POST', redirect: 'manual' });
  await part(page, 'failure').waitFor({ timeout: 20_000 });
  await snap(page, 'ovo-failure');
  await page.close();

  ({ page } = await pick('GOPAY'));
  await part(page, device === 'desktop' ? 'qr' : 'open-app').waitFor();
  await snap(page, 'gopay');
  await page.close();

  ({ page } = await pick('DANA'));
  await snap(page, 'dana');
  await page.close();

  ({ page } = await pick('XLM-STELLAR'));
  await snap(page, 'stellar-memo');
  await page.close();
  await context.close();
}

mkdirSync(out, { recursive: true });
const kasir = await startKasir();
const browser = await launch();
try {
  for (const device of Object.keys(devices) as Array<keyof typeof devices>) {
    for (const locale of ['en', 'id'] as const) await shoot(browser, kasir, device, locale);
  }
  console.log(`screenshots in ${out}/`);
} finally {
  await browser.close();
  await kasir.stop();
}
