// Lit's server rendering of the element (kasir.renderCheckout) and the browser's own render of the same checkout agree:
// the same parts (each `part` with its data-method or data-kind, hidden, disabled and aria-expanded) and the same text,
// in English and Indonesian, for a checkout priced by the page and one the shop's server made, inline and modal (opened).
// The server's markup is read as Chromium parses it (its declarative shadow root, no script on the page); the browser's
// render is the element's own, loading the checkout by its id. Whitespace between tags is left out of the text (the
// server renders the package's templates as written, the script-tag build squeezes them; neither renders it), and the
// countdown's clock (the two render seconds apart).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { RunningMerchant } from '../../server/merchant/index';
import { runningMerchant, startUpstream, type Upstream } from '../merchant/support';
import { launch } from './harness';

interface Part {
  part: string;
  of: string;
  hidden: boolean;
  disabled: boolean;
  expanded: string | null;
  text: string;
}

/** What the element's shadow root shows: its parts, and the card's text. */
const READ = `(() => {
  const root = document.querySelector('kasir-checkout').shadowRoot;
  const text = (e) => (e?.textContent || '').replace(/\\s+/g, '').replace(/\\d+:\\d\\d/g, '#:##');
  const parts = [...root.querySelectorAll('[part]')].map((e) => ({
    part: e.getAttribute('part'),
    of: e.dataset.method || e.dataset.kind || '',
    hidden: !!e.closest('[hidden]'),
    disabled: !!e.disabled,
    expanded: e.querySelector('[aria-expanded]')?.getAttribute('aria-expanded') ?? null,
    text: text(e),
  }));
  const card = root.querySelector('.card');
  return { parts, card: text(card), lang: card.getAttribute('lang') };
})()`;

describe("Lit's server rendering and the browser's render agree (Chromium)", { timeout: 300_000 }, () => {
  let up: Upstream;
  let merchant: RunningMerchant;
  let browser: Browser;
  before(async () => {
    up = await startUpstream();
    merchant = await runningMerchant(up);
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await merchant?.stop();
    await up?.close();
  });

  /** A page on the merchant backend's origin (the widget API and the script are there), answered by the test. */
  const open = async (html: string): Promise<Page> => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    const url = `${merchant.url}/agree-${randomUUID()}`;
    await page.route(url, (route) =>
      route.fulfill({
        contentType: 'text/html; charset=utf-8',
        body: `<!doctype html><html><body>${html}</body></html>`,
      }),
    );
    await page.goto(url);
    return page;
  };

  const checkouts = {
    'priced by the page': async () => {
      const res = await fetch(`${merchant.url}/api/checkouts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ amount: '150000', currency: 'IDR' }),
      });
      return ((await res.json()) as { data: { id: string } }).data.id;
    },
    "made by the shop's server": async () =>
      (await merchant.app.api.createCheckout({ amount: '150000', currency: 'IDR', orderId: `AGREE-${randomUUID()}` }))
        .id,
  };

  for (const locale of ['en', 'id'] as const)
    for (const [origin, create] of Object.entries(checkouts))
      for (const modal of [false, true])
        it(`${locale}, a checkout ${origin}, ${modal ? 'modal' : 'inline'}`, async () => {
          const id = await create();
          const markup = await merchant.app.api.renderCheckout(id, { locale, modal });
          const server = await open(markup); // no script: the declarative shadow root as parsed
          const served = (await server.evaluate(READ)) as { parts: Part[]; card: string; lang: string };
          await server.context().close();

          const client = await open(
            `<script type="module" src="/kasir-checkout.js"></script>
             <kasir-checkout endpoint="/api" checkout-id="${id}" locale="${locale}" ${modal ? 'modal' : ''}></kasir-checkout>`,
          );
          if (modal) await client.evaluate(() => document.querySelector('kasir-checkout')!.open());
          await client.waitForSelector('kasir-checkout[state="choosing"]');
          const rendered = (await client.evaluate(READ)) as typeof served;
          await client.context().close();

          assert.equal(served.lang, locale);
          assert.ok(served.parts.filter((p) => p.part === 'method').length > 6, 'the sandbox lists its methods');
          if (modal) assert.equal(served.parts[0].part, 'dialog');
          assert.deepEqual(served.parts, rendered.parts);
          assert.equal(served.card, rendered.card);
        });
});
