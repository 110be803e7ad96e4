// A fake widget API for component tests: window.fetch and window.EventSource stubbed in the page, answering
// the shapes of widget/WIDGET-API.md from an in-memory checkout, recording every request.
import type { Checkout, Deposit, Method } from '../../widget/types';
import { pageWork } from './fake-clock';

export interface Call {
  method: string;
  path: string;
  body: unknown;
  headers: Headers;
  /** Date.now() when the request was made. */
  at: number;
  /** The request's cache mode, as the element asked it. */
  cache?: RequestCache;
}

const LOGO = 'data:image/gif;base64,R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==';
/** A dynamic QRIS-shaped EMVCo payload (its CRC is not checked by the element). */
export const QR_DATA =
  '00020101021226610016ID.CO.KASIR.WWW01189360091800000000000215KASIR000000000010303UMI51440014ID.CO.QRIS.WWW0215ID10200000000010303UMI5204539953033605406152500' +
  '5802ID5910KASIR DEMO6007JAKARTA61051219062200518ORD-2026-000000016304A1B2';

/** The shop's wallets, where crypto payments go (fakes of the right shape). */
export const WALLET = {
  evm: '0x8ba1f109551bD432803012645Ac136ddd64DBA72',
  stellar: 'GCKFBEIYV2U22IO2BJ4KVJOIP7XPWQGQFKKWXR6DOSJBV7STMAQSMTGG',
};
const USDC_POLYGON = '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359';
const USDC_STELLAR_ISSUER = 'GA5ZSEJYB37JRC5AVCIA5MOP4RHTM335X2KGX3IHOJAPP5RE34K4KZVN';

/**
 * One crypto choice per network kind of docs/design.md, "Crypto", with its deposit's address and wallet payment
 * request.
 */
export const CRYPTO: Array<Method & { address: string; paymentUri: string }> = [
  {
    ...crypto('ETH', 'Ether', 'ETHEREUM', 'Ethereum', 18, '0.004646153846153847', '32500000'),
    address: WALLET.evm,
    paymentUri: `ethereum:${WALLET.evm}@1?value=4646153846153847`,
  },
  {
    ...crypto('USDC', 'USD Coin', 'POLYGON', 'Polygon', 6, '9.292308', '16250'),
    address: WALLET.evm,
    paymentUri: `ethereum:${USDC_POLYGON}@137/transfer?address=${WALLET.evm}&uint256=9292308`,
  },
  {
    ...crypto('XLM', 'Stellar Lumens', 'STELLAR', 'Stellar', 7, '1234.5678901', '122.3'),
    address: WALLET.stellar,
    paymentUri: `web+stellar:pay?destination=${WALLET.stellar}&amount=1234.5678901`,
  },
  {
    ...crypto('USDC', 'USD Coin', 'STELLAR', 'Stellar', 7, '9.2923077', '16250'),
    address: WALLET.stellar,
    paymentUri: `web+stellar:pay?destination=${WALLET.stellar}&amount=9.2923077&asset_code=USDC&asset_issuer=${USDC_STELLAR_ISSUER}`,
  },
];

function crypto(
  symbol: string,
  token: string,
  network: string,
  networkName: string,
  decimals: number,
  total: string,
  rate: string,
): Method {
  const code = `${symbol}-${network}`;
  const fee = `0.${'0'.repeat(decimals - 1)}1`;
  // Named as the payment service names them: the token and its network ("USD Coin (Polygon)").
  return {
    kind: 'crypto',
    code,
    name: `${token} (${networkName})`,
    image: LOGO,
    currency: code,
    fee,
    total,
    available: true,
    symbol,
    network,
    networkName,
    decimals,
    exchangeRate: { from: code, to: 'IDR', rate },
  };
}

