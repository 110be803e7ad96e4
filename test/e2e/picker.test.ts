// The sandbox's whole method list on a 390 x 844 phone, through `npm start` in Chromium (docs/design.md, "The shopper's
// choice, on any device"): grouped by kind, it fits the screen without scrolling, and every method is reachable by
// keyboard alone; the last choice comes first on the next order.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { chooseMethod, launch, openShopper, startKasir, waitForState, type Kasir } from './harness';

describe('the method list on a phone', () => {
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

  it('fits 390 x 844 without scrolling, grouped by kind, every method in it', async () => {
    const { context, page, problems } = await openShopper(browser, kasir.url);
    const el = page.locator('kasir-checkout');
    const groups = await el
      .locator('[part="method-group"]')
      .evaluateAll((gs) => gs.map((g) => (g as HTMLElement).dataset.kind));
    assert.deepEqual(groups, ['va', 'bank', 'qris', 'ewallet', 'crypto']);
    const methods = await el.locator('[part="method"]').count();
    assert.ok(methods > 20, `the sandbox lists ${methods} methods`);
    const box = (await el.boundingBox())!;
    assert.ok(box.height <= 844, `the list is ${box.height} px tall`);
    // Scrolled to it, the whole list is on one screen.
    await el.evaluate((e) => e.scrollIntoView());
    const last = (await el.locator('[part="method-group"][data-kind="crypto"]').boundingBox())!;
    assert.ok(last.y + last.height <= 844, 'the last group is on screen');
    assert.deepEqual(problems, []);
    await context.close();
  });

  it('reaches every method by keyboard alone (Tab, and Enter to open a group)', async () => {
    const { context, page } = await openShopper(browser, kasir.url);
    const reached = new Set<string>();
    const opened = new Set<string>();
    for (let i = 0; i < 120; i++) {
      await page.keyboard.press('Tab');
      const active = await page.evaluate(() => {
        const inner = document.querySelector('kasir-checkout')?.shadowRoot?.activeElement as
          HTMLElement | null | undefined;
        if (!inner || document.activeElement?.tagName !== 'KASIR-CHECKOUT') return null;
        return {
          method: inner.dataset.method,
          kind: inner.closest<HTMLElement>('[part="method-group"]')?.dataset.kind,
          expanded: inner.getAttribute('aria-expanded'),
        };
      });
      if (!active) continue;
      if (active.method) reached.add(active.method);
      if (active.expanded === 'false' && active.kind && !opened.has(active.kind)) {
        opened.add(active.kind);
        await page.keyboard.press('Enter');
      }
    }
    const available = await page
      .locator('kasir-checkout [part="method"]:not([disabled])')
      .evaluateAll((ms) => ms.map((m) => (m as HTMLElement).dataset.method!));
    assert.deepEqual([...reached].sort(), available.sort());
    await context.close();
  });

  it('offers the last choice first on the next order', async () => {
    const { context, page } = await openShopper(browser, kasir.url);
    await chooseMethod(page, 'MANDIRI_VA');
    await page.click('#restart');
    await waitForState(page, 'choosing');
    const first = page.locator('kasir-checkout [part="method"]').first();
    assert.equal(await first.getAttribute('data-method'), 'MANDIRI_VA');
    assert.ok(await first.isVisible());
    await context.close();
  });
});
