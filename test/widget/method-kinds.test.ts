// The widget's one table of method kinds (widget/method-kinds.ts) and the element's choice of locale from i18n.ts's
// `locales`: what the method list's order, the views' chunks, the deposit follower and the language read.
import { expect } from '@open-wc/testing';
import { localeOf, locales } from '../../widget/i18n';
import { methodKinds } from '../../widget/method-kinds';
import en from '../../widget/locales/en';

describe('method kinds and locales', () => {
  it("lists every kind once, in the method list's order, each with its group's word and its pending screen", async () => {
    expect(Object.keys(methodKinds)).to.deep.equal(['va', 'bank', 'qris', 'ewallet', 'crypto']);
    for (const [kind, row] of Object.entries(methodKinds)) {
      expect(en, kind).to.have.property(kind).that.is.a('string');
      const view = await row.view('en');
      expect(view.default, kind).to.be.a('function');
      expect(view.DepositStatusController, kind).to.be.a('function');
    }
    // A bank transfer shows the virtual account's screen.
    expect(await methodKinds.bank.view('en')).to.equal(await methodKinds.va.view('en'));
  });

  it('says which kinds may still be paid after expiry: the payer types the amount (bank transfer, crypto)', () => {
    const late = Object.entries(methodKinds)
      .filter(([, row]) => row.late)
      .map(([kind]) => kind);
    expect(late).to.deep.equal(['bank', 'crypto']);
  });

  it("takes a language tag's locale only when the element has it", () => {
    expect(Object.keys(locales)).to.deep.equal(['en', 'id']);
    for (const [tag, locale] of [
      ['id', 'id'],
      ['id-ID', 'id'],
      ['ID', 'id'],
      ['en-GB', 'en'],
      ['EN', 'en'],
      ['fr-FR', undefined],
      ['en_US', undefined],
      ['english', undefined],
      ['constructor', undefined],
      ['', undefined],
      [undefined, undefined],
    ] as const)
      expect(localeOf(tag), String(tag)).to.equal(locale);
  });
});
