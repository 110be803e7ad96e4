import { LitElement, adoptStyles, html, nothing, unsafeCSS, type PropertyDeclaration, type PropertyDeclarations, type PropertyValues, type TemplateResult } from 'lit';
import { ApiError, WidgetApi } from './api.js';
import { CountdownController } from './countdown-controller.js';
import type { DepositStatusController } from './deposit-status-controller.js';
import {
  KasirCloseEvent,
  KasirCompletedEvent,
  KasirErrorEvent,
  type KasirErrorDetail,
  KasirExpiredEvent,
  KasirMethodSelectedEvent,
  KasirPendingEvent,
  KasirReadyEvent,
} from './events.js';
import { clock, duration, fill, messages, money, type Locale, type Messages } from './i18n.js';
import { styles } from './kasir-checkout.styles.js';
import { picker } from './picker.js';
import type { Checkout, CheckoutState, Deposit, Method, MethodKind } from './types.js';
import type { Described } from './failures.js';
import type { PaidKit } from './views/paid.js';
import type { PendingModule } from './views/view.js';
import type { AttributeName, KasirCheckoutOptions } from './props.js';

export * from './events.js';
export type * from './props.js';
export type * from './types.js';

type Option = keyof KasirCheckoutOptions;
/** Every option a field of the element, of the option's type (mapped over `Option`, so none may be left out). */
type OptionFields = { [K in Option]: KasirCheckoutOptions[K] };
/** Each option a Lit property: its attribute named as props.ts names it (`strings` none), a number or boolean converted. */
type OptionDeclarations = {
  [K in Option]: PropertyDeclaration &
    (K extends 'strings' ? { attribute: false } : AttributeName<K> extends K ? { attribute?: never } : { attribute: AttributeName<K> }) &
    (NonNullable<KasirCheckoutOptions[K]> extends number ? { type: NumberConstructor } : NonNullable<KasirCheckoutOptions[K]> extends boolean ? { type: BooleanConstructor } : unknown);
};

const STORE = 'kasir-checkout:';

// The checkout of an order is remembered for the tab (sessionStorage), the shopper's last method at a shop across
// visits (`local`: localStorage).
const remembered = (key: string, local?: boolean) => {
  try {
    return (local ? localStorage : sessionStorage).getItem(STORE + key);
  } catch {
    return null;
  }
};
const remember = (key: string, id: string | null, local?: boolean) => {
  try {
    const store = local ? localStorage : sessionStorage;
    if (id) store.setItem(STORE + key, id);
    else store.removeItem(STORE + key);
  } catch {
    // storage disabled: a reload then starts over, which the backend tolerates
  }
};

/**
 * The screen of a pending deposit, per kind of method: each its own module (its own chunk in the script-tag build,
 * with the frame and the deposit's follower inside), fetched when a deposit of that kind is about to be shown, so the
 * first paint (the method list) carries none of them.
 */
const va = () => import('./views/va.js');
const VIEWS: Record<MethodKind, () => Promise<PendingModule>> = {
  va,
  bank: va,
  qris: () => import('./views/qris.js'),
  ewallet: () => import('./views/ewallet.js'),
  crypto: () => import('./views/crypto.js'),
};
const views: Partial<Record<MethodKind, PendingModule>> = {};
/**
 * Loads a kind's view (a kind this version does not know is shown as an account). One that fails to load is a network
 * failure: the element offers "Try again", which loads it again.
 */
const loadView = async (kind: MethodKind) => {
  try {
    views[kind] = await (VIEWS[kind] || va)();
  } catch {
    throw new ApiError({ kind: 'network' });
  }
};
/** The words of failures (but a lost connection's), loaded when one happens; unset while they cannot be loaded. */
let failures: (typeof import('./failures.js'))['default'] | undefined;
/** The words of a deposit paid not as planned (DESIGN.md 10), loaded when one is shown. */
let paid: (typeof import('./views/paid.js'))['default'] | undefined;

/**
 * A failure as `kasir-error` tells it, where failures.ts does not: a lost connection, a read while pending (and an
 * exception that is no ApiError, with no kind: told as a lost connection, with its own words for the developers).
 */
const detail = ({ kind = 'network', message, status, url }: Partial<KasirErrorDetail>, fallback: string): KasirErrorDetail => ({ kind, message: message || fallback, status, url });

