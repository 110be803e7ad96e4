// What the e-wallet flows' views (docs/indonesian-payments.md) share: the kit they get (a view's, with the frame's
// check and change), the choice sent again (a push's number, a redirect's return page), and a window's seconds left.
import type { TemplateResult } from 'lit';
import type { ViewKit } from './view.js';

/** A view's kit with what the frame passes besides: check the status now, back to the method list. */
export type WalletKit = ViewKit & { check(): void; change?: () => void };

/** A view of an e-wallet flow. */
export type WalletView = (k: WalletKit) => TemplateResult;

/**
 * Chooses the deposit's method again with what its flow takes (`phone` sends a push; `returnUrl` says where to come
 * back), then reads the deposit at once. Answers the service's refusal in its words, or undefined.
 */
export async function chooseAgain(
  k: WalletKit,
  body: { phone?: string; returnUrl?: string },
): Promise<string | undefined> {
  const host = (k.root as ShadowRoot).host as HTMLElement & { endpoint: string };
  try {
    const res = await fetch(
      `${host.endpoint.replace(/\/+$/, '')}/checkouts/${encodeURIComponent(k.d.checkoutId)}/deposit`,
      {
        method: 'POST',
        headers: { accept: 'application/json', 'content-type': 'application/json' },
        body: JSON.stringify({ method: k.d.method.code, ...body }),
      },
    );
    if (!res.ok)
      return ((await res.json().catch(() => null)) as { message?: string } | null)?.message || res.statusText;
  } catch {
    return '';
  }
  k.check();
}

/** Server clock minus this one, per deposit answer (its serverTime), for a window's countdown. */
const skews = new WeakMap<object, number>();

/** Whole seconds left until `at` (ISO), on the server's clock. */
export function secondsLeft(k: ViewKit, at: string): number {
  if (!skews.has(k.d)) skews.set(k.d, Date.parse(k.d.serverTime) - Date.now());
  return Math.max(0, Math.ceil((Date.parse(at) - Date.now() - skews.get(k.d)!) / 1000));
}
