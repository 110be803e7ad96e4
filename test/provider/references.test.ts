import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isStellarAccountId } from '../../server/common/crypto-address';
import type { CryptoReference, CurrencyReference } from '../../server/provider/catalog/routes';
import { bodyOf, dataOf, errorOf, type Envelope } from '../support/envelope';
import { createTestProvider, type TestProvider } from '../support/provider';

describe('reference lists (deprecated)', () => {
  let p: TestProvider;
  before(async () => {
    p = await createTestProvider();
  });
  after(async () => {
    await p.close();
  });
  const get = (path: string) => p.app.request(`http://localhost${path}`);
  const cryptos = async (query = '') => dataOf<CryptoReference[]>(await get(`/v1/reference/cryptos${query}`));

  it('GET /v1/reference/currencies: every field of 2.4, no auth, a Deprecation header', async () => {
    const res = await get('/v1/reference/currencies');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('deprecation')!, /^@\d+$/);
    const body = await bodyOf<Envelope<CurrencyReference[]>>(res);
    assert.equal(body.statusCode, 200);
    const find = (code: string) => body.data.find((c) => c.currency === code)!;
    const idr = find('IDR');
    assert.deepEqual(
      Object.keys(idr).sort(),
      [
        '_id',
        'id',
        'value',
        'currency',
        'countryCode',
        'logo',
        'name',
        'country',
        'symbol',
        'requireBankName',
        'requireIfsc',
        'requireIban',
        'requireAchOrWire',
        'requireAccountNumber',
      ].sort(),
    );
    assert.deepEqual(
      [idr.countryCode, idr.symbol, idr.country, idr.requireAccountNumber],
      ['ID', 'Rp', 'Indonesia', true],
    );
    assert.equal(find('INR').requireIfsc, true);
    assert.equal(find('EUR').requireIban, true);
    assert.equal(find('USD').requireAchOrWire, true);
    for (const c of body.data) {
      for (const k of ['_id', 'id', 'value', 'currency', 'countryCode', 'logo', 'name', 'country', 'symbol'] as const)
        assert.equal(typeof c[k], 'string', k);
      assert.equal((await get(new URL(c.logo).pathname)).status, 200, c.logo);
    }
  });

  it('GET /v1/reference/cryptos: EVM and Stellar assets with every field of 2.5', async () => {
    const res = await get('/v1/reference/cryptos');
    assert.equal(res.status, 200);
    assert.ok(res.headers.get('deprecation'));
    const data = await dataOf<CryptoReference[]>(res);
    assert.ok(data.length >= 8);
    for (const k of data) {
      assert.deepEqual(
        Object.keys(k).sort(),
        [
          '_id',
          'address',
          'chainId',
          'currencies',
          'decimal',
          'id',
          'is_native',
          'label',
          'logo',
          'name',
          'priceId',
          'symbol',
        ].sort(),
      );
      assert.match(k.id, /^[A-Z]+-[A-Z]+$/);
      assert.ok(Number.isInteger(k.chainId) && Number.isInteger(k.decimal));
      assert.ok(Array.isArray(k.currencies) && k.currencies.length > 0);
      if (k.is_native) assert.equal(k.address, '');
      else if (k.id.endsWith('-STELLAR')) assert.ok(isStellarAccountId(k.address), k.address);
      else assert.match(k.address, /^0x[0-9a-fA-F]{40}$/);
    }
    const usdcPolygon = data.find((k) => k.id === 'USDC-POLYGON')!;
    assert.deepEqual(
      [usdcPolygon.chainId, usdcPolygon.decimal, usdcPolygon.symbol, usdcPolygon.is_native],
      [137, 6, 'USDC', false],
    );
    assert.ok(usdcPolygon.currencies.includes('IDR'));
    assert.equal(data.find((k) => k.id === 'XLM-STELLAR')!.decimal, 7);
  });

  it('filters by blockchainType: STELLAR and EVM split the list; empty means all', async () => {
    const all = await cryptos();
    const stellar = await cryptos('?blockchainType=STELLAR');
    const evm = await cryptos('?blockchainType=EVM');
    assert.ok(stellar.length > 0 && evm.length > 0);
    assert.ok(stellar.every((k) => k.id.endsWith('-STELLAR')));
    assert.ok(evm.every((k) => !k.id.endsWith('-STELLAR')));
    assert.equal(stellar.length + evm.length, all.length);
    assert.equal((await cryptos('?blockchainType=')).length, all.length);
  });

  it('filters by useSmartContract: true and false split the list, native coins are not smart; empty means all', async () => {
    const all = await cryptos();
    const smart = await cryptos('?useSmartContract=true');
    const notSmart = await cryptos('?useSmartContract=false');
    assert.ok(smart.length > 0 && notSmart.length > 0);
    assert.equal(smart.length + notSmart.length, all.length);
    assert.ok(smart.every((k) => !k.is_native));
    assert.equal((await cryptos('?useSmartContract=')).length, all.length);
  });

  it('combines the two filters', async () => {
    assert.deepEqual(await cryptos('?useSmartContract=true&blockchainType=STELLAR'), []);
  });

  it('rejects bad filter values with a 400 naming the parameter', async () => {
    for (const [q, field] of [
      ['useSmartContract=maybe', 'useSmartContract'],
      ['blockchainType=SOLANA', 'blockchainType'],
    ]) {
      const res = await get(`/v1/reference/cryptos?${q}`);
      assert.equal(res.status, 400);
      assert.match((await errorOf(res)).message, new RegExp(`^${field}: `));
    }
  });
});