/** The window to choose a method closed before anything was chosen. */
const lapsed = (c: Checkout) => !c.deposit && Date.parse(c.expiresAt) <= Date.parse(c.serverTime);
const order = (e: KasirCheckout) => `${e.endpoint}|${e.orderId || e.amount}|${e.currency}`;
/** Where the shopper's last method is remembered: the shop, as the endpoint's origin. */
const shop = (e: KasirCheckout) => 'last:' + new URL(e.endpoint, location.href).origin;

/**
 * An embeddable checkout: the shopper chooses a payment method (virtual account, bank transfer, QRIS, e-wallet,
 * crypto), sees what to pay and how, may go back and switch to another method while the deposit is pending, and the
 * element follows the deposit (server-sent events when offered, else polling) until it is completed or expired. It
 * speaks the widget API (widget/WIDGET-API.md) at `endpoint`, holds no secret, and resumes the same checkout and
 * deposit after a reload (a finished one is not replayed: the next order starts afresh).
 *
 * @summary A payment checkout for virtual accounts, bank transfers, QRIS, e-wallets and crypto.
 *
 * @attr {string} endpoint - Base URL of the widget API, e.g. `https://shop.example/api` (required).
 * @attr {string} checkout-id - A checkout the shop created on its server; wins over `amount`.
 * @attr {string} order-id - The shop's order, priced by its server's `priceOrder` hook: sent instead of `amount` and `currency`.
 * @attr {string} amount - What the order costs, a plain decimal string with at most the currency's decimal places, e.g. `150000` (no thousands separator).
 * @attr {string} currency - The order's currency (default `IDR`).
 * @attr {'en' | 'id'} locale - Language and number formats (default: the page's `lang`, else the browser's language, else `en`).
 * @attr {boolean} modal - Shows nothing until `open()`, then the checkout in a modal dialog (the payment goes on while it is closed).
 * @attr {number} poll-interval - First polling interval in ms (default 3000, also for anything not a positive number; at least 1000; backs off to 10 s after a minute).
 * @attr {'loading' | 'choosing' | 'pending' | 'completed' | 'expired' | 'error'} state - The phase, reflected (read only).
 *
 * @fires {KasirReadyEvent} kasir-ready - The checkout is loaded; `detail.checkout`.
 * @fires {KasirMethodSelectedEvent} kasir-method-selected - The shopper chose a method; `detail.method`.
 * @fires {KasirPendingEvent} kasir-pending - A deposit awaits payment; `detail.deposit`.
 * @fires {KasirCompletedEvent} kasir-completed - The payment was received; `detail.deposit`.
 * @fires {KasirExpiredEvent} kasir-expired - The time to pay ran out; `detail.deposit` (null when none was made).
 * @fires {KasirErrorEvent} kasir-error - Something failed; `detail.kind` (`config`, `network`, `server`, `refused`), `detail.message` (for the shop's developers; the shopper sees a localized one), `detail.status`, `detail.url`. Also written to the console, once.
 * @fires {KasirOpenExternalEvent} kasir-open-external - A wallet or e-wallet app link is about to open (cancelable); `detail.url`, `detail.kind`.
 * @fires {KasirCloseEvent} kasir-close - The modal dialog was closed (Escape, its close button, or `close()`); `detail.state`.
 *
 * @csspart method-group - A kind's group in the method list, with `data-kind` (`va`, `bank`, `qris`, `ewallet`, `crypto`); with more than 6 methods its button opens it.
 * @csspart method - A method choice (a button), with `data-method` set to the method's code (a crypto id for crypto); `aria-current` on the pending deposit's while switching.
 * @csspart instructions - The steps to pay.
 * @csspart va-number - The virtual account (or bank account) number.
 * @csspart qr - The QR code's container (QRIS, or a crypto wallet's payment request), holding an inline SVG.
 * @csspart amount - The amount to pay (a token amount exactly, with its symbol).
 * @csspart network - A crypto payment's network, with the warning to send on it only.
 * @csspart address - A crypto payment's wallet address.
 * @csspart rate - The rate a crypto or converted payment is priced at ("1 USDC = 16,250 IDR").
 * @csspart countdown - The time left to pay.
 * @csspart check-now - The button that checks the payment status at once.
 * @csspart change-method - The button that goes back to the method list to switch a pending deposit's method.
 * @csspart paid - After a partial payment: what arrived and what is still due.
 * @csspart open-wallet - On a phone: a link opening a crypto wallet with the payment request.
 * @csspart open-app - A link to the e-wallet's approval page (its app on a phone).
 * @csspart result - The completed, expired or error panel (with what was overpaid, or will be refunded).
 * @csspart dialog - With `modal`: the dialog (a native `<dialog>`).
 * @csspart close - With `modal`: the dialog's close button.
 *
 * @cssprop [--kasir-font=system-ui, sans-serif] - Font family.
 * @cssprop [--kasir-text=#1d2433] - Text colour.
 * @cssprop [--kasir-muted=#5b6475] - Secondary text colour.
 * @cssprop [--kasir-bg=#fff] - Background of the panel.
 * @cssprop [--kasir-surface=#f5f7fa] - Background of blocks inside the panel.
 * @cssprop [--kasir-border=#d5dae3] - Borders.
 * @cssprop [--kasir-accent=#0b5cd5] - Buttons and focus.
 * @cssprop [--kasir-accent-text=#fff] - Text on accent.
 * @cssprop [--kasir-success=#137a3a] - The completed panel.
 * @cssprop [--kasir-danger=#b42318] - Errors and the expired panel.
 * @cssprop [--kasir-radius=12px] - Corner radius.
 * @cssprop [--kasir-max-width=30rem] - Widest the element grows.
 */
