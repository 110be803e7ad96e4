// A React shop paying with @kasir/checkout/react. The order is priced and its checkout created on the shop's server
// (POST /shop/orders answers {orderId, checkoutId, amount, currency}); the page only shows that checkout and
// thanks the shopper when onKasirCompleted fires. Prices shown before ordering come from GET /shop/products.
import { useEffect, useState } from 'react';
import { KasirCheckout, type Deposit } from '@kasir/checkout/react';

interface Order {
  orderId: string;
  checkoutId: string;
  amount: string;
  currency: string;
}

const money = (amount: string, currency: string) =>
  new Intl.NumberFormat('en-US', {
    style: 'currency',
    currency,
    currencyDisplay: 'narrowSymbol',
    minimumFractionDigits: 0,
  }).format(Number(amount));

interface Prices {
  price: number;
  shipping: number;
  currency: string;
}

async function loadPrices(): Promise<Prices | null> {
  const res = await fetch('/shop/products').catch(() => null);
  const body = res?.ok ? await res.json().catch(() => null) : null;
  return body?.products?.kopi
    ? { price: body.products.kopi.price, shipping: body.shipping, currency: body.currency }
    : null;
}

async function placeOrder(quantity: number): Promise<Order> {
  const res = await fetch('/shop/orders', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ items: [{ sku: 'kopi', quantity }] }),
  });
  const body = await res.json().catch(() => null);
  if (!res.ok || !body?.checkoutId) throw new Error(body?.message ?? `The shop answered ${res.status}.`);
  return body as Order;
}

export function App() {
  const [quantity, setQuantity] = useState(1);
  const [prices, setPrices] = useState<Prices | null>(null);
  const [order, setOrder] = useState<Order | null>(null);
  const [placing, setPlacing] = useState(false);
  const [problem, setProblem] = useState('');
  const [pending, setPending] = useState(false);
  const [paid, setPaid] = useState<Deposit | null>(null);
  const [sandbox, setSandbox] = useState('');

  useEffect(() => {
    loadPrices().then(setPrices);
  }, []);

  async function checkout() {
    setPlacing(true);
    setProblem('');
    try {
      setOrder(await placeOrder(quantity));
    } catch (err) {
      setProblem(`Your order could not be placed: ${(err as Error).message}`);
    } finally {
      setPlacing(false);
    }
  }

  /** Sandbox only: plays the bank's part, as if the shopper had paid. */
  async function simulatePayment() {
    setSandbox('');
    const res = await fetch(`/api/sandbox/checkouts/${encodeURIComponent(order!.checkoutId)}/pay`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
    });
    const body = await res.json().catch(() => null);
    setSandbox(res.ok ? 'Paid in the sandbox.' : `Sandbox: ${body?.message ?? res.statusText}`);
  }

  function newOrder() {
    setOrder(null);
    setPaid(null);
    setPending(false);
    setSandbox('');
  }

  return (
    <>
      <header className="top">
        <a className="brand" href="/react/">
          Kopi Nusantara
        </a>
        <span className="badge">React</span>
      </header>
      <main className="layout">
        <section className="card" aria-labelledby="order-title">
          <h1 id="order-title">Your order</h1>
          <article className="product">
            <div className="photo" aria-hidden="true" />
            <div>
              <h2>Gayo Arabica, single origin</h2>
              <p className="muted">250 g whole beans · medium roast · Aceh, Sumatra</p>
              <label className="qty">
                Quantity{' '}
                <select value={quantity} disabled={!!order} onChange={(e) => setQuantity(Number(e.target.value))}>
                  {[1, 2, 3, 4, 5].map((n) => (
                    <option key={n}>{n}</option>
                  ))}
                </select>
              </label>
            </div>
          </article>
          <dl className="totals">
            {prices && (
              <>
                <div>
                  <dt>Subtotal</dt>
                  <dd>{money(String(prices.price * quantity), prices.currency)}</dd>
                </div>
                <div>
                  <dt>Shipping (JNE REG)</dt>
                  <dd>{money(String(prices.shipping), prices.currency)}</dd>
                </div>
              </>
            )}
            {order && (
              <div>
                <dt>Order</dt>
                <dd className="order-id">{order.orderId}</dd>
              </div>
            )}
            <div className="grand">
              <dt>Total</dt>
              <dd>
                {order
                  ? money(order.amount, order.currency)
                  : prices
                    ? money(String(prices.price * quantity + prices.shipping), prices.currency)
                    : '…'}
              </dd>
            </div>
          </dl>
          {!order && (
            <button type="button" className="primary" disabled={placing} onClick={checkout}>
              {placing ? 'Placing your order…' : 'Continue to payment'}
            </button>
          )}
          {problem && (
            <p className="problem" role="alert">
              {problem}
            </p>
          )}
        </section>

        {order && (
          <section className="pay" aria-label="Payment">
            {paid && (
              <div className="card thanks" role="status">
                <h2>Thank you!</h2>
                <p>
                  Order <strong>{order.orderId}</strong> is paid: {money(paid.amount, paid.currency)} with{' '}
                  {paid.method.name}. Your coffee leaves Jakarta within one working day.
                </p>
                <button type="button" onClick={newOrder}>
                  New order
                </button>
              </div>
            )}
            <KasirCheckout
              key={order.checkoutId}
              endpoint="/api"
              checkoutId={order.checkoutId}
              locale="en"
              onKasirPending={() => setPending(true)}
              onKasirCompleted={(e) => {
                setPending(false);
                setPaid(e.detail.deposit);
              }}
              onKasirExpired={() => setPending(false)}
              onKasirError={(e) => console.warn('kasir-error', e.detail.status, e.detail.message)}
            />
          </section>
        )}

        {order && !paid && (
          <aside className="card sandbox" aria-labelledby="sandbox-title">
            <h2 id="sandbox-title">Sandbox</h2>
            <p className="muted small">
              Pretend to be the bank, the wallet or the blockchain: a crypto transfer arrives like any other payment. No
              real money moves.
            </p>
            <button type="button" className="pay-now" disabled={!pending} onClick={simulatePayment}>
              Simulate payment
            </button>
            <p className="small" role="status">
              {sandbox}
            </p>
          </aside>
        )}
      </main>
    </>
  );
}
