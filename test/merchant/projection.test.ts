// One projection of the widget API: the merchant backend (from the payment service's HTTP answers)
// and the sandbox's hosted checkout (from its rows) answer the same Checkout and Deposit for one checkout, field for
// field, because both call server/common/widget-projection.ts; and no other server module makes those fields.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Checkout, Deposit } from '@kasir/checkout';
import { call, merchantApp, type Envelope, type Upstream, startUpstream } from './support';

const SERVER = fileURLToPath(new URL('../../server/', import.meta.url));

/** The server's own TypeScript sources (no build output, no generated types). */
function sources(dir = SERVER): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'dist' || entry.name === 'node_modules' ? [] : sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

describe('the widget API is made in one place', () => {
  // Fields only the widget's shapes have: whoever writes them builds a widget Checkout or Deposit.
  const makers: Array<[string, RegExp]> = [
    ['the wallet payment request', /(?<!function )\bpaymentUri\(/],
    ['paidLate', /\bpaidLate:/],
    ['capabilities', /\bcapabilities:/],
  ];
  for (const [what, pattern] of makers) {
    it(`${what}: only server/common/widget-projection.ts writes it`, () => {
      const writers = sources()
        .filter((file) => pattern.test(readFileSync(file, 'utf8')))
        .map((file) => relative(SERVER, file));
      assert.deepEqual(writers, ['common/widget-projection.ts']);
    });
  }
});

describe('the merchant backend and the hosted checkout answer the same widget API', () => {
  let up: Upstream;
  before(async () => {
    up = await startUpstream();
  });
  after(async () => {
    await up.close();
  });

  const hosted = async <T>(path: string): Promise<T> => {
    const res = await fetch(`${up.provider.credentials.baseUrl}/checkout/api${path}`);
    assert.equal(res.status, 200, path);
    return ((await res.json()) as Envelope<T>).data;
  };
  const withoutTime = <T extends { serverTime: string }>(value: T): Omit<T, 'serverTime'> => {
    const { serverTime: _, ...rest } = value;
    return rest;
  };
  /** A checkout as both show it, but for the capabilities only the merchant backend has (server-sent events). */
  const sameCheckout = (mine: Checkout, theirs: Checkout) => {
    const { capabilities: _m, deposit: mineDeposit, ...a } = withoutTime(mine);
    const { capabilities: _t, deposit: theirDeposit, ...b } = withoutTime(theirs);
    assert.deepEqual(a, b);
    assert.deepEqual(mineDeposit && withoutTime(mineDeposit), theirDeposit && withoutTime(theirDeposit));
  };

  /** A part of what is due (150,000 IDR, about 9.09 USDC, 0.0027 ETH, 30.3 XLM), for the methods that take any amount. */
  const PARTS: Record<string, string> = {
    BRI_TRANSFER: '50000',
    'USDC-POLYGON': '1.5',
    'ETH-ETHEREUM': '0.001',
    'XLM-STELLAR': '10.25',
  };

  for (const feesPaidBy of ['merchant', 'shopper'] as const) {
    for (const method of ['BCA_VA', 'QRIS', 'OVO', 'BRI_TRANSFER', 'USDC-POLYGON', 'ETH-ETHEREUM', 'XLM-STELLAR']) {
      it(`${method}, ${feesPaidBy} bears the fee: the checkout, the deposit, and after a payment`, async () => {
        const app = merchantApp(up, { feesPaidBy });
        const c = (await call<Envelope<Checkout>>(app, 'POST', '/api/checkouts', { amount: '150000', currency: 'IDR' }))
          .json.data;
        sameCheckout(c, await hosted<Checkout>(`/checkouts/${c.id}`));

        const chosen = await call<Envelope<Deposit>>(app, 'POST', `/api/checkouts/${c.id}/deposit`, { method });
        assert.equal(chosen.status, 201, chosen.text);
        assert.deepEqual(
          withoutTime(chosen.json.data),
          withoutTime(await hosted<Deposit>(`/checkouts/${c.id}/deposit`)),
        );

        // A part for the methods that take any amount (docs/design.md, "Payments that do not go as planned"), the whole
        // for the fixed-amount ones.
        const amount = PARTS[method];
        const part = amount !== undefined;
        const paid = await call<Envelope<Deposit>>(
          app,
          'POST',
          `/api/sandbox/checkouts/${c.id}/pay`,
          amount === undefined ? undefined : { amount },
        );
        assert.equal(paid.status, 200, paid.text);
        assert.equal(paid.json.data.status, part ? 'pending' : 'completed');
        assert.deepEqual(withoutTime(paid.json.data), withoutTime(await hosted<Deposit>(`/checkouts/${c.id}/deposit`)));
        sameCheckout(
          (await call<Envelope<Checkout>>(app, 'GET', `/api/checkouts/${c.id}`)).json.data,
          await hosted<Checkout>(`/checkouts/${c.id}`),
        );
      });
    }
  }
});