export class KasirCheckout extends LitElement implements OptionFields {
  static override styles = styles;
  // Declared without decorators: the decorator runtime costs bytes a shopper downloads.
  static override properties = {
    endpoint: {},
    checkoutId: { attribute: 'checkout-id' },
    orderId: { attribute: 'order-id' },
    amount: {},
    currency: {},
    locale: {},
    pollInterval: { attribute: 'poll-interval', type: Number },
    modal: { type: Boolean },
    strings: { attribute: false },
    state: { reflect: true },
    // Internal state (never an attribute), short keys: Lit's property names are strings the minifier keeps, and the
    // shopper downloads each (co checkout, dp deposit, er failed, lp lapsed, off offline, nt notice, pk picked,
    // sw switching, ex expanded, sh shown).
    co: { state: true },
    dp: { state: true },
    er: { state: true },
    lp: { state: true },
    off: { state: true },
    nt: { state: true },
    pk: { state: true },
    sw: { state: true },
    ex: { state: true },
    sh: { state: true },
  } satisfies OptionDeclarations & PropertyDeclarations;

  // The options, typed and documented once by KasirCheckoutOptions (props.ts), here with their defaults.
  endpoint = '';
  checkoutId = '';
  orderId: KasirCheckoutOptions['orderId'];
  amount = '';
  currency = 'IDR';
  /** Unset follows the page's `lang`, else the browser's language. */
  locale: KasirCheckoutOptions['locale'];
  pollInterval = 3000;
  modal: KasirCheckoutOptions['modal'];
  strings: KasirCheckoutOptions['strings'];
  /** The phase: loading, choosing, pending, completed, expired or error (reflected, read only). */
  state: CheckoutState = 'loading';

  private co: Checkout | null = null;
  private dp: Deposit | null = null;
  private er: ApiError | null = null;
  // Unset (falsy) until first used: no initializers, for the bytes a shopper downloads.
  /** The checkout's window to choose a method ran out in front of the shopper. */
  private lp?: boolean;
  /** Why the pending deposit cannot be shown safely (its view says: an e-wallet link that is not http or https). */
  private badLink?: string;
  private off?: boolean;
  /** The pending view whose styles this element's shadow root holds. */
  private styled?: PendingModule;
  private nt?: string;

  private api = new WidgetApi('');
  private pk?: Method;
  /** The shopper went back to the method list from a pending deposit, to switch to another method. */
  private sw?: boolean;
  /** When (this page's clock) the checkout's window closes: no switching after it (the server refuses). */
  private closes?: number;
  /** The method list's open group. */
  private ex?: string;
  /** `open()` was called (a modal loads its checkout then, not before). */
  private sh?: boolean;

  private countdown = new CountdownController(this, () => {
    if (this.dp) this.follow?.checkNow();
    else this.lp = true;
  });

  /** Follows the deposit while it is pending (made when the first one is shown: its module comes with the views). */
  private follow?: DepositStatusController;

  /** The current load's number: a newer load (the attributes changed) makes an older one's answers stale. */
  private loads = 0;
  /** What "Try again" repeats. */
  private again?: () => void;

