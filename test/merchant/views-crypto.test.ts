// The merchant backend's shopper views (server/merchant/widget-api/views.ts): crypto methods and deposits in the
// widget shape (docs/design.md, "Crypto", paymentUri through server/common/payment-uri.ts) and a bank transfer's unique
// code, against the real payment service.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Checkout, Deposit } from '@kasir/checkout';
import type { Deposit as UpstreamDeposit } from '../../server/merchant/client/types';
import { depositView } from '../../server/merchant/widget-api/views';
import { call, merchantApp, methodOf, startUpstream, type Envelope, type Upstream } from './support';

describe('merchant views: crypto and bank transfer', () => {
  let up: Upstream;
  let app: ReturnType<typeof merchantApp>;
  before(async () => {
    up = await startUpstream();
    app = merchantApp(up);
  });
  after(async () => {
    await up.close();
  });

  const newCheckout = async () =>
    (await call<Envelope<Checkout>>(app, 'POST', '/api/checkouts', { amount: '150000', currency: 'IDR' })).json.data;
  const choose = (id: string, method: string) =>
    call<Envelope<Deposit>>(app, 'POST', `/api/checkouts/${id}/deposit`, { method });

  it('lists the cryptos after the fiat methods, each with its exact token total, network and rate', async () => {
    const c = await newCheckout();
    const kinds = c.methods.map((m) => m.kind);
    assert.ok(kinds.indexOf('crypto') > kinds.lastIndexOf('va'));
    assert.deepEqual(methodOf(c, 'USDC-POLYGON'), {
      kind: 'crypto',
      code: 'USDC-POLYGON',
      name: 'USD Coin (Polygon)',
      image: `${up.provider.credentials.baseUrl}/static/logos/usdc.svg`,
      currency: 'USDC-POLYGON',
      fee: '0',
      total: '9.093665',
      available: true,
      symbol: 'USDC',
      network: 'POLYGON',
      networkName: 'Polygon',
      decimals: 6,
      exchangeRate: { from: 'USDC-POLYGON', to: 'IDR', rate: '16495' },
    });
    assert.equal(methodOf(c, 'ETH-ETHEREUM').total, '0.00272728'); // 8 places, no trailing zeros (docs/design.md, "The shopper's choice, on any device")
    assert.equal(methodOf(c, 'IDRX-POLYGON').total, '150000');
    assert.equal(methodOf(c, 'BCA_TRANSFER').kind, 'bank');
  });

  it('shows a crypto deposit its address, exact amount, network and the EIP-681 request the hosted page shows too', async () => {
    const c = await newCheckout();
    const { status, json } = await choose(c.id, 'USDC-POLYGON');
    assert.equal(status, 201);
    const d = json.data;
    assert.deepEqual(
      [d.id, d.method.kind, d.method.code, d.currency, d.amount, d.fee],
      [c.id, 'crypto', 'USDC-POLYGON', 'USDC-POLYGON', '9.093665', '0'],
    );
    assert.deepEqual([d.symbol, d.network, d.networkName, d.decimals], ['USDC', 'POLYGON', 'Polygon', 6]);
    assert.match(d.address!, /^0x[0-9a-fA-F]{40}$/); // EIP-55 mixed case, as the service sends it
    assert.equal(
      d.paymentUri,
      `ethereum:0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359@137/transfer?address=${d.address}&uint256=9093665`,
    );
    assert.deepEqual(d.exchangeRate, { from: 'USDC-POLYGON', to: 'IDR', rate: '16495' });
    const hosted = (await (
      await fetch(`${up.provider.credentials.baseUrl}/checkout/api/checkouts/${c.id}/deposit`)
    ).json()) as Envelope<Deposit>;
    assert.equal(hosted.data.paymentUri, d.paymentUri);
    assert.equal(hosted.data.amount, d.amount);
  });

  it("keeps an 18-decimal coin's amount exact into the wei of the payment request, as shown: 8 places, no trailing zeros", async () => {
    const c = await newCheckout();
    const d = (await choose(c.id, 'ETH-ETHEREUM')).json.data;
    assert.equal(d.amount, '0.00272728');
    assert.equal(d.paymentUri, `ethereum:${d.address}@1?value=2727280000000000`);
  });

  it('gives Stellar deposits a SEP-7 request with the memo (docs/indonesian-payments.md)', async () => {
    const c = await newCheckout();
    const d = (await choose(c.id, 'XLM-STELLAR')).json.data;
    assert.equal(d.memoType, 'id');
    assert.equal(
      d.paymentUri,
      `web+stellar:pay?destination=${d.address}&amount=30.3030304&memo=${d.memo}&memo_type=MEMO_ID`,
    );
  });

  it('shows a bank transfer its collection account and the unique code its amount was raised by', async () => {
    const c = await newCheckout();
    const d = (await choose(c.id, 'MANDIRI_TRANSFER')).json.data;
    assert.equal(d.method.kind, 'bank');
    assert.match(d.uniqueCode!, /^\d{1,3}$/);
    assert.equal(d.amount, String(150000 + Number(d.uniqueCode)));
    assert.deepEqual([d.accountNumber, d.accountName], ['1230009876543', 'PT Kasir Sandbox Indonesia']);
  });

  it("does not count a bank transfer's unique code as the shopper's fee", async () => {
    const shopperPays = merchantApp(up, { feesPaidBy: 'shopper' });
    const c = (
      await call<Envelope<Checkout>>(shopperPays, 'POST', '/api/checkouts', { amount: '100000', currency: 'IDR' })
    ).json.data;
    const d = (
      await call<Envelope<Deposit>>(shopperPays, 'POST', `/api/checkouts/${c.id}/deposit`, { method: 'BRI_TRANSFER' })
    ).json.data;
    assert.deepEqual([d.amount, d.fee], [String(100000 + Number(d.uniqueCode)), '0']);
  });

  describe("a crypto deposit without the session's method at hand", () => {
    const upstream: UpstreamDeposit = {
      id: 'r1',
      depositId: 'c1',
      depositType: 'crypto',
      userId: 'u1',
      inputCurrency: 'USDC-POLYGON',
      inputAmount: 9.5,
      outputCurrency: 'IDR',
      exchangeRate: 16495,
      outputAmount: 156702,
      fee: { amount: 0, percentage: 0, currency: 'USDC-POLYGON' },
      status: 'pending',
      paymentFiat: {},
      paymentCrypto: { payoutWallet: '0x52908400098527886e0f7030069857d2e4169ee7', network: 'POLYGON' },
      activityHistory: [],
      reference: '',
      note: '',
      bankNote: '',
      paidAmount: 0,
      remainingAmount: 9.5,
      overpaidAmount: 0,
      paidValue: 0,
      remainingValue: 156702,
      overpaidValue: 0,
      orderCurrency: 'IDR',
      payments: [],
      exchangeInfo: { exchangeRate: 16495, outputCurrency: 'IDR', outputAmount: 156702 },
      expiredAt: '2026-11-23T17:00:00.000Z',
      createdAt: '2026-11-23T16:00:00.000Z',
      updatedAt: '2026-11-23T16:00:00.000Z',
      version: 1,
    };

    it('names the asset from its id and shows the address, but no payment request it cannot build', () => {
      const d = depositView(upstream, { feesPaidBy: 'merchant' });
      assert.deepEqual(
        [d.method.kind, d.symbol, d.network, d.amount, d.address, d.paymentUri],
        ['crypto', 'USDC', 'POLYGON', '9.5', upstream.paymentCrypto.payoutWallet, undefined],
      );
      assert.deepEqual(d.exchangeRate, { from: 'USDC-POLYGON', to: 'IDR', rate: '16495' });
    });

    it('builds the request once the method is known', () => {
      const crypto = {
        symbol: 'USDC',
        network: 'POLYGON',
        networkName: 'Polygon',
        decimals: 6,
        blockchainType: 'EVM' as const,
        chainId: 137,
        address: '0xToken',
      };
      const d = depositView(upstream, {
        feesPaidBy: 'merchant',
        methods: [{ bankCode: 'USDC-POLYGON', bankName: 'USD Coin', depositPaymentType: 'crypto', image: '', crypto }],
      });
      assert.equal(d.amount, '9.5');
      assert.equal(
        d.paymentUri,
        `ethereum:0xToken@137/transfer?address=${upstream.paymentCrypto.payoutWallet}&uint256=9500000`,
      );
    });
  });
});
