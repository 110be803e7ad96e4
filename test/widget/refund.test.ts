// The refund form (part="refund", docs/refunds.md) in real Chromium against the fake widget API, its refund-claim
// routes answered here as the merchant backend answers them: offered when money is owed back and the backend takes
// claims; a bank account (banks of the currency, the fields the shop does not know) or a crypto address on the
// deposit's network (EIP-55, Stellar with memo) checked before sending; the body never carries an amount; then
// part="result" says the shop has the details. Clean under axe-core in English and Indonesian.
import { expect, waitUntil } from '@open-wc/testing';
import type { KasirCheckout } from '../../widget/kasir-checkout';
import type { Deposit, RefundClaim } from '../../widget/types';
import { FakeApi } from './fake-api';
import { checked, choose, mount, part, reached, text, withFakeApi } from './fixture';

const EVM = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const STELLAR = 'GCKFBEIYV2U22IO2BJ4KVJOIP7XPWQGQFKKWXR6DOSJBV7STMAQSMTGG';
const BANKS = [
  { code: 'BCA', name: 'Bank Central Asia' },
  { code: 'BNI', name: 'Bank Negara Indonesia' },
];

interface Claims {
  posts: Array<{ id: string; body: Record<string, string> }>;
  gets: number;
  /** What GET answers instead of the offer (a backend that takes no claims, or none at all). */
  answer?: { status: number; body: unknown };
  /** What POST answers instead of taking the claim. */
  refuse?: { status: number; message: string };
  claimed: Set<string>;
  ask: string[];
  /** What the backend counts instead of the fake deposit's figures (money owed in the currency it arrived in). */
  offer?: Partial<Offer>;
}

type Offer = Extract<RefundClaim, { accepted: true }>;

/** The refund-claim routes of the backend, over the fake's deposits: what is owed is the deposit's, as the backend counts it. */
function refundRoutes(api: FakeApi): Claims {
  const claims: Claims = { posts: [], gets: 0, claimed: new Set(), ask: ['email', 'address', 'city', 'postCode'] };
  const inner = window.fetch;
  const json = (status: number, body: unknown) =>
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  window.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const match = new URL(String(input), location.href).pathname.match(/\/checkouts\/([^/]+)\/refund-claim$/);
    if (!match) return inner(input, init);
    const id = decodeURIComponent(match[1]);
    const d = api.checkouts.get(id)!.deposit as Deposit;
    const owed = d.status === 'expired' ? d.paidAmount : d.status === 'completed' ? d.overpaidAmount : '0';
    const crypto = d.method.kind === 'crypto';
    const kind = crypto ? 'crypto' : 'bank';
    const claimed = claims.claimed.has(id);
    const offer: Offer = {
      accepted: true,
      owed: +owed ? [{ amount: owed, currency: d.currency, kind, claimed: claimed ? owed : '0' }] : [],
      amount: owed,
      currency: d.currency,
      claimed,
      kind,
      ...(crypto
        ? {
            symbol: d.symbol,
            network: d.network,
            networkName: d.networkName,
            chain: d.network === 'STELLAR' ? 'STELLAR' : 'EVM',
          }
        : { banks: BANKS, ask: claims.ask as never }),
      ...claims.offer,
    };
    if ((init?.method ?? 'GET') === 'GET') {
      claims.gets++;
      if (claims.answer) return json(claims.answer.status, claims.answer.body);
      return json(200, { statusCode: 200, message: 'Success', data: offer });
    }
    const body = JSON.parse(String(init!.body));
    claims.posts.push({ id, body });
    if (claims.refuse)
      return json(claims.refuse.status, {
        statusCode: claims.refuse.status,
        error: 'Bad Request',
        message: claims.refuse.message,
      });
    if (claims.claimed.has(id))
      return json(409, { statusCode: 409, error: 'Conflict', message: 'A refund was already requested' });
    claims.claimed.add(id);
    // The offer as it is now: a test's own (another currency may still be owed), else all of it claimed.
    const now = claims.offer ? offer : { ...offer, claimed: true };
    return json(201, { statusCode: 201, message: 'Refund details received', data: now });
  }) as typeof fetch;
  return claims;
}

const root = (el: KasirCheckout) => el.shadowRoot!;
const field = (el: KasirCheckout, name: string) =>
  root(el).querySelector<HTMLInputElement | HTMLSelectElement>(`[part="refund"] [name="${name}"]`);