  /** Loads the checkout: the one named by `checkout-id`, else the one remembered for this order, else a new one. */
  private async load() {
    const { endpoint, checkoutId: id, orderId, amount, currency } = this;
    const run = ++this.loads;
    this.follow?.stop();
    this.co = this.dp = null;
    this.lp = this.sw = false;
    this.api = new WidgetApi(endpoint);
    const current = () => run === this.loads;
    await this.attempt(this.load, current, async () => {
      // An attribute the element cannot use, before any request: a URL or path; a currency code; a positive plain
      // decimal with no more places than the currency has ("150.000" in rupiah is a thousands separator, not 150).
      const bad = !/^(https?:\/|\.*)\/\S*$/i.test(endpoint)
        ? 'endpoint'
        : !(id || orderId) &&
          (!/^[a-z]{3}$/i.test(currency)
            ? 'currency'
            : (!/^(?=.*[1-9])\d+(\.\d+)?$/.test(amount) ||
                (amount.split('.')[1] || '').length > new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits!) &&
              'amount');
      if (bad) throw new ApiError({ kind: 'config', message: bad });
      const key = this.key();
      const known = id || remembered(key);
      let checkout: Checkout | null = null;
      if (known) {
        try {
          checkout = await this.api.call<Checkout>(`/checkouts/${encodeURIComponent(known)}`);
        } catch (err) {
          if (id || (err as ApiError).status !== 404) throw err;
        }
        // A remembered checkout that is over (paid, expired, or its window closed unused) belongs to an earlier
        // order: start afresh rather than replay its outcome. A pending one is resumed.
        // Back from a redirect wallet's page (views/ewallet-redirect.ts remembers which checkout left): its outcome shows.
        if (!id && checkout && (checkout.deposit ? checkout.deposit.status !== 'pending' && remembered('back') != checkout.id : lapsed(checkout))) checkout = null;
      }
      if (!checkout) {
        checkout = await this.api.call<Checkout>('/checkouts', orderId ? { orderId } : { amount, currency });
        if (!id) remember(key, checkout.id);
      }
      // A pending deposit is shown with its kind's view: the spinner stays until that is loaded.
      if (checkout.deposit?.status === 'pending') await loadView(checkout.deposit.method.kind);
      // Superseded by a newer load (the attributes changed meanwhile): its answer is the one to show.
      if (!current()) return;
      this.co = checkout;
      this.dp = checkout.deposit;
      this.closes = Date.now() + Date.parse(checkout.expiresAt) - Date.parse(checkout.serverTime);
      // Already over when opened: the first screen is the expired one, not a method list that then lapses.
      this.lp = lapsed(checkout);
    });
  }

  /**
   * Creates the deposit for a method, or switches the pending one to it (the server keeps the deposit's id and answers
   * its new details). The deposit's own method again goes back to it without a request.
   */
  private async pick(method: Method) {
    if (this.pk) return; // one choice at a time (a double click chooses once)
    if (method.code === this.dp?.method.code) return void (this.sw = false);
    this.emit(new KasirMethodSelectedEvent(method));
    this.pk = method;
    // The method's view loads while the deposit is made, so it is there when the deposit is (the list shows the
    // chosen method busy meanwhile).
    const shown = loadView(method.kind);
    shown.catch(() => {}); // awaited below, unless the deposit fails first
    await this.attempt(
      () => this.pick(method),
      () => true,
      async () => {
        const deposit = await this.api.call<Deposit>(`/checkouts/${this.co!.id}/deposit`, { method: method.code });
        await shown;
        this.dp = deposit;
        this.sw = false;
        remember(shop(this), method.code, true); // offered first at this shop next time
      },
    );
    this.pk = undefined;
  }

  /** Runs a step; on failure (unless no longer `current`) the element shows the error and "Try again" repeats `retry`. */
  private async attempt(retry: () => void, current: () => boolean, step: () => Promise<void>) {
    this.er = null;
    try {
      await step();
    } catch (err) {
      // The words for it, unless it is a lost connection (the element's own words, as nothing may load then).
      if ((err as ApiError).kind != 'network') failures ??= await import('./failures.js').then((m) => m.default, () => undefined);
      if (!current()) return;
      this.again = retry;
      this.er = err as ApiError;
    }
  }

  /** The element's words, with the shop's `strings` over them. */
  private get t(): Messages {
    return this.text(messages);
  }

