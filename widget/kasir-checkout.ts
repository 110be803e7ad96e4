import {
  LitElement,
  adoptStyles,
  html,
  isServer,
  type CSSResultGroup,
  nothing,
  type PropertyDeclaration,
  type PropertyDeclarations,
  type PropertyValues,
  type TemplateResult,
} from 'lit';
import { ApiError, detail, WidgetApi } from './api.js';
import { CountdownController } from './countdown-controller.js';
import { LoadController } from './load-controller.js';
import {
  KasirCompletedEvent,
  KasirErrorEvent,
  type KasirErrorDetail,
  KasirExpiredEvent,
  KasirMethodSelectedEvent,
  KasirPendingEvent,
  KasirReadyEvent,
} from './events.js';
import {
  clock,
  duration,
  fill,
  locales,
  money,
  offline,
  prepareFormats,
  shopperLocale,
  type Locale,
  type Messages,
  type Words,
} from './i18n.js';
import { styles } from './kasir-checkout.styles.js';
import { picker } from './picker.js';
import type { Checkout, CheckoutState, Deposit, Method, MethodKind } from './types.js';
import type { Described } from './failures.js';
import { methodKinds } from './method-kinds.js';
import type { DepositStatusController } from './views/deposit-status-controller.js';
import type { PaidKit, PendingModule, RefundPanel, ViewKit } from './views/view.js';
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
    (K extends 'strings'
      ? { attribute: false }
      : AttributeName<K> extends K
        ? { attribute?: never }
        : { attribute: AttributeName<K> }) &
    (NonNullable<KasirCheckoutOptions[K]> extends number
      ? { type: NumberConstructor }
      : NonNullable<KasirCheckoutOptions[K]> extends boolean
        ? { type: BooleanConstructor }
        : unknown);
};

/** The styles of a modal's dialog and of a pending view, when shown. */
type Styled = [CSSResultGroup?, CSSResultGroup?];

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

/** The views loaded so far, by kind and locale (the build's chunk of a view carries one language's words). */
const loaded: Partial<Record<`${MethodKind} ${Locale}`, PendingModule>> = {};
/** The deposit's follower, from the first view loaded (the same in every view, whatever its language). */
let Follower: PendingModule['DepositStatusController'] | undefined;
/**
 * Loads a kind's view with its words in `locale` (a kind this version does not know is shown as an account). One that
 * fails to load is a network failure: the element offers "Try again", which loads it again.
 */
const loadView = async (kind: MethodKind, locale: Locale) => {
  try {
    Follower = (loaded[`${kind} ${locale}`] = await (methodKinds[kind] || methodKinds.va).view(locale))
      .DepositStatusController;
  } catch {
    throw new ApiError({ kind: 'network' });
  }
};
/** The words of failures (but a lost connection's), loaded when one happens; unset while they cannot be loaded. */
let failures: (typeof import('./failures.js'))['default'] | undefined;
/**
 * The words of a deposit paid not as planned (docs/design.md, "Payments that do not go as planned"), loaded when one is
 * shown.
 */
let paid: (typeof import('./views/paid.js'))['default'] | undefined;
/** With `modal`: the dialog (modal.ts), its own chunk, once loaded. */
let dialog: typeof import('./modal.js') | undefined;

/**
 * What a server-rendered element starts from (its `served` attribute, which @kasir/merchant's `renderCheckout`
 * writes): the checkout as the widget API answers it and the element's words in its language.
 */
export interface Served {
  checkout: Checkout;
  words: Words;
}

/**
 * Without a DOM (a server rendering the element with Lit's server rendering): the `served` attribute for `checkout`
 * in `locale`, with the words and, for a modal, the dialog loaded, as the element's first render needs them.
 */
export async function servedAttribute(checkout: Checkout, locale: Locale, modal?: boolean): Promise<string> {
  if (!Object.hasOwn(locales, locale)) throw new RangeError(`locale: one of ${Object.keys(locales).join(', ')}`);
  if (modal) dialog = await import('./modal.js');
  return JSON.stringify({ checkout, words: (await locales[locale]()).default } satisfies Served);
}