const METHODS: Method[] = [
  {
    kind: 'va',
    code: 'BCA_VA',
    name: 'Bank Central Asia Virtual Account',
    image: LOGO,
    currency: 'IDR',
    fee: '4000',
    total: '154000',
    available: true,
  },
  {
    kind: 'va',
    code: 'BNI_VA',
    name: 'Bank Negara Indonesia Virtual Account',
    image: LOGO,
    currency: 'IDR',
    fee: '4000',
    total: '154000',
    available: true,
  },
  {
    kind: 'bank',
    code: 'BCA_TRANSFER',
    name: 'BCA Bank Transfer',
    image: LOGO,
    currency: 'IDR',
    fee: '0',
    total: '150000',
    available: true,
  },
  {
    kind: 'qris',
    code: 'QRIS',
    name: 'QRIS',
    image: LOGO,
    currency: 'IDR',
    fee: '1050',
    total: '151050',
    available: true,
  },
  {
    kind: 'ewallet',
    code: 'OVO',
    name: 'OVO',
    image: LOGO,
    currency: 'IDR',
    fee: '2250',
    total: '152250',
    available: true,
  },
  {
    kind: 'ewallet',
    code: 'DANA',
    name: 'DANA',
    image: LOGO,
    currency: 'IDR',
    fee: '2250',
    total: '152250',
    available: false,
  },
  ...CRYPTO.map(({ address: _, paymentUri: __, ...method }) => method),
];

/** Exact decimal strings as integers of `dp` places (money in the fake is exact too). */
const units = (x: string, dp: number) => {
  const [whole, fraction = ''] = x.split('.');
  return BigInt(whole + fraction.padEnd(dp, '0').slice(0, dp));
};
const decimal = (u: bigint, dp: number) => {
  const digits = u.toString().padStart(dp + 1, '0');
  return dp ? `${digits.slice(0, -dp)}.${digits.slice(-dp)}` : digits;
};
const places = (x: string) => (x.split('.')[1] || '').length;
const max = (a: bigint, b: bigint) => (a > b ? a : b);

export interface FakeOptions {
  events?: boolean;
  /** Server clock minus the page's clock, in ms. */
  skew?: number;
  /** Deposit lifetime per kind, in ms. */
  lifetime?: number;
  checkoutUrl?: string;
  amount?: string;
  /** Method totals the server sends instead of the usual ones, by code (e.g. a crypto total with trailing zeros). */
  totals?: Record<string, string>;
}

export class FakeApi {
  calls: Call[] = [];
  checkouts = new Map<string, Checkout>();
  /** When set, GET .../deposit answers wait until `release()`. */
  hold = false;
  /** With `hold`: a held answer is the deposit as it was when the request was made (a slow network), not as it is. */
  lagging = false;
  /** When set, every request fails with this HTTP status (0: a network error). */
  failWith: number | null = null;
  /** The message of those failures. */
  failMessage = 'Upstream unavailable';
  /** With `failWith`: the body is this text instead of the envelope (a page that is not the widget API). */
  failRaw: string | null = null;
  /** The currencies the shop accepts (its backend refuses others with a 400 naming them). */
  currencies = ['IDR', 'USD'];
  /** Methods the server refuses (400, this message) when chosen, as the payment service refuses a crypto it does not list. */
  refuse: Record<string, string> = {};
  private held: Array<() => void> = [];
  private realFetch = window.fetch;
  private realEventSource = window.EventSource;
  private seq = 0;

  constructor(readonly options: FakeOptions = {}) {}

  get now() {
    return Date.now() + (this.options.skew ?? 0);
  }

  install() {
    window.fetch = ((input: RequestInfo | URL, init?: RequestInit) => this.fetch(String(input), init)) as typeof fetch;
    FakeEventSource.instances = [];
    window.EventSource = FakeEventSource as unknown as typeof EventSource;
    return this;
  }

  uninstall() {
    window.fetch = this.realFetch;
    window.EventSource = this.realEventSource;
  }

  release() {
    const held = this.held;
    this.held = [];
    held.forEach((go) => go());
  }

  requests(method: string, suffix: string) {
    return this.calls.filter((c) => c.method === method && c.path.endsWith(suffix));
  }

  /**
   * What was paid towards each checkout, in its currency (IDR), for pricing the rest (docs/design.md, "Payments that do
   * not go as planned").
   */
  paidValue = new Map<string, bigint>();