  /** Words in the element's language (its own, a screen's, a failure's), with the shop's `strings` over them. */
  private text<T>(words: Record<Locale, T>): T {
    return { ...words[this.loc], ...this.strings };
  }

  /** `locale`, else the page's language, else the browser's: the first that is English or Indonesian; else English. */
  private get loc(): Locale {
    const lang = [this.locale, document.documentElement.lang, navigator.language].find((l) => /^(en|id)\b/i.test(l!));
    return /^id/i.test(lang + '') ? 'id' : 'en';
  }

  /** With `modal`: shows the checkout in a modal dialog (loading it the first time). */
  async open() {
    if (!this.modal) return;
    this.sh = true;
    await this.updateComplete;
    const dialog = this.renderRoot.querySelector('dialog');
    if (dialog && !dialog.open) dialog.showModal();
  }

  /** With `modal`: closes the dialog; the payment goes on, and `open()` shows it again. */
  close() {
    this.renderRoot.querySelector('dialog')?.close();
  }

  /**
   * Where this element's checkout id is remembered: the order, the page (path and query), and the element's
   * place among the page's elements for the same order, so two orders or two elements never share a checkout.
   */
  private key() {
    const o = order(this);
    const same = [...document.querySelectorAll('kasir-checkout')].filter((e) => order(e) === o);
    return `${o}|${location.pathname}${location.search}|${same.indexOf(this)}`;
  }

  /** Forgets the remembered checkout and starts a new one (offered once a payment expired). */
  restart() {
    remember(this.key(), null);
    this.load();
  }

  /** Back to the method list after a refused choice, or from a pending deposit to switch it. */
  private back() {
    this.er = null;
    this.sw = true;
    // After a partial payment the server prices the methods for what is still due (DESIGN.md 10).
    if (+this.dp!?.paidAmount) this.api.call<Checkout>(`/checkouts/${this.co!.id}`).then((c) => (this.co = c), () => {});
  }

  /**
   * What failed: its kind, the shopper's words and what they can do (failures.ts), and what the shop's developers read.
   * A lost connection (or the words of others could not be loaded: the connection is lost) is the element's own.
   */
  private failure(): Described | null {
    const { t, er: err, endpoint, amount, currency } = this;
    // Starting over makes sense once a checkout of the shop's own order was open.
    const restart = this.co && !this.checkoutId ? 'restart' : undefined;
    if (this.badLink) return { text: this.badLink, action: restart, detail: { kind: 'server', message: this.badLink } };
    if (!err) return null;
    return (
      failures?.(err, { text: (w) => this.text(w), endpoint, amount, currency, open: !!this.co, restart }) || {
        detail: detail(err, t.noConnection),
        text: t.noConnection,
        action: 'retry',
      }
    );
  }

  /** Tells the shop's developers: the `kasir-error` event, and one line in the console naming the URL and status. */
  private report(detail: KasirErrorDetail) {
    console.warn('<kasir-checkout>', detail.message, detail);
    this.emit(new KasirErrorEvent(detail));
  }

