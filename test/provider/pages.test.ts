// The service's HTML pages share one shell (http/page.ts) and its escaping (hono/html): the hosted checkout, the
// e-wallet simulator, the dashboard and the API reference. A shop's name is text from a row: it never becomes markup.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bodyOf, type Envelope } from '../support/envelope';
import { createTestProvider, type TestProvider } from '../support/provider';
import { createFiat } from './deposit-helpers';

const NAME = `Toko <img src=x onerror=alert(1)> "A&B" 'x'`;
const ESCAPED = 'Toko &lt;img src=x onerror=alert(1)&gt; &quot;A&amp;B&quot; &#39;x&#39;';

describe('HTML pages', () => {
  let p: TestProvider;
  let checkoutId: string;
  let ewalletPath: string;
  before(async () => {
    p = await createTestProvider();
    await p.deps.db.updateTable('organizations').set({ name: NAME }).execute();
    const res = await p.signed('POST', '/v1/checkout', { inputCurrency: 'IDR', inputAmount: 150000 });
    checkoutId = (await bodyOf<Envelope<{ id: string }>>(res)).data.id;
    ewalletPath = new URL((await createFiat(p, { paymentMethod: 'DANA' })).paymentFiat.checkoutUrl!).pathname;
  });
  after(async () => {
    await p.close();
  });

  const text = async (path: string) => (await p.app.request(`http://localhost${path}`)).text();

  it('show the shop name as text on the hosted page, in its title and heading', async () => {
    for (const [query, pay] of [
      ['', 'Pay'],
      ['?lang=id', 'Bayar'],
    ]) {
      const html = await text(`/checkout/${checkoutId}${query}`);
      assert.ok(html.includes(`<title>${pay} ${ESCAPED}</title>`), html);
      assert.ok(html.includes(`<h1>${ESCAPED}</h1>`), html);
      assert.doesNotMatch(html, /<img/);
    }
  });

  it('show the shop name as text on the e-wallet simulator', async () => {
    const html = await text(ewalletPath);
    assert.ok(html.includes(`<h1>DANA payment to ${ESCAPED}</h1>`), html);
    assert.doesNotMatch(html, /<img src=x/);
  });

  it('have one shell: doctype, language, charset, viewport and title', async () => {
    const pages = [
      `/checkout/${checkoutId}`,
      `/checkout/${checkoutId}?lang=id`,
      '/checkout/00000000-0000-0000-0000-000000000000',
      ewalletPath,
      '/sandbox/ewallet/none',
      '/dashboard',
      '/docs',
    ];
    for (const path of pages) {
      const html = await text(path);
      const lang = path.endsWith('lang=id') ? 'id' : 'en';
      assert.match(
        html,
        new RegExp(
          `^<!doctype html>\\n<html lang="${lang}">\\n<head>\\n<meta charset="utf-8">\\n<meta name="viewport" content="width=device-width, initial-scale=1">\\n<title>[^<]+</title>\\n`,
        ),
        path,
      );
      assert.match(html, /\n<\/head>\n<body>\n[\s\S]+\n<\/body>\n<\/html>\n$/, path);
    }
  });
});