/** Rethrows a failure once its words are loaded (a lost connection's are the element's own: nothing may load then). */
const failed = async (err: unknown): Promise<never> => {
  if ((err as ApiError).kind != 'network')
    failures ??= await import('./failures.js').then(
      (m) => m.default,
      () => undefined,
    );
  throw err;
};

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
 * @attr {string} amount - What the order costs, a plain decimal string with at most the currency's decimal places (the shop's server says how many), e.g. `150000` (no thousands separator).
 * @attr {string} currency - The order's currency (default `IDR`).
 * @attr {'en' | 'id'} locale - Language and number formats (default: the page's `lang`, else the browser's language, else `en`).
 * @attr {boolean} modal - Shows nothing until `open()`, then the checkout in a modal dialog (the payment goes on while it is closed).
 * @attr {number} poll-interval - First polling interval in ms (default 3000, also for anything not a positive number; at least 1000; backs off to 10 s after a minute).
 * @attr {'loading' | 'choosing' | 'pending' | 'completed' | 'expired' | 'error'} state - The phase, reflected (read only).
 * @attr {string} served - Written by @kasir/merchant's `renderCheckout` with the element's server-rendered markup: the checkout and the words the element starts from (not set by hand).
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
 * @csspart refund - In the result panel, when money is owed back and the shop's backend takes claims: the form asking where to send it (a bank account, or a crypto address on the deposit's network).
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
    orderToken: { attribute: 'order-token' },
    amount: {},
    currency: {},
    locale: {},
    pollInterval: { attribute: 'poll-interval', type: Number },
    modal: { type: Boolean },
    strings: { attribute: false },
    state: { reflect: true },
    // Internal state, never an attribute (its names shortened by the build, like every private member's).
    __checkout: { state: true },
    __deposit: { state: true },
    __words: { state: true },
    __lapsed: { state: true },
    __offline: { state: true },
    __notice: { state: true },
    __switching: { state: true },
    __expanded: { state: true },
    __shown: { state: true },
  } satisfies OptionDeclarations & PropertyDeclarations;

  // The options, typed and documented once by KasirCheckoutOptions (props.ts), here with their defaults.
  endpoint = '';
  checkoutId = '';
  orderId: KasirCheckoutOptions['orderId'];
  orderToken: KasirCheckoutOptions['orderToken'];
  amount = '';
  currency = 'IDR';
  /** Unset follows the page's `lang`, else the browser's language. */
  locale: KasirCheckoutOptions['locale'];
  pollInterval = 3000;
  modal: KasirCheckoutOptions['modal'];
  strings: KasirCheckoutOptions['strings'];
  /** The phase: loading, choosing, pending, completed, expired or error (reflected, read only). */
  state: CheckoutState = 'loading';

  // Private members are `__` names: the script-tag build shortens them (vite.config.ts, with a name cache).
  private __checkout: Checkout | null = null;
  private __deposit: Deposit | null = null;
  /** The element's words in the shopper's language, once loaded (locales/). */
  private __words?: Words;
  // Unset (falsy) until first used.
  /** The checkout's window to choose a method ran out in front of the shopper. */
  private __lapsed?: boolean;
  /** The follower cannot reach the server (it keeps trying). */
  private __offline?: boolean;
  /** What screen readers are told (a polite live region). */
  private __notice?: string;
  /** The shopper went back to the method list from a pending deposit, to switch to another method. */
  private __switching?: boolean;
  /** The method list's open group. */
  private __expanded?: string;
  /** `open()` was called (a modal loads its checkout then, not before), or the checkout came with the page. */
  private __shown?: boolean;
  /** Money is owed back for a finished deposit: the refund form (views/refund.ts; it shows only for the deposit shown). */
  private __refund?: RefundPanel;
  /** Started from the page's HTML (`served`): the list keeps the server's order, so nothing moves once it is shown. */
  private __served?: boolean;

  /** Why the pending deposit cannot be shown safely: a link of a scheme the element does not open (views/links.ts). */
  private __badLink?: string;
  /** The deposit the last update showed (a new read of it is another object only when it changed). */
  private __seen?: Deposit | null;
  /** The styles of the dialog and of the pending view that this element's shadow root holds besides its own. */
  private __styled: Styled = [];
  private __api = new WidgetApi('');
  /** The method being chosen (while the choice's task runs). */
  private __picked?: Method;
  /** When (this page's clock) the checkout's window closes: no switching after it (the server refuses). */
  private __closes?: number;

  private __countdown = new CountdownController(this, () => {
    if (this.__deposit) this.__follower?.checkNow();
    else this.__lapsed = true;
  });

  /** Follows the deposit while it is pending (made when the first one is shown: its module comes with the views). */
  private __follower?: DepositStatusController;

  /**
   * Loads the checkout when its attributes change (a modal's once opened): the one named by `checkout-id`, else the
   * one remembered for this order, else a new one. A newer load cancels an older one (its requests are aborted, its
   * answer never shown). Runs after the update that changed them, so the element shows `loading` meanwhile.
   */
  private __load = new LoadController(this, {
    args: () =>
      !this.modal || this.__shown
        ? ([this.endpoint, this.checkoutId, this.orderId, this.amount, this.currency, this.orderToken] as const)
        : undefined,
    task: async ([endpoint, id, orderId, amount, currency, orderToken], signal) => {
      // A choice still being made (or refused) belongs to the checkout shown until now.
      this.__choice.reset();
      this.__api = new WidgetApi(endpoint, orderToken);
      try {
        // An attribute the element cannot use, before any request: a URL or path; a currency code; a positive plain
        // decimal. How many places the currency has is the server's to say (it refuses more: failures.ts), never the
        // browser's Intl data, which differs between browsers.
        const bad = !/^(https?:\/|\.*)\/\S*$/i.test(endpoint)
          ? 'endpoint'
          : !(id || orderId) &&
            (!/^[a-z]{3}$/i.test(currency) ? 'currency' : !/^(?=.*[1-9])\d+(\.\d+)?$/.test(amount) && 'amount');
        if (bad) throw new ApiError({ kind: 'config', message: bad });
        const key = this.__key();
        const known = id || remembered(key);
        let checkout: Checkout | null = null;
        if (known) {
          try {
            checkout = await this.__api.call<Checkout>(`/checkouts/${encodeURIComponent(known)}`, undefined, signal);
          } catch (err) {
            if (id || (err as ApiError).status !== 404) throw err;
          }
          // A remembered checkout that is over (paid, expired, or its window closed unused) belongs to an earlier
          // order: start afresh rather than replay its outcome. A pending one is resumed. Back from a redirect wallet's
          // page (views/ewallet-redirect.ts remembers which checkout left): its outcome shows.
          if (
            !id &&
            checkout &&
            (checkout.deposit
              ? checkout.deposit.status !== 'pending' && remembered('back') != checkout.id
              : lapsed(checkout))
          )
            checkout = null;
        }
        if (!checkout) {
          checkout = await this.__api.call<Checkout>(
            '/checkouts',
            orderId ? { orderId } : { amount, currency },
            signal,
          );
          if (!id) remember(key, checkout.id);
        }
        // Choosing a method is a JSON POST: to another origin (an endpoint given as a URL, not a path) it first waits a
        // round trip for its preflight, unless the browser holds the answer from an earlier one. So one is made now (an
        // OPTIONS request, which changes nothing), while the shopper reads the list.
        if (endpoint[0] == 'h')
          fetch(this.__api.url(`/checkouts/${checkout.id}/deposit`), { method: 'OPTIONS' }).catch(() => {});
        // A pending deposit is shown with its kind's view: the spinner stays until that is loaded.
        if (checkout.deposit?.status === 'pending') await loadView(checkout.deposit.method.kind, this.__locale);
        return checkout;
      } catch (err) {
        return failed(err);
      }
    },
    onDone: (checkout) => {
      this.__checkout = checkout;
      this.__deposit = checkout.deposit;
      this.__switching = false;
      this.__closes = Date.now() + Date.parse(checkout.expiresAt) - Date.parse(checkout.serverTime);
      // Already over when opened: the first screen is the expired one, not a method list that then lapses.
      this.__lapsed = lapsed(checkout);
    },
  });

  /**
   * Creates the deposit for the chosen method, or switches the pending one to it (the server keeps the deposit's id
   * and answers its new details). The method's view loads while the deposit is made, so it is there when the deposit
   * is (the list shows the chosen method busy meanwhile). Reset by a new load.
   */
  private __choice = new LoadController(this, {
    task: async ([method]: readonly [Method], signal) => {
      const shown = loadView(method.kind, this.__locale);
      shown.catch(() => {}); // awaited below, unless the deposit fails first
      try {
        const deposit = await this.__api.call<Deposit>(
          `/checkouts/${this.__checkout!.id}/deposit`,
          { method: method.code },
          signal,
        );
        await shown;
        return deposit;
      } catch (err) {
        return failed(err);
      }
    },
    onDone: (deposit) => {
      this.__deposit = deposit;
      this.__switching = false;
      remember(shop(this), deposit.method.code, true); // offered first at this shop next time
    },
  });

  /** The element's words in the shopper's language: one file, loaded in parallel with the checkout (locales/). */
  private __wordsLoad = new LoadController(this, {
    args: () => [this.__locale] as const,
    task: async ([locale]) => {
      const words = locales[locale]();
      prepareFormats(locale); // while the words and the checkout download
      // A change of locale while a deposit is shown: its view in the new one (a view's chunk has one language).
      const d = this.__deposit;
      if (d?.status === 'pending') await loadView(d.method.kind, locale);
      return (await words).default;
    },
    onDone: (words) => (this.__words = words),
  });

  /**
   * With `modal`: the dialog (modal.ts), its own chunk, loaded once the element has `modal` (a checkout on the page
   * itself needs none of it). One that fails to load is loaded again by `open()`.
   */
  private __dialogLoad = new LoadController(this, {
    args: () => (this.modal ? ([] as const) : undefined),
    task: () => import('./modal.js'),
    onDone: (loaded) => (dialog = loaded),
  });

  /** Creates the deposit for a method (one choice at a time); the deposit's own method again goes back to it. */
  private __pick(method: Method) {
    if (this.__choice.status === 'pending') return; // a double click chooses once
    if (method.code === this.__deposit?.method.code) return void (this.__switching = false);
    this.dispatchEvent(new KasirMethodSelectedEvent(method));
    this.__picked = method;
    this.__choice.run([method]);
  }

  /** What failed (a load, a choice, the words): "Try again" runs it again. */
  private get __failed() {
    return [this.__load, this.__choice, this.__wordsLoad].find((load) => load.status === 'failed');
  }

  /**
   * Complete once the element's words in its language are in too (a change of `locale` loads another file), and with
   * `modal`, the dialog.
   */
  protected override async getUpdateComplete() {
    await super.getUpdateComplete();
    await Promise.all([this.__wordsLoad.settled, this.__dialogLoad.settled]);
    return super.getUpdateComplete();
  }

  /** The element's words, with the shop's `strings` over them (a lost connection's while none could be loaded). */
  private get __t(): Messages {
    return { ...offline[this.__locale], ...this.__words, ...this.strings } as Messages;
  }

  /**
   * Words in the element's language (a screen's, a failure's), with the shop's `strings` over them. A field, so it is
   * handed to the views and the dialog as it is.
   */
  private __text: ViewKit['text'] = (words) => ({ ...words[this.__locale], ...this.strings });

  /** `locale`, else the page's language, else the browser's: the first of a locale the element has (i18n.ts); else English. */
  private get __locale(): Locale {
    // A server's render always names its locale (the page's language is the browser's to know).
    return isServer ? this.locale! : shopperLocale(this.locale);
  }

  /** With `modal`: shows the checkout in a modal dialog (loading it the first time). */
  async open() {
    if (!this.modal) return;
    this.__shown = true;
    if (this.__dialogLoad.status == 'failed') this.__dialogLoad.run(); // could not be loaded before: again
    await this.updateComplete;
    // Its dialog could not be loaded again (the connection is lost): nothing can be shown, so the shop is told.
    if (this.__dialogLoad.status == 'failed') return this.__report({ kind: 'network', message: this.__t.noConnection });
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
  private __key() {
    const o = order(this);
    const same = [...document.querySelectorAll('kasir-checkout')].filter((e) => order(e) === o);
    return `${o}|${location.pathname}${location.search}|${same.indexOf(this)}`;
  }

  /** Forgets the remembered checkout and starts a new one (offered once a payment expired). */
  restart() {
    remember(this.__key(), null);
    this.__load.run();
  }

  /** Back to the method list after a refused choice, or from a pending deposit to switch it. */
  private __back() {
    this.__choice.reset(); // forgets a refused choice
    this.__switching = true;
    // After a partial payment the server prices the methods for what is still due (docs/design.md, "Payments that do
    // not go as planned").
    if (+this.__deposit!?.paidAmount)
      this.__api.call<Checkout>(`/checkouts/${this.__checkout!.id}`).then(
        (c) => (this.__checkout = c),
        () => {},
      );
  }

  /**
   * What failed: its kind, the shopper's words and what they can do (failures.ts), and what the shop's developers read.
   * A lost connection (or the words of others could not be loaded: the connection is lost) is the element's own.
   */
  private __failure(): Described | null {
    const { __t: t, endpoint, amount, currency } = this;
    // Starting over makes sense once a checkout of the shop's own order was open.
    const restart = this.__checkout && !this.checkoutId ? 'restart' : undefined;
    if (this.__badLink)
      return { text: this.__badLink, action: restart, detail: { kind: 'server', message: this.__badLink } };
    const err = this.__failed?.error as ApiError | undefined;
    if (!err) return null;
    return (
      failures?.(err, {
        text: this.__text,
        endpoint,
        amount,
        currency,
        open: !!this.__checkout,
        restart,
      }) || {
        detail: detail(err, t.noConnection),
        text: t.noConnection,
        action: 'retry',
      }
    );
  }

  /** Tells the shop's developers: the `kasir-error` event, and one line in the console naming the URL and status. */
  private __report(detail: KasirErrorDetail) {
    console.warn('<kasir-checkout>', detail.message, detail);
    this.dispatchEvent(new KasirErrorEvent(detail));
  }

  /**
   * A server-rendered element (@kasir/merchant's `renderCheckout`) holds its first screen in a declarative shadow root:
   * emptied here, and rendered again from the same data in the same task (before the browser paints).
   */
  protected override createRenderRoot() {
    this.shadowRoot?.replaceChildren();
    return super.createRenderRoot();
  }

  // The phase (and why a pending deposit cannot be shown) derive from the loads and the deposit: derived state only.
  override willUpdate() {
    // The first update of a server-rendered element starts from the page's HTML: the checkout and the words the shop's
    // server rendered it with, so it shows what the server did and nothing is fetched again. A pending deposit is
    // loaded as usual (its screen is a chunk of its own, and the server rendered the loading state).
    const served = !this.hasUpdated && this.getAttribute('served');
    if (served) {
      const { checkout, words }: Served = JSON.parse(served);
      this.__served = this.__shown = true;
      this.__api = new WidgetApi(this.endpoint);
      this.__wordsLoad.done(words);
      if (checkout.deposit?.status != 'pending') this.__load.done(checkout);
      // Where no update runs (a server's render), the countdown's first tick, without its timer.
      if (isServer) {
        this.__countdown.set(checkout.expiresAt, checkout.serverTime);
        this.__countdown.stop();
      }
    }
    const d = this.__deposit;
    const view = d && loaded[`${d.method.kind} ${this.__locale}`];
    // A link of a scheme the element does not open (a hostile or broken backend's `javascript:`): no link, an error.
    this.__badLink = d?.status === 'pending' ? view?.unsafe?.(d, this.__text) : undefined;
    const listed = this.__switching && d?.status === 'pending';
    const loading = !this.__load.status || this.__load.status === 'pending';
    this.state =
      (!this.__words && this.__wordsLoad.status !== 'failed') || loading
        ? 'loading'
        : this.__failure()
          ? 'error'
          : !this.__checkout
            ? 'loading'
            : d && !listed
              ? d.status
              : this.__lapsed
                ? 'expired'
                : 'choosing';
  }

  // Before rendering, what follows the phase: the pending view's styles, the deposit's follower, the countdown (its
  // first tick lands in this update) and what screen readers are told.
  protected override update(changed: PropertyValues) {
    const { __checkout: checkout, __deposit: d, state } = this;
    const view = d && loaded[`${d.method.kind} ${this.__locale}`];
    const listed = this.__switching && d?.status === 'pending';
    // A payment not as planned (part of one, more than due, or money for an expired deposit): its words load, then
    // it is announced. The deposit changes only when it did (an unchanged read is the same object, from its ETag).
    const changedDeposit = d !== this.__seen;
    this.__seen = d;
    if (changedDeposit && +d!?.paidAmount && (d!.status != 'completed' || +d!.overpaidAmount)) {
      // Finished with money owed back, it also loads the refund form (views/refund.ts, docs/refunds.md).
      import('./views/paid.js').then(
        (m) => this.__say((paid = m.default).said(this.__kit(d!))),
        () => {},
      );
    }
    // The dialog's and the pending screen's styles join the element's own (as constructed stylesheets, like lit adopts
    // those); a view's stay once the deposit is over.
    const styled: Styled = [dialog?.styles, view ? view.styles : this.__styled[1]];
    if (styled.some((styles, i) => styles !== this.__styled[i])) {
      this.__styled = styled;
      adoptStyles(this.renderRoot as ShadowRoot, [
        ...KasirCheckout.elementStyles,
        ...KasirCheckout.finalizeStyles(styled.filter((styles) => styles) as CSSResultGroup[]),
      ]);
    }
    if (changedDeposit && d?.status === 'pending') this.__countdown.set(d.expiresAt, d.serverTime);
    if (changed.has('state')) {
      // The outcome is heard even when focus is elsewhere on the page.
      if (state === 'completed') this.__say(this.__t.paidTitle);
      if (state === 'expired') this.__say(this.__t.expiredTitle);
      if (state === 'pending') {
        this.__follower ??= new Follower!(this);
        this.__follower.start(
          checkout!.capabilities?.events ? this.__api.url(`/checkouts/${checkout!.id}/events`) : null,
        );
        // The list of a switch: the deposit is still followed (it may be paid meanwhile). Expired: the follower itself
        // stops, or follows on a deposit that may still be paid late.
      } else if (!listed && state != 'expired') this.__follower?.stop();
      // The list counts down the checkout's window to choose; while switching, the deposit's time to pay goes on.
      if (state === 'choosing' && !d) this.__countdown.set(checkout!.expiresAt, checkout!.serverTime);
      else if (state !== 'pending' && !listed) this.__countdown.stop();
    }
    super.update(changed);
  }

  override updated(changed: PropertyValues) {
    if (!changed.has('state')) return;
    const { __checkout: checkout, __deposit: deposit } = this;
    const before = changed.get('state');
    // Loaded, or started from the page's HTML (the first update).
    if ((before || 'loading') == 'loading' && checkout) this.dispatchEvent(new KasirReadyEvent(checkout));
    // A deposit's phase is told with its event; an error is reported.
    const told = { pending: KasirPendingEvent, completed: KasirCompletedEvent, expired: KasirExpiredEvent }[
      this.state as 'pending'
    ];
    if (told) this.dispatchEvent(new told(deposit!));
    if (this.state == 'error') this.__report(this.__failure()!.detail);
    // The list shown: once the browser is idle, QRIS's view (the screen that costs most to draw) is loaded, so a tap on
    // it waits for the deposit only, and its encoder is warmed (views/qris.ts). Nothing shows; the chunk is the tap's.
    if (this.state == 'choosing' && checkout!.methods.some((m) => m.kind == 'qris'))
      (self.requestIdleCallback || setTimeout)(() => loadView('qris', this.__locale).catch(() => {}));
    // Move focus to the new screen's heading when the shopper was working in the element (not on first load).
    const active = document.activeElement;
    if (before && before !== 'loading' && (active === this || !active || active === document.body)) {
      this.renderRoot.querySelector<HTMLElement>('h2')?.focus();
    }
  }

  override render(): TemplateResult | typeof nothing {
    const t = this.__t;
    const card = html`<div class="card" lang=${this.__locale} aria-busy=${this.state === 'loading'}>
      ${this.__screen(t)}
      <p class="sr" role="status">${this.__notice}</p>
    </div>`;
    // Modal: the card in a native dialog (modal.ts); nothing until that is loaded (a closed dialog shows nothing either).
    return this.modal ? (dialog?.dialog(this, this.__text, card) ?? nothing) : card;
  }

  private __screen(t: Messages) {
    const { __checkout: checkout, __deposit: deposit } = this;
    switch (this.state) {
      case 'loading':
        return this.__spinner();
      case 'error': {
        const { text, action, detail } = this.__failure()!;
        const failed = this.__failed;
        const act = action == 'retry' ? () => failed?.run() : action == 'back' ? this.__back : this.restart;
        return html`<div part="result" class="result bad" role="alert">
          <h2 tabindex="-1">${t.errorTitle}</h2>
          <p>${text}</p>
          ${action == 'back' ? html`<small>${detail.message}</small>` : nothing}
          ${action ? html`<button class="primary" @click=${act}>${t[action]}</button>` : nothing}
        </div>`;
      }
      case 'completed':
        return html`<div part="result" class="result ok">
          <span class="icon" aria-hidden="true">✓</span>
          <h2 tabindex="-1">${t.paidTitle}</h2>
          <p>${fill(t.paidText, this.__money(deposit!.amount, deposit!), deposit!.method.name)}</p>
          <p>${paid?.note(this.__kit(deposit!))}</p>
          ${this.__refund?.render()}
        </div>`;
      case 'expired':
        return html`<div part="result" class="result bad">
          <h2 tabindex="-1">${t.expiredTitle}</h2>
          <p>${+deposit!?.paidAmount ? paid?.note(this.__kit(deposit!)) : t.expiredText}</p>
          ${this.__refund?.render()}
          ${this.checkoutId ? nothing : html`<button class="primary" @click=${this.restart}>${t.restart}</button>`}
        </div>`;
      case 'choosing':
        return this.__methods(t, checkout!);
      default:
        return this.__pending(t, deposit!);
    }
  }

  private __methods(t: Messages, checkout: Checkout) {
    return html`${picker({
      t,
      checkout,
      picked: this.__choice.status === 'pending' ? this.__picked : undefined,
      current: this.__deposit?.method.code,
      last: this.__served ? null : remembered(shop(this), true),
      expanded: this.__expanded,
      toggle: (kind) => (this.__expanded = this.__expanded === kind ? '' : kind),
      pick: (m) => this.__pick(m),
      money: this.__money,
    })}
    ${this.__timer(this.__deposit ? t.payWithin : t.chooseWithin)}`;
  }

  private __spinner() {
    // Before the words arrive, a no-break space holds the line's height: the spinner does not move when they come.
    return html`<p class="loading"><span class="spin" aria-hidden="true"></span>${this.__words?.loading ?? '\u00a0'}</p>`;
  }

  private __pending(t: Messages, d: Deposit) {
    const view = loaded[`${d.method.kind} ${this.__locale}`];
    // Not loaded (the deposit is only set once it is, and a change of locale loads it in the new one): the loading
    // state, never a blank box.
    if (!view) return this.__spinner();
    // After a partial payment only the rest is asked (docs/design.md, "Payments that do not go as planned").
    const due = d.remainingAmount || d.amount;
    return view.default({
      t,
      loc: this.__locale,
      text: this.__text,
      d,
      due,
      amount: this.__money(due, d),
      paid: paid?.row(this.__kit(d)),
      money: this.__money,
      root: this.renderRoot,
      say: (text) => this.__say(text),
      update: () => this.requestUpdate(),
      timer: this.__timer(t.payWithin),
      busy: this.__follower!.busy,
      offline: this.__offline,
      check: () => this.__checkNow(),
      change: Date.now() < this.__closes! ? () => this.__back() : undefined,
    });
  }

  private __timer(label: string) {
    const { remaining, spoken } = this.__countdown;
    return html`<p part="countdown" class="row">
      <span>${label}</span><strong class="mono">${clock(remaining)}</strong>
      <span class="sr" aria-live="polite" aria-atomic="true">${spoken ? fill(this.__t.left, duration(spoken.n, spoken.unit, this.__locale)) : ''}</span>
    </p>`;
  }

  /** What views/paid.ts gets to describe the deposit `d`. */
  private __kit(d: Deposit): PaidKit {
    return {
      d,
      text: this.__text,
      money: (amount, of = d) => this.__money(amount, of),
      host: this,
      api: this.__api,
      shown: () => this.__deposit?.id,
      keepRefund: (next) => {
        this.__refund = next(this.__refund);
        this.requestUpdate();
      },
    };
  }

  /**
   * An amount of a method, a deposit or any `of` with a currency: in that currency, or exactly in its token (crypto). A
   * field, so it is handed to the picker and the views as it is.
   */
  private __money: ViewKit['money'] = (amount, { currency, symbol }) => money(amount, currency, this.__locale, symbol);

  private __say(text: string) {
    // A trailing no-break space makes a repeated message a change, so it is announced again.
    this.__notice = this.__notice === text ? `${text}\u00a0` : text;
  }

  private async __checkNow() {
    await this.__follower!.checkNow();
    if (this.__deposit?.status === 'pending') this.__say(this.__offline ? this.__t.offline : this.__t.stillPending);
  }
}

// Two copies of the element's code on one page (two script tags, or an older and a newer version) must not throw:
// the first definition wins. Without a DOM (server rendering) there may be no registry at all.
if (typeof customElements !== 'undefined') {
  const defined = customElements.get('kasir-checkout');
  if (!defined) customElements.define('kasir-checkout', KasirCheckout);
  else if (defined !== KasirCheckout) console.warn('<kasir-checkout> is already defined: the first copy is used.');
}

declare global {
  interface HTMLElementTagNameMap {
    'kasir-checkout': KasirCheckout;
  }
}