const errorOf = (el: KasirCheckout, name: string) => {
  const input = field(el, name)!;
  return input.getAttribute('aria-invalid') === 'true'
    ? text(root(el).getElementById(input.getAttribute('aria-describedby')!))
    : '';
};
const fillIn = (el: KasirCheckout, values: Record<string, string>) => {
  for (const [name, value] of Object.entries(values)) field(el, name)!.value = value;
};
const send = async (el: KasirCheckout) => {
  part(el, 'refund')!.querySelector<HTMLButtonElement>('button')!.click();
  await new Promise((r) => setTimeout(r, 30));
  await el.updateComplete;
};

/** Waits until the element shows the deposit as the fake now has it (the next read). */
async function check(el: KasirCheckout) {
  await checked(el); // a click while a check is in flight does nothing ("check now" is disabled)
  part(el, 'check-now')?.click();
  await el.updateComplete;
  await checked(el);
  await el.updateComplete;
}

/** A bank transfer with `paid` received, then expired: money is owed back. */
async function expiredWithMoney(api: FakeApi, locale = 'en', paid = '50000') {
  const el = await mount({ locale });
  await choose(el, 'BCA_TRANSFER');
  api.pay(api.only.id, paid);
  await check(el);
  api.settle(api.only.id, 'expired');
  await check(el);
  await reached(el, 'expired');
  return el;
}