  /** The checkout's methods: after a partial payment, priced for what is still due (fees unchanged, crypto rounded up). */
  methodsOf(c: Checkout): Method[] {
    const paid = this.paidValue.get(c.id) ?? 0n;
    if (!paid) return c.methods;
    const rest = units(c.amount, 0) - paid;
    return c.methods.map((m) => {
      if (m.kind !== 'crypto') return { ...m, total: (rest + units(m.fee, 0)).toString() };
      const dp = m.decimals!;
      const rate = m.exchangeRate!.rate;
      const scaled = rest * 10n ** BigInt(dp + places(rate));
      const r = units(rate, places(rate));
      return { ...m, total: decimal((scaled + r - 1n) / r, dp) };
    });
  }

  /**
   * A payment of `amount` (default: what is still due) arriving for the checkout's deposit, as the sandbox's
   * POST /v1/deposit/:id/payments makes one: partial, exact, over, or late (after expiry). A crypto deposit's payment
   * request then asks for the rest.
   */
  pay(id: string, amount?: string) {
    const c = this.checkouts.get(id)!;
    const d = c.deposit!;
    const dp = places(d.amount);
    const due = units(d.amount, dp);
    const received = units(amount ?? d.remainingAmount, dp);
    const paid = units(d.paidAmount, dp) + received;
    const late = d.status !== 'pending';
    const rate = d.exchangeRate && d.method.kind === 'crypto' ? d.exchangeRate.rate : '1';
    this.paidValue.set(
      id,
      (this.paidValue.get(id) ?? 0n) + (received * units(rate, places(rate))) / 10n ** BigInt(dp + places(rate)),
    );
    const rest = decimal(max(due - paid, 0n), dp);
    const now = new Date(this.now).toISOString();
    c.deposit = {
      ...d,
      status: late ? d.status : paid >= due ? 'completed' : 'pending',
      paidAmount: decimal(paid, dp),
      remainingAmount: rest,
      overpaidAmount: decimal(max(paid - due, 0n), dp),
      paidLate: d.paidLate || late,
      ...(d.paymentUri
        ? {
            paymentUri: d.paymentUri
              .replace(/(value=|uint256=)\d+/, `$1${units(rest, dp)}`)
              .replace(/([?&]amount=)[\d.]+/, `$1${rest}`),
          }
        : {}),
      updatedAt: now,
      serverTime: now,
      version: d.version + 1,
    };
    FakeEventSource.instances
      .filter((s) => s.url.includes(id))
      .forEach((s) => s.emit('deposit', this.fresh(c.deposit!)));
    return c.deposit;
  }

  newCheckout(amount = this.options.amount ?? '150000', currency = 'IDR'): Checkout {
    const id = `chk_${++this.seq}_${Math.random().toString(36).slice(2, 8)}`;
    const checkout: Checkout = {
      id,
      currency,
      amount,
      expiresAt: new Date(this.now + 15 * 60_000).toISOString(),
      serverTime: new Date(this.now).toISOString(),
      feesPaidBy: 'shopper',
      capabilities: { events: !!this.options.events },
      methods: METHODS.map((m) => ({ ...m, total: this.options.totals?.[m.code] ?? m.total })),
      deposit: null,
    };
    this.checkouts.set(id, checkout);
    return checkout;
  }

  /** The backend's side of a payment (as the sandbox's pay and expire calls would do). */
  settle(id: string, status: 'completed' | 'expired') {
    const c = this.checkouts.get(id)!;
    c.deposit = {
      ...c.deposit!,
      status,
      updatedAt: new Date(this.now).toISOString(),
      serverTime: new Date(this.now).toISOString(),
      version: c.deposit!.version + 1,
    };
    FakeEventSource.instances
      .filter((s) => s.url.includes(id))
      .forEach((s) => s.emit('deposit', this.fresh(c.deposit!)));
    return c.deposit;
  }

  get only(): Checkout {
    return [...this.checkouts.values()].at(-1)!;
  }

  private fresh<T extends { serverTime: string }>(x: T): T {
    return { ...x, serverTime: new Date(this.now).toISOString() };
  }