  override willUpdate(changed: PropertyValues) {
    // A modal loads its checkout when first opened.
    if ((!this.modal || this.sh) && ['endpoint', 'checkoutId', 'orderId', 'amount', 'currency', 'modal', 'sh'].some((p) => changed.has(p))) this.load();
    const { co: checkout, dp: d } = this;
    const view = d && views[d.method.kind];
    // A payment not as planned (part of one, more than due, or money for an expired deposit): its words load, then
    // it is announced. The deposit changes only when it did (an unchanged read is the same object, from its ETag).
    if (changed.has('dp') && +d!?.paidAmount && (d!.status != 'completed' || +d!.overpaidAmount)) {
      import('./views/paid.js').then((m) => this.say((paid = m.default).said(this.kit(d!))), () => {});
    }
    this.badLink = d?.status === 'pending' ? view?.refusal?.(d, this.loc) : undefined;
    if (view && view !== this.styled) {
      // The pending screen's styles join the element's own (as constructed stylesheets, like lit adopts those).
      this.styled = view;
      adoptStyles(this.renderRoot as ShadowRoot, [...KasirCheckout.elementStyles, unsafeCSS(view.styles)]);
    }
    const before = this.state;
    const listed = this.sw && d?.status === 'pending';
    this.state = this.failure() ? 'error' : !checkout ? 'loading' : d && !listed ? d.status : this.lp ? 'expired' : 'choosing';
    // Controllers follow the phase here, before rendering, so their first tick lands in this update.
    if (changed.has('dp') && d?.status === 'pending') this.countdown.set(d.expiresAt, d.serverTime);
    if (before === this.state) return;
    // The outcome is heard even when focus is elsewhere on the page.
    if (this.state === 'completed') this.say(this.t.paidTitle);
    if (this.state === 'expired') this.say(this.t.expiredTitle);
    if (this.state === 'pending') {
      this.follow ??= new view!.DepositStatusController(this, {
        read: () => this.api.call<Deposit>(`/checkouts/${this.co!.id}/deposit`),
        // A read of an older version than the deposit shown (begun before a switch, or a cached 304: versions order a
        // deposit's changes, clocks do not), or answered after the element moved on to another checkout, is not news.
        onDeposit: (deposit) => deposit.id === this.dp?.id && deposit.version >= this.dp.version && (this.dp = deposit),
        // A failed read is reported once, when the trouble begins; the shopper reads "Connection lost. Retrying…".
        onTrouble: (err) => {
          if (err && !this.off) this.report(detail(err, this.t.offline));
          this.off = !!err;
        },
        // Not a positive number: the default; else at least a second, so a typo cannot flood the server.
        interval: () => (this.pollInterval > 0 ? Math.max(1000, this.pollInterval) : 3000),
      });
      this.follow.start(checkout!.capabilities?.events ? this.api.url(`/checkouts/${checkout!.id}/events`) : null);
      // The list of a switch: the deposit is still followed (it may be paid meanwhile). Expired: the follower itself
      // stops, or follows on a deposit that may still be paid late.
    } else if (!listed && this.state != 'expired') this.follow?.stop();
    // The list counts down the checkout's window to choose; while switching, the deposit's time to pay goes on.
    if (this.state === 'choosing' && !d) this.countdown.set(checkout!.expiresAt, checkout!.serverTime);
    else if (this.state !== 'pending' && !listed) this.countdown.stop();
  }

  override updated(changed: PropertyValues) {
    if (!changed.has('state')) return;
    const { co: checkout, dp: deposit } = this;
    const before = changed.get('state');
    if (before === 'loading' && checkout) this.emit(new KasirReadyEvent(checkout));
    switch (this.state) {
      case 'pending':
        this.emit(new KasirPendingEvent(deposit!));
        break;
      case 'completed':
        this.emit(new KasirCompletedEvent(deposit!));
        break;
      case 'expired':
        this.emit(new KasirExpiredEvent(deposit));
        break;
      case 'error':
        this.report(this.failure()!.detail);
    }
    // Move focus to the new screen's heading when the shopper was working in the element (not on first load).
    const active = document.activeElement;
    if (before && before !== 'loading' && (active === this || !active || active === document.body)) {
      this.renderRoot.querySelector<HTMLElement>('h2')?.focus();
    }
  }

  override render(): TemplateResult {
    const { t } = this;
    const card = html`<div class="card" lang=${this.loc} aria-busy=${this.state === 'loading'}>
      ${this.screen(t)}
      <p class="sr" role="status">${this.nt}</p>
    </div>`;
    // Modal: the card in a native dialog (showModal traps focus, Escape closes it); closed, it goes on underneath.
    return this.modal
      ? html`<dialog part="dialog" aria-label=${t.dialog} @close=${() => this.emit(new KasirCloseEvent(this.state))}>
          <button part="close" class="close" aria-label=${t.close} @click=${this.close}>×</button>${card}
        </dialog>`
      : card;
  }