describe('<kasir-checkout> refund form (part="refund")', () => {
  let api: FakeApi;
  let claims: Claims;
  withFakeApi((a) => (api = a));
  beforeEach(() => (claims = refundRoutes(api)));

  it('a bank account: the banks, the fields the shop does not know, each checked and named; sends no amount; then the shop has the details', async () => {
    const el = await expiredWithMoney(api);
    await waitUntil(() => part(el, 'refund'), 'no refund form');
    expect(part(el, 'result')!.contains(part(el, 'refund'))).to.equal(true);
    expect(text(part(el, 'refund')!.querySelector('p'))).to.equal(
      'The shop owes you Rp 50,000. Tell it which bank account to send it to.',
    );
    expect([...(field(el, 'bankCode') as HTMLSelectElement).options].map((o) => o.value)).to.deep.equal([
      '',
      'BCA',
      'BNI',
    ]);
    expect([...root(el).querySelectorAll('[part="refund"] input')].map((i) => i.getAttribute('name'))).to.deep.equal([
      'accountNumber',
      'accountName',
      'email',
      'address',
      'city',
      'postCode',
    ]);
    await expect(el).to.be.accessible();

    await send(el);
    expect(claims.posts).to.have.length(0);
    for (const name of ['bankCode', 'accountNumber', 'accountName', 'email', 'address', 'city', 'postCode'])
      expect(errorOf(el, name), name).to.equal('Required.');
    expect(root(el).activeElement).to.equal(field(el, 'bankCode'));
    await expect(el).to.be.accessible();

    fillIn(el, {
      bankCode: 'BCA',
      accountNumber: '12',
      accountName: 'Siti Rahma',
      email: 'siti',
      address: 'Jl. Merdeka 1',
      city: 'Bandung',
      postCode: '40111',
    });
    await send(el);
    expect([errorOf(el, 'accountNumber'), errorOf(el, 'email'), errorOf(el, 'bankCode')]).to.deep.equal([
      'Enter 5 to 34 digits or letters.',
      'Enter an email address, e.g. name@example.com.',
      '',
    ]);
    expect(root(el).activeElement).to.equal(field(el, 'accountNumber'));
    expect(claims.posts).to.have.length(0);

    fillIn(el, { accountNumber: '0123 4567 89', email: 'siti@example.com' });
    await send(el);
    await waitUntil(() => !part(el, 'refund'), 'the form stays');
    expect(claims.posts).to.deep.equal([
      {
        id: api.only.id,
        body: {
          bankCode: 'BCA',
          accountNumber: '0123 4567 89',
          accountName: 'Siti Rahma',
          email: 'siti@example.com',
          address: 'Jl. Merdeka 1',
          city: 'Bandung',
          postCode: '40111',
          currency: 'IDR',
        },
      },
    ]);
    expect(text(part(el, 'result'))).to.contain(
      'Thank you. The shop has your refund details and will send you Rp 50,000.',
    );
    expect(root(el).querySelector('[part="result"] [role="status"]')).to.not.equal(null);
    await expect(el).to.be.accessible();
  });

  it('in Indonesian, asking only what the shop does not know; a field the backend refuses is shown at the field', async () => {
    claims.ask = ['email'];
    const el = await expiredWithMoney(api, 'id');
    await waitUntil(() => part(el, 'refund'));
    expect(text(part(el, 'refund')!.querySelector('h3'))).to.equal('Ke mana dana Anda dikembalikan?');
    expect(text(part(el, 'refund')!.querySelector('p'))).to.equal(
      'Toko akan mengembalikan Rp 50.000 kepada Anda. Beri tahu rekening bank tujuannya.',
    );
    expect([...root(el).querySelectorAll('[part="refund"] input')].map((i) => i.getAttribute('name'))).to.deep.equal([
      'accountNumber',
      'accountName',
      'email',
    ]);
    await expect(el).to.be.accessible();
    await send(el);
    expect(errorOf(el, 'accountName')).to.equal('Wajib diisi.');
    await expect(el).to.be.accessible();

    claims.refuse = { status: 400, message: 'bankCode: choose one of the banks listed for IDR' };
    fillIn(el, { bankCode: 'BNI', accountNumber: '5550001112', accountName: 'Budi', email: 'budi@example.com' });
    await send(el);
    await waitUntil(() => errorOf(el, 'bankCode'));
    expect(errorOf(el, 'bankCode')).to.equal('choose one of the banks listed for IDR');
    // Refused for its order token: the shopper reads the form's own words, not the developer's.
    claims.refuse = { status: 401, message: "orderToken: send the order's token with the request" };
    await send(el);
    await waitUntil(() => root(el).querySelector('[part="refund"] [role="alert"]'));
    expect(text(root(el).querySelector('[part="refund"] [role="alert"]'))).to.equal(
      'Data pengembalian dana tidak dapat dikirim. Silakan coba lagi.',
    );
    claims.refuse = {
      status: 503,
      message: 'The shop could not take the refund details just now; please try again in a moment',
    };
    await send(el);
    await waitUntil(() => root(el).querySelector('[part="refund"] [role="alert"]'));
    expect(text(root(el).querySelector('[part="refund"] [role="alert"]'))).to.equal(
      'Data pengembalian dana tidak dapat dikirim. Silakan coba lagi.',
    );
    claims.refuse = undefined;
    await send(el);
    await waitUntil(() => !part(el, 'refund'));
    expect(text(part(el, 'result'))).to.contain(
      'Toko telah menerima data pengembalian dana Anda dan akan mengirimkan Rp 50.000.',
    );
  });

  for (const [locale, intro, sent] of [
    [
      'en',
      'The shop owes you Rp 100,000. Tell it which bank account to send it to.',
      'The shop has your refund details and will send you Rp 100,000.',
    ],
    [
      'id',
      'Toko akan mengembalikan Rp 100.000 kepada Anda. Beri tahu rekening bank tujuannya.',
      'Toko telah menerima data pengembalian dana Anda dan akan mengirimkan Rp 100.000.',
    ],
  ])
    it(`rupiah paid by transfer, then a switch to USDC and an expiry: the form asks for a bank account for the rupiah (${locale})`, async () => {
      // What the backend counts after a fiat-then-crypto switch: the rupiah, owed to a bank account, whatever the method now.
      const idr = { amount: '100000', currency: 'IDR', kind: 'bank' as const };
      claims.offer = { ...idr, owed: [{ ...idr, claimed: '0' }], banks: BANKS, ask: [] };
      const el = await mount({ locale });
      await choose(el, 'USDC-POLYGON');
      api.pay(api.only.id, '1');
      await check(el);
      api.settle(api.only.id, 'expired');
      await check(el);
      await reached(el, 'expired');
      await waitUntil(() => part(el, 'refund'), 'no refund form');
      expect(text(part(el, 'refund')!.querySelector('p'))).to.equal(intro);
      expect(field(el, 'bankCode'), 'a bank is asked').to.not.equal(null);
      expect([...root(el).querySelectorAll('[part="refund"] input')].map((i) => i.getAttribute('name'))).to.deep.equal([
        'accountNumber',
        'accountName',
      ]);
      await expect(el).to.be.accessible();
      fillIn(el, { bankCode: 'BCA', accountNumber: '0123456789', accountName: 'Siti Rahma' });
      claims.offer = { ...claims.offer, amount: '0', claimed: true, owed: [{ ...idr, claimed: '100000' }] };
      await send(el);
      await waitUntil(() => !part(el, 'refund'), 'the form stays');
      expect(claims.posts.map((p) => p.body.currency)).to.deep.equal(['IDR']);
      expect(text(part(el, 'result'))).to.contain(sent);
    });

  it('rupiah and USDC owed: the list per currency, the form for each in turn, each claim naming its currency', async () => {
    const idr = { amount: '100000', currency: 'IDR', kind: 'bank' as const };
    const usdc = { amount: '1', currency: 'USDC-POLYGON', kind: 'crypto' as const };
    const polygon = { symbol: 'USDC', network: 'POLYGON', networkName: 'Polygon', chain: 'EVM' as const };
    claims.offer = {
      ...idr,
      owed: [
        { ...idr, claimed: '0' },
        { ...usdc, claimed: '0' },
      ],
      banks: BANKS,
      ask: [],
    };
    const el = await mount();
    await choose(el, 'USDC-POLYGON');
    api.pay(api.only.id, '1');
    await check(el);
    api.settle(api.only.id, 'expired');
    await check(el);
    await reached(el, 'expired');
    await waitUntil(() => part(el, 'refund'), 'no refund form');
    const owedList = () => [...root(el).querySelectorAll('[part="refund-owed"] li')].map((li) => text(li));
    expect(owedList()).to.deep.equal([
      'Rp 100,000: where to send it is still to tell.',
      '1 USDC: where to send it is still to tell.',
    ]);
    expect(field(el, 'bankCode')).to.not.equal(null);
    await expect(el).to.be.accessible();
    fillIn(el, { bankCode: 'BCA', accountNumber: '0123456789', accountName: 'Siti Rahma' });
    claims.offer = {
      ...usdc,
      ...polygon,
      banks: undefined,
      ask: undefined,
      owed: [
        { ...idr, claimed: '100000' },
        { ...usdc, claimed: '0' },
      ],
    };
    await send(el);
    await waitUntil(() => field(el, 'address'), 'the form for the USDC');
    expect(owedList()).to.deep.equal([
      'Rp 100,000: the shop has your details.',
      '1 USDC: where to send it is still to tell.',
    ]);
    fillIn(el, { address: EVM });
    claims.offer = {
      ...claims.offer,
      amount: '0',
      claimed: true,
      owed: [
        { ...idr, claimed: '100000' },
        { ...usdc, claimed: '1' },
      ],
    };
    await send(el);
    await waitUntil(() => !part(el, 'refund'), 'the form stays');
    expect(claims.posts.map((p) => p.body.currency)).to.deep.equal(['IDR', 'USDC-POLYGON']);
    expect(text(part(el, 'result'))).to.contain('will send you Rp 100,000 + 1 USDC.');
  });

  it('money after a claim: the form is asked for again, listing what the shop has details for apart from the rest', async () => {
    claims.ask = [];
    const el = await expiredWithMoney(api);
    await waitUntil(() => part(el, 'refund'), 'no refund form');
    fillIn(el, { bankCode: 'BCA', accountNumber: '0123456789', accountName: 'Siti Rahma' });
    await send(el);
    await waitUntil(() => !part(el, 'refund'), 'the form stays');
    // Rp 30,000 more arrives late: all of Rp 80,000 is owed, Rp 50,000 of it claimed.
    const idr = { currency: 'IDR', kind: 'bank' as const };
    claims.claimed.clear();
    claims.offer = { ...idr, amount: '30000', claimed: false, owed: [{ ...idr, amount: '80000', claimed: '50000' }] };
    const asked = claims.gets;
    api.pay(api.only.id, '30000');
    // The element keeps following an expired deposit (money may come late): its next read brings the form back.
    await waitUntil(() => part(el, 'refund'), 'no form for the money that came after the claim', { timeout: 15_000 });
    expect(claims.gets).to.be.above(asked);
    expect([...root(el).querySelectorAll('[part="refund-owed"] li')].map((li) => text(li))).to.deep.equal([
      'Rp 50,000: the shop has your details.',
      'Rp 30,000: where to send it is still to tell.',
    ]);
    expect(text(part(el, 'refund')!.querySelector('p'))).to.equal(
      'The shop owes you Rp 30,000. Tell it which bank account to send it to.',
    );
    expect(text(part(el, 'result'))).to.contain(
      'Rp 80,000 was received, not all of it before the time to pay ran out: the shop will refund it.',
    );
    await expect(el).to.be.accessible();
  });

  it('crypto on an EVM network: an overpayment is owed; the address is checked (EIP-55) before it is sent', async () => {
    const el = await mount();
    await choose(el, 'USDC-POLYGON');
    api.pay(api.only.id, '10.292308');
    await check(el);
    await reached(el, 'completed');
    await waitUntil(() => part(el, 'refund'), 'no refund form');
    expect(text(part(el, 'refund')!.querySelector('p'))).to.equal(
      'The shop owes you 1 USDC. Give an address on Polygon to send it to.',
    );
    expect(text(part(el, 'refund')!.querySelector('label'))).to.equal('Your USDC address on Polygon');
    expect(field(el, 'memo')).to.equal(null);
    await expect(el).to.be.accessible();
    for (const wrong of ['0x1234', `0x5A${EVM.slice(4)}`, STELLAR]) {
      fillIn(el, { address: wrong });
      await send(el);
      expect(errorOf(el, 'address'), wrong).to.equal('This is not an address on Polygon. Check it for a typo.');
    }
    expect(claims.posts).to.have.length(0);
    await expect(el).to.be.accessible();
    fillIn(el, { address: EVM });
    await send(el);
    await waitUntil(() => !part(el, 'refund'));
    expect(claims.posts.map((p) => p.body)).to.deep.equal([{ address: EVM, currency: 'USDC-POLYGON' }]);
    expect(text(part(el, 'result'))).to.contain('The shop has your refund details and will send you 1 USDC.');
  });

  it('crypto on Stellar, in Indonesian: the account id is checked and a memo may be given', async () => {
    const el = await mount({ locale: 'id' });
    await choose(el, 'XLM-STELLAR');
    api.settle(api.only.id, 'expired');
    await check(el);
    await reached(el, 'expired');
    api.pay(api.only.id, '100');
    el.remove();
    const again = await mount({ 'checkout-id': api.only.id, locale: 'id' });
    await waitUntil(() => part(again, 'refund'), 'no refund form');
    expect(field(again, 'memo')).to.not.equal(null);
    await expect(again).to.be.accessible();
    fillIn(again, { address: `${STELLAR.slice(0, 10)}A${STELLAR.slice(11)}`, memo: 'x'.repeat(29) });
    await send(again);
    expect(errorOf(again, 'address')).to.equal('Ini bukan alamat di jaringan Stellar. Periksa kembali penulisannya.');
    expect(errorOf(again, 'memo')).to.equal('Memo berupa angka, atau paling banyak 28 karakter.');
    await expect(again).to.be.accessible();
    fillIn(again, { address: STELLAR, memo: '1234567890' });
    await send(again);
    await waitUntil(() => !part(again, 'refund'));
    expect(claims.posts.map((p) => p.body)).to.deep.equal([
      { address: STELLAR, memo: '1234567890', currency: 'XLM-STELLAR' },
    ]);
  });

  it('no form where none is taken (the hosted page), none with nothing owed, and the details line when a claim was made before', async () => {
    // The backend takes no claims: the element's words stand alone, and nothing is reported as an error.
    claims.answer = { status: 200, body: { statusCode: 200, message: 'Success', data: { accepted: false } } };
    const errors: unknown[] = [];
    document.addEventListener('kasir-error', (e) => errors.push(e));
    const el = await expiredWithMoney(api);
    await waitUntil(() => claims.gets === 1);
    await el.updateComplete;
    expect(part(el, 'refund')).to.equal(null);
    expect(text(part(el, 'result'))).to.contain('the shop will refund it');
    el.remove();
    // An older backend without the route: the same.
    claims.answer = { status: 404, body: { statusCode: 404, error: 'Not Found', message: 'Route not found' } };
    const older = await mount({ 'checkout-id': api.only.id });
    await reached(older, 'expired');
    await waitUntil(() => claims.gets === 2);
    await older.updateComplete;
    expect(part(older, 'refund')).to.equal(null);
    expect(errors).to.have.length(0);
    older.remove();
    // Made before (another tab): the details line, no form.
    claims.answer = undefined;
    claims.claimed.add(api.only.id);
    const claimed = await mount({ 'checkout-id': api.only.id });
    await waitUntil(
      () => text(part(claimed, 'result')).includes('The shop has your refund details'),
      text(part(claimed, 'result')),
    );
    expect(part(claimed, 'refund')).to.equal(null);
    claimed.remove();
    // Paid exactly: nothing owed, nothing asked.
    sessionStorage.clear();
    const paid = await mount();
    await choose(paid, 'BCA_VA');
    api.pay(api.only.id);
    await check(paid);
    await reached(paid, 'completed');
    await new Promise((r) => setTimeout(r, 100));
    expect(part(paid, 'refund')).to.equal(null);
    expect(claims.gets).to.equal(3);
  });
});