  private async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const u = new URL(url, location.href);
    const method = (init.method || 'GET').toUpperCase();
    const body = init.body ? JSON.parse(String(init.body)) : undefined;
    const headers = new Headers(init.headers);
    const path = u.pathname.replace(/^.*?\/api/, '');
    this.calls.push({ method, path, body, headers, at: Date.now(), cache: init.cache });
    if (this.failWith !== null) {
      if (this.failWith === 0) throw new TypeError('Failed to fetch');
      if (this.failRaw !== null)
        return new FakeResponse(this.failRaw, { status: this.failWith, headers: { 'content-type': 'text/html' } });
      return this.json(this.failWith, { statusCode: this.failWith, error: 'Server Error', message: this.failMessage });
    }
    let m: RegExpMatchArray | null;
    if (method === 'POST' && path === '/checkouts') {
      if (body.currency && !this.currencies.includes(body.currency.toUpperCase())) {
        return this.json(400, {
          statusCode: 400,
          error: 'Bad Request',
          message: `currency: this shop accepts ${this.currencies.join(', ')}`,
        });
      }
      // The currency's decimal places are the server's to say (as the merchant backend's words): rupiah has none.
      const code = String(body.currency ?? 'IDR').toUpperCase();
      const dp = code === 'IDR' ? 0 : 2;
      if (body.amount && !dp && /^\d{1,3}(\.\d{3})+$/.test(String(body.amount))) {
        // The merchant backend's words for a thousands separator (server/merchant/widget-api/separators.ts).
        const plain = String(body.amount).split('.').join('');
        const message = `amount: "${body.amount}" is written with "." as a thousands separator; send a plain decimal number without it, e.g. "${plain}"`;
        return this.json(400, { statusCode: 400, error: 'Bad Request', message });
      }
      if (body.amount && places(String(body.amount)) > dp) {
        const message = `amount: ${code} amounts have ${dp ? `at most ${dp} decimal places` : 'no decimal places'}`;
        return this.json(400, { statusCode: 400, error: 'Bad Request', message });
      }
      return this.json(201, {
        statusCode: 201,
        message: 'Created',
        data: this.newCheckout(body.amount, body.currency),
      });
    }
    if ((m = path.match(/^\/checkouts\/([^/]+)(\/deposit)?$/))) {
      const c = this.checkouts.get(decodeURIComponent(m[1]));
      if (!c) return this.json(404, { statusCode: 404, error: 'Not Found', message: 'Checkout not found' });
      if (!m[2])
        return this.json(200, {
          statusCode: 200,
          message: 'OK',
          data: { ...this.fresh(c), methods: this.methodsOf(c) },
        });
      if (method === 'POST') {
        const choice = this.methodsOf(c).find((x) => x.code === body.method);
        const refused = (message: string) => this.json(400, { statusCode: 400, error: 'Bad Request', message });
        if (!choice) return refused('Payment method not found');
        if (this.refuse[choice.code]) return refused(this.refuse[choice.code]);
        if (!choice.available) return refused(`${choice.code}: the amount is outside the method's minimum or maximum`);
        if (c.deposit?.method.code === choice.code)
          return this.json(200, { statusCode: 200, message: 'OK', data: this.fresh(c.deposit) });
        if (c.deposit) {
          // A switch: the same deposit, new details, while it is pending and the checkout open.
          if (c.deposit.status !== 'pending') return refused('The deposit is no longer pending');
          if (Date.parse(c.expiresAt) <= this.now)
            return refused('The checkout is closed: the payment method can no longer be changed');
          const before = Date.parse(c.deposit.updatedAt);
          // The new method's window runs from the switch (WIDGET-API.md).
          const version = c.deposit.version + 1;
          // After a partial payment only the rest is asked: what was paid stays, in the new method's currency.
          const paid = this.paidValue.get(c.id) ?? 0n;
          const switched = this.deposit(c, choice);
          if (paid && choice.kind !== 'crypto') {
            Object.assign(switched, {
              amount: (units(switched.amount, 0) + paid).toString(),
              paidAmount: paid.toString(),
            });
          }
          c.deposit = switched;
          c.deposit.updatedAt = new Date(Math.max(this.now, before + 1)).toISOString();
          c.deposit.version = version;
          return this.json(200, { statusCode: 200, message: 'OK', data: this.fresh(c.deposit) });
        }
        c.deposit = this.deposit(c, choice);
        return this.json(201, { statusCode: 201, message: 'Created', data: this.fresh(c.deposit) });
      }
      if (this.hold) {
        const then = this.lagging && c.deposit;
        await new Promise<void>((go) => this.held.push(go));
        if (then) return this.json(200, { statusCode: 200, message: 'OK', data: this.fresh(then) });
      }
      if (!c.deposit) return this.json(404, { statusCode: 404, error: 'Not Found', message: 'No deposit yet' });
      const etag = `"${c.deposit.status}-${c.deposit.updatedAt}"`;
      if (headers.get('if-none-match') === etag) return new FakeResponse(null, { status: 304, headers: { etag } });
      return this.json(200, { statusCode: 200, message: 'OK', data: this.fresh(c.deposit) }, { etag });
    }
    return this.json(404, { statusCode: 404, error: 'Not Found', message: 'Route not found' });
  }

  private deposit(c: Checkout, m: Method): Deposit {
    const now = new Date(this.now).toISOString();
    return {
      id: c.id,
      checkoutId: c.id,
      status: 'pending',
      method: { kind: m.kind, code: m.code, name: m.name, image: m.image },
      currency: m.currency,
      amount: m.total,
      fee: m.fee,
      // docs/design.md, "Payments that do not go as planned": nothing arrived yet; all of it is due.
      paidAmount: '0',
      remainingAmount: m.kind === 'bank' ? '150123' : m.total,
      overpaidAmount: '0',
      paidLate: false,
      ...(m.kind === 'va' ? { accountNumber: '8808123456789012', accountName: 'KASIR DEMO STORE' } : {}),
      // A transfer's amount carries a unique code, told apart from other pending transfers to the same account.
      ...(m.kind === 'bank'
        ? { accountNumber: '0123456789', accountName: 'PT KASIR DEMO', amount: '150123', uniqueCode: '123' }
        : {}),
      ...(m.kind === 'qris' ? { qrData: QR_DATA } : {}),
      ...(m.kind === 'ewallet'
        ? { checkoutUrl: this.options.checkoutUrl ?? 'https://wallet.example/approve/123' }
        : {}),
      ...(m.kind === 'crypto'
        ? (({ symbol, network, networkName, decimals, exchangeRate, address, paymentUri }) => ({
            symbol,
            network,
            networkName,
            decimals,
            exchangeRate,
            address,
            paymentUri,
          }))(CRYPTO.find((x) => x.code === m.code)!)
        : {}),
      // A crypto transfer gets an hour, as the payment service gives it.
      expiresAt: new Date(this.now + (this.options.lifetime ?? (m.kind === 'crypto' ? 60 : 30) * 60_000)).toISOString(),
      serverTime: now,
      updatedAt: now,
      version: 1,
    };
  }

  private json(status: number, body: unknown, headers: Record<string, string> = {}) {
    return new FakeResponse(JSON.stringify(body), {
      status,
      headers: { 'content-type': 'application/json', ...headers },
    });
  }
}