  private screen(t: Messages) {
    const { co: checkout, dp: deposit } = this;
    switch (this.state) {
      case 'loading':
        return this.spinner();
      case 'error': {
        const { text, action, detail } = this.failure()!;
        return html`<div part="result" class="result bad" role="alert">
          <h2 tabindex="-1">${t.errorTitle}</h2>
          <p>${text}</p>
          ${action == 'back' ? html`<small>${detail.message}</small>` : nothing}
          ${action ? html`<button class="primary" @click=${action == 'retry' ? this.again : this[action]}>${t[action]}</button>` : nothing}
        </div>`;
      }
      case 'completed':
        return html`<div part="result" class="result ok">
          <span class="icon" aria-hidden="true">✓</span>
          <h2 tabindex="-1">${t.paidTitle}</h2>
          <p>${fill(t.paidText, this.money(deposit!.amount, deposit!), deposit!.method.name)}</p>
          <p>${paid?.note(this.kit(deposit!))}</p>
        </div>`;
      case 'expired':
        return html`<div part="result" class="result bad">
          <h2 tabindex="-1">${t.expiredTitle}</h2>
          <p>${+deposit!?.paidAmount ? paid?.note(this.kit(deposit!)) : t.expiredText}</p>
          ${this.checkoutId ? nothing : html`<button class="primary" @click=${this.restart}>${t.restart}</button>`}
        </div>`;
      case 'choosing':
        return this.methods(t, checkout!);
      default:
        return this.pending(t, deposit!);
    }
  }

  private methods(t: Messages, checkout: Checkout) {
    return html`${picker({
      t,
      checkout,
      picked: this.pk,
      current: this.dp?.method.code,
      last: remembered(shop(this), true),
      expanded: this.ex,
      toggle: (kind) => (this.ex = this.ex === kind ? '' : kind),
      pick: (m) => this.pick(m),
      money: (amount, of) => this.money(amount, of),
    })}
    ${this.timer(this.dp ? t.payWithin : t.chooseWithin)}`;
  }

  private spinner() {
    return html`<p class="loading"><span class="spin" aria-hidden="true"></span>${this.t.loading}</p>`;
  }

  private pending(t: Messages, d: Deposit) {
    const view = views[d.method.kind];
    // Not loaded (the deposit is only set once it is; a guard): the loading state, never a blank box.
    if (!view) return this.spinner();
    // After a partial payment only the rest is asked (DESIGN.md 10).
    const due = d.remainingAmount || d.amount;
    return view.default({
      html,
      nothing,
      fill,
      t,
      loc: this.loc,
      text: (words) => this.text(words),
      d,
      due,
      amount: this.money(due, d),
      paid: paid?.row(this.kit(d)),
      money: (amount, currency, symbol) => money(amount, currency, this.loc, symbol),
      root: this.renderRoot,
      say: (text) => this.say(text),
      update: () => this.requestUpdate(),
      timer: this.timer(t.payWithin),
      busy: this.follow!.busy,
      offline: this.off,
      check: () => this.checkNow(),
      change: Date.now() < this.closes! ? () => this.back() : undefined,
    });
  }

  private timer(label: string) {
    const { t } = this;
    const { remaining, spoken } = this.countdown;
    return html`<p part="countdown" class="row">
      <span>${label}</span><strong class="mono">${clock(remaining)}</strong>
      <span class="sr" aria-live="polite" aria-atomic="true">${spoken ? fill(t.left, duration(spoken.n, spoken.unit, this.loc)) : ''}</span>
    </p>`;
  }

  /** Dispatches one of the element's events (documented by the class's @fires tags). */
  private emit(event: Event) {
    this.dispatchEvent(event);
  }

  /** What views/paid.ts gets to describe the deposit `d`. */
  private kit(d: Deposit): PaidKit {
    return { html, nothing, d, text: (words) => this.text(words), money: (amount: string) => this.money(amount, d) };
  }

  /** An amount of a method or deposit: in its currency, or exactly in its token (crypto). */
  private money(amount: string, { currency, symbol }: { currency: string; symbol?: string }) {
    return money(amount, currency, this.loc, symbol);
  }

  private say(text: string) {
    // A trailing no-break space makes a repeated message a change, so it is announced again.
    this.nt = this.nt === text ? `${text}\u00a0` : text;
  }

  private async checkNow() {
    await this.follow!.checkNow();
    if (this.dp?.status === 'pending') this.say(this.off ? this.t.offline : this.t.stillPending);
  }
}

// Two copies of the element's code on one page (two script tags, or an older and a newer version) must not throw:
// the first definition wins. Without a DOM (server rendering) there may be no registry at all.
if (typeof customElements !== 'undefined') {
  const defined = customElements.get('kasir-checkout');
  if (!defined) customElements.define('kasir-checkout', KasirCheckout);
  else if (defined !== KasirCheckout) console.warn('<kasir-checkout> is already defined (another copy of @kasir/checkout): the first one is used.');
}

declare global {
  interface HTMLElementTagNameMap {
    'kasir-checkout': KasirCheckout;
  }
}
