import { launch, startKasir, waitForState } from './harness';
const kasir = await startKasir();
const browser = await launch();
try {
  for (const [w, h] of [[390, 844], [320, 700], [1000, 900]]) {
    for (const loc of ['en', 'id']) {
      const ctx = await browser.newContext({ viewport: { width: w, height: h } });
      const page = await ctx.newPage();
      page.on('console', (m) => m.type() === 'error' && console.log('console:', m.text()));
      await page.goto(kasir.url);
      await waitForState(page, 'choosing');
      if (loc === 'id') await page.click('[data-locale="id"]');
      const el = page.locator('kasir-checkout');
      await page.waitForTimeout(300);
      console.log(w, loc, await el.evaluate((e) => e.getBoundingClientRect().height), await el.evaluate((e) => e.shadowRoot!.querySelectorAll('[part=method]').length));
      await el.screenshot({ path: `/tmp/shots/choose-${w}-${loc}.png` });
      for (const kind of ['va', 'crypto']) {
        await page.locator(`kasir-checkout [part=method-group][data-kind=${kind}] button.kind`).click();
        await page.waitForTimeout(200);
        console.log(' open', kind, await el.evaluate((e) => e.getBoundingClientRect().height));
        await el.screenshot({ path: `/tmp/shots/choose-${w}-${loc}-${kind}.png` });
      }
      await ctx.close();
    }
  }
} finally {
  await browser.close();
  await kasir.stop();
}
