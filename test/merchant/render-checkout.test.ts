// kasir.renderCheckout against a real sandbox: the element's markup for a server-made checkout, its method list in a
// declarative shadow root (Lit's server rendering of @kasir/checkout's own element), in English and Indonesian, inline
// and modal, with the checkout and the words the element starts from in its `served` attribute; bad input is a 400
// naming the field, an unknown checkout a 404. What the browser makes of it: test/e2e/server-rendered.test.ts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Checkout, Served } from '@kasir/checkout';
import { ApiError } from '../../server/common/errors';
import { merchantApp, startUpstream, type Upstream } from './support';

/** The `served` attribute's JSON (Lit escapes it as any attribute value). */
const servedOf = (markup: string): Served => {
  const escaped = /\sserved="([^"]*)"/.exec(markup)?.[1];
  assert.ok(escaped, 'no served attribute');
  return JSON.parse(
    escaped
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&'),
  );
};

/** The shadow root's markup (the declarative template's content). */
const shadowOf = (markup: string) => {
  const shadow = /<template shadowroot="open" shadowrootmode="open">([^]*)<\/template>/.exec(markup)?.[1];
  assert.ok(shadow, 'no declarative shadow root');
  return shadow;
};

describe('renderCheckout', () => {
  let up: Upstream;
  let app: ReturnType<typeof merchantApp>;
  let checkout: Checkout;
  before(async () => {
    up = await startUpstream();
    app = merchantApp(up);
    checkout = await app.api.createCheckout({ amount: '150000', currency: 'IDR', orderId: 'SSR-1' });
  });
  after(async () => {
    await app.api.close();
    await up.close();
  });

  for (const [locale, choose] of [
    ['en', 'Choose how to pay'],
    ['id', 'Pilih cara bayar'],
  ] as const) {
    it(`renders the method list in ${locale} from the checkout, and serves the data the element starts from`, async () => {
      const calls = up.calls.length;
      const markup = await app.api.renderCheckout(checkout.id, { locale });
      assert.match(markup, /^<kasir-checkout\s/);
      assert.match(markup, new RegExp(`\\sendpoint="/api"\\s.*checkout-id="${checkout.id}"`));
      assert.match(markup, new RegExp(`\\slocale="${locale}"`));
      assert.match(markup, /\sstate="choosing"/);
      const shadow = shadowOf(markup);
      assert.match(shadow, /^<style>/, "the element's styles, so the list paints styled");
      assert.ok(shadow.includes(choose));
      const listed = [...shadow.matchAll(/part="method"[^>]*data-method="([^"]+)"/g)].map((m) => m[1]).sort();
      assert.deepEqual(listed, checkout.methods.map((m) => m.code).sort());
      const kinds = [...shadow.matchAll(/part="method-group" data-kind="(\w+)"/g)].map((m) => m[1]);
      assert.deepEqual(
        kinds,
        ['va', 'bank', 'qris', 'ewallet', 'crypto'].filter((k) => checkout.methods.some((m) => m.kind === k)),
      );
      // The countdown's first tick: the checkout's window to choose, as the element counts it from serverTime.
      const window = Math.round((Date.parse(checkout.expiresAt) - Date.parse(checkout.serverTime)) / 60_000);
      assert.match(shadow, new RegExp(`<strong class="mono">(<!--[^>]*-->)*(${window}:00|${window - 1}:5\\d)<!--`));
      const served = servedOf(markup);
      assert.equal(served.checkout.id, checkout.id);
      assert.deepEqual(served.checkout.methods, checkout.methods);
      assert.equal(served.words.choose, choose);
      // One read of the checkout (the cached session may answer it without the payment service): never more.
      assert.ok(up.calls.length - calls <= 1, up.calls.slice(calls).join(', '));
    });
  }

  it('modal: the list in a closed dialog, which shows nothing until open()', async () => {
    const markup = await app.api.renderCheckout(checkout.id, { locale: 'en', modal: true });
    assert.match(markup, /<kasir-checkout\s[^>]*\smodal[\s>]/);
    const shadow = shadowOf(markup);
    assert.match(shadow, /<dialog part="dialog" aria-label="Payment"/);
    assert.doesNotMatch(shadow, /<dialog[^>]*\sopen/);
    assert.ok(shadow.includes('Choose how to pay'));
  });

  it('another endpoint, and the nonce of a strict Content-Security-Policy on its style', async () => {
    const markup = await app.api.renderCheckout(checkout.id, {
      endpoint: 'https://shop.example/api',
      nonce: 'r4nd0m+/=',
    });
    assert.match(markup, /\sendpoint="https:\/\/shop.example\/api"/);
    assert.match(shadowOf(markup), /^<style nonce="r4nd0m\+\/=">/);
  });

  it('bad input is a 400 naming the field; an unknown checkout a 404', async () => {
    const refused = async (promise: Promise<unknown>, status: number, field: RegExp) => {
      await assert.rejects(promise, (err: unknown) => {
        assert.ok(err instanceof ApiError, String(err));
        assert.equal(err.status, status);
        assert.match(err.message, field);
        return true;
      });
    };
    await refused(app.api.renderCheckout(checkout.id, { locale: 'fr' }), 400, /^locale: one of en, id/);
    await refused(app.api.renderCheckout('not a checkout'), 400, /^checkoutId/);
    await refused(app.api.renderCheckout(checkout.id, { nonce: '"><script>' }), 400, /^nonce/);
    await refused(app.api.renderCheckout(checkout.id, { endpoint: '' }), 400, /^endpoint/);
    const unknown = checkout.id.replace(/.$/, (c) => (c === '0' ? '1' : '0'));
    await refused(app.api.renderCheckout(unknown), 404, /not found/i);
  });
});