/** An answer of the fake API whose body, while it is read, is work the fake clock's settle() waits for. */
class FakeResponse extends Response {
  override json() {
    return pageWork(super.json());
  }

  override text() {
    return pageWork(super.text());
  }
}

/** A stand-in for EventSource that the test drives. */
export class FakeEventSource extends EventTarget {
  static instances: FakeEventSource[] = [];
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSED = 2;
  readyState = 0;
  onopen: ((e: Event) => void) | null = null;
  onerror: ((e: Event) => void) | null = null;
  closed = false;

  constructor(readonly url: string) {
    super();
    FakeEventSource.instances.push(this);
  }

  open() {
    this.readyState = 1;
    this.onopen?.(new Event('open'));
  }

  emit(type: string, data: unknown) {
    if (this.closed) return;
    this.dispatchEvent(new MessageEvent(type, { data: JSON.stringify(data) }));
  }

  /** Drops the connection the way a server ending a long stream does: the browser will reconnect. */
  drop() {
    this.readyState = 0;
    this.onerror?.(new Event('error'));
  }

  /** Fails for good (as on an error status): the element should fall back to polling. */
  fail() {
    this.readyState = 2;
    this.onerror?.(new Event('error'));
  }

  close() {
    this.readyState = 2;
    this.closed = true;
  }
}
