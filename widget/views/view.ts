// The shapes between the element and the views of a pending deposit. A pending view's module (va.ts, qris.ts,
// ewallet.ts, crypto.ts, each kind's in ../method-kinds.ts) is loaded when a deposit of its kind is about to be shown, and is
// its own chunk of the script-tag build with the frame (pending.ts) inside; it imports Lit like any Lit module (the
// entry holds it). What it gets from the element is the deposit and the element's state, in a kit.
import type { CSSResultGroup, nothing, ReactiveControllerHost, TemplateResult } from 'lit';
import type { WidgetApi } from '../api.js';
import type { DepositStatusController } from './deposit-status-controller.js';
import type { Locale, Messages } from '../i18n.js';
import type { Deposit } from '../types.js';

/** What a view gets. */
export interface ViewKit {
  loc: Locale;
  /** A view's words in `loc`, with the shop's `strings` over them. */
  text<T>(words: Record<Locale, T>): T;
  /** The pending deposit. */
  d: Deposit;
  /**
   * What is still due (docs/design.md, "Payments that do not go as planned": after a partial payment, only the rest),
   * as the API sends it: what is copied.
   */
  due: string;
  /** `due`, formatted for `loc` (a token amount exactly, with its symbol). */
  amount: string;
  /** Formats another amount for `loc` (with `symbol`: a token amount). */
  money(amount: string, of: { currency: string; symbol?: string }): string;
  /** The element's shadow root. */
  root: ParentNode;
  /** Announces `text` to screen readers. */
  say(text: string): void;
  /** Renders the element again. */
  update(): void;
  /** The numbered steps to pay (`part="instructions"`); `{0}` in a step is the method's name. */
  steps(list: string[]): TemplateResult;
}

/** A pending deposit's details and steps, between the frame's heading and its countdown. */
export type View = (kit: ViewKit) => TemplateResult;

/** What the element hands a pending screen: the view's kit without the steps (the frame makes them) and the frame's state. */
interface PendingKit extends Omit<ViewKit, 'steps'> {
  /** The element's words. */
  t: Messages;
  /** The countdown row. */
  timer: TemplateResult;
  /** After a partial payment, what arrived and what is still due (`part="paid"`, views/paid.ts). */
  paid?: TemplateResult | typeof nothing;
  /** A status check is in flight. */
  busy: boolean;
  /** The connection is lost (the follower retries). */
  offline?: boolean;
  /** Checks the status now. */
  check(): void;
  /** Back to the method list, to switch the deposit to another method; none once the checkout's window closed. */
  change?: () => void;
}

/** A pending deposit's whole screen: a view in the frame. */
export type Screen = (kit: PendingKit) => TemplateResult;

/** A pending view's module: its screen, the styles to adopt for it, and the deposit's follower. */
export interface PendingModule {
  default: Screen;
  styles: CSSResultGroup;
  DepositStatusController: typeof DepositStatusController;
  /**
   * A view that links out (crypto, e-wallet): why the deposit cannot be shown, when its link is of a scheme the
   * element does not open (links.ts), in the shopper's words (`text`).
   */
  unsafe?(d: Deposit, text: ViewKit['text']): string | undefined;
}

/** The refund form as the element holds it (views/refund.ts's RefundForm, loaded only when money is owed back). */
export interface RefundPanel {
  /** The deposit it is for. */
  readonly id: string;
  render(): TemplateResult | typeof nothing;
}

/** What the element hands views/paid.ts (a finished deposit's words) and views/refund.ts: the deposit, and its amounts formatted for `loc`. */
export interface PaidKit {
  /** Words in the element's language, with the shop's `strings` over them. */
  text<W>(w: Record<Locale, W>): W;
  d: Deposit;
  /** Formats an amount of the deposit's currency, or of another (`of`: a token amount with its symbol). */
  money(amount: string, of?: { currency: string; symbol?: string }): string;
  /** The element: a finished deposit with money owed back gets its refund form (views/refund.ts). */
  host: HTMLElement & ReactiveControllerHost;
  /** The widget API the element speaks (the refund form asks it what is owed). */
  api: Pick<WidgetApi, 'call'>;
  /** The id of the deposit the element shows now (a form shows only under its own deposit). */
  shown(): string | undefined;
  /** Keeps the refund form the element renders in its result panel: given the one it holds, answers the one to hold. */
  keepRefund(next: (held: RefundPanel | undefined) => RefundPanel): void;
}
