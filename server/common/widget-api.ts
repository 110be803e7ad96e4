// The widget API (widget/WIDGET-API.md) that <kasir-checkout> speaks, implemented once. The merchant backend
// (createKasirApi, over its payment-service client) and the sandbox's hosted checkout page (over its database) each
// supply a WidgetBackend; these routes read the request, answer in the envelope and honour ETags. What only one of
// them offers (creating a checkout, server-sent events, CORS) it adds around them.
import type { Checkout, Deposit } from '@kasir/checkout';
import { Hono, type Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { ApiError } from './errors.js';
import { matchesEtag } from './etag.js';
import { mobileNumber, returnUrl } from './ewallet.js';
import { checkShopperText } from './shopper-text.js';
import type { WidgetDepositRecord } from './widget-projection.js';

interface WidgetDepositRead {
  deposit: WidgetDepositRecord;
  /** Validator of the deposit as a shopper sees it. */
  etag: string;
  /** The deposit's JSON without its closing brace, when the backend keeps it serialised (the hot read path). */
  jsonHead?: string;
}

/** What an e-wallet's flow takes with the choice: a push the shopper's number (E.164), a redirect the page to come back to. */
export interface WalletChoice {
  mobileNumber?: string;
  returnUrl?: string;
}

/**
 * The wallet fields of a choice (`phone`, `returnUrl`), checked; the page to come back to must be one the server's
 * configuration allows (`isReturnPage`), never one judged by the request's own Origin or Host, which any client sets.
 */
function walletChoice(backend: WidgetBackend, id: string, body: Record<string, unknown>): WalletChoice {
  const wallet: WalletChoice = {};
  if (body.phone !== undefined) wallet.mobileNumber = mobileNumber(checkShopperText(body.phone, 'phone', 32), 'phone');
  if (body.returnUrl !== undefined) {
    const back = returnUrl(body.returnUrl, 'returnUrl');
    // Not an open redirect: the wallet page sends the shopper back only to a page of the shop's configured site.
    if (!backend.isReturnPage(new URL(back), id))
      throw new ApiError(400, 'returnUrl: a page of the site the checkout is on (an allowed origin of the shop)');
    wallet.returnUrl = back;
  }
  return wallet;
}

/** What choosing a method did: made the deposit, found it chosen with that method already, or switched it. */
export type MethodChoice = 'created' | 'unchanged' | 'switched';

const CHOICE_ANSWERS: Record<MethodChoice, { status: 200 | 201; message: string }> = {
  created: { status: 201, message: 'Payment method chosen' },
  unchanged: { status: 200, message: 'Payment method already chosen' },
  switched: { status: 200, message: 'Payment method changed' },
};

/** What a server provides to serve the widget API for its checkouts. Expected failures throw ApiError. */
export interface WidgetBackend {
  /** The checkout with its methods and deposit, stamped with serverTime; 404 when the id is not a checkout. */
  getCheckout(id: string): Promise<Checkout>;
  /**
   * Chooses a method: creates the deposit, answers the one chosen before with the same method, or switches it; a push
   * e-wallet chosen again sends a new request to the phone (docs/indonesian-payments.md).
   */
  chooseMethod(
    id: string,
    method: string,
    wallet?: WalletChoice,
  ): Promise<{ deposit: WidgetDepositRecord; choice: MethodChoice }>;
  /** Whether a redirect wallet may send the shopper back to `url`: decided from the server's configuration only. */
  isReturnPage(url: URL, checkoutId: string): boolean;
  /** The checkout's deposit; 404 when no method was chosen yet. */
  readDeposit(id: string): Promise<WidgetDepositRead>;
  /** readDeposit's answer when it is at hand without waiting (a cached deposit), else undefined: the status read's fast path. */
  depositNow?(id: string): WidgetDepositRead | undefined;
  /** Cancels the pending deposit (it expires). */
  cancel(id: string): Promise<WidgetDepositRecord>;
  /** Sandbox only: the payment arrives, or the time runs out. Without it the sandbox routes do not exist. */
  sandboxSet?(id: string, status: 'completed' | 'expired'): Promise<WidgetDepositRecord>;
  /**
   * Sandbox only: a payment of `amount` (decimal text, in the deposit's currency; default what is still due;
   * docs/design.md, "Payments that do not go as planned").
   */
  sandboxPay?(id: string, amount?: string): Promise<WidgetDepositRecord>;
}

/** `application/json`, with or without parameters (`; charset=utf-8`). */
const isJsonType = (type: string | undefined): boolean => !!type && /^\s*application\/json\s*(;|$)/i.test(type);

/** Only `application/json` bodies: a type a page can send cross-site without a CORS preflight is refused (415). */
function requireJsonType(c: Context): void {
  if (!isJsonType(c.req.header('content-type'))) throw new ApiError(415, 'Send the body as application/json');
}

/**
 * Every state-changing call is sent as `application/json`, with a body or without: a form or a no-cors fetch cannot
 * send that type, so a cross-site call is always preflighted (and refused unless its origin is allowed), even one
 * with no body, such as a cancel.
 */
export const stateChanging = createMiddleware(async (c, next) => {
  requireJsonType(c);
  await next();
});

/**
 * Reads a JSON object body, or throws a 400/415 in the envelope. Only `application/json` is read: a type a page can
 * send cross-site without a CORS preflight (text/plain, forms) is refused.
 */
export async function jsonBody(c: Context): Promise<Record<string, unknown>> {
  requireJsonType(c);
  const text = await c.req.text();
  if (!text.trim()) return {};
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ApiError(400, 'Malformed JSON in request body');
  }
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw new ApiError(400, 'The body must be a JSON object');
  return body as Record<string, unknown>;
}

/** What a checkout id can be, on both servers: 1 to 128 letters, digits, `_` and `-`. */
const CHECKOUT_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** Whether `id` can be a checkout id; one that cannot is simply not found (and never asked for upstream). */
export const isCheckoutId = (id: string): boolean => CHECKOUT_ID.test(id);

/** The `:id` of a checkout route; anything that cannot be a checkout id is simply not found. */
export function checkoutIdParam(c: Context): string {
  const id = c.req.param('id') ?? '';
  if (!isCheckoutId(id)) throw new ApiError(404, 'Checkout not found');
  return id;
}

export function ok<T>(c: Context, data: T, status: 200 | 201 = 200, message = 'Success'): Response {
  return c.json({ statusCode: status, message, data }, status);
}

/** A sandbox payment's `amount`: absent, or a positive decimal (JSON number or decimal text). */
function paymentAmount(value: unknown): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
  if (typeof text !== 'string' || !/^\d{1,20}(\.\d{1,18})?$/.test(text))
    throw new ApiError(400, 'amount: send a positive decimal amount');
  return text;
}

/**
 * The status read's 200 body: the envelope around the deposit stamped with `serverTime`. A deposit kept serialised
 * (jsonHead) is not encoded again: only serverTime is new per answer.
 */
function depositReadBody(read: WidgetDepositRead, serverTime: string): string {
  const data =
    read.jsonHead === undefined
      ? JSON.stringify({ ...read.deposit, serverTime })
      : `${read.jsonHead},"serverTime":"${serverTime}"}`;
  return `{"statusCode":200,"message":"Success","data":${data}}`;
}

/** The widget API's routes over a backend, to mount at the API's root. */
export function widgetApiRoutes(backend: WidgetBackend, now: () => number = Date.now): Hono {
  const app = new Hono();
  const stamped = (deposit: WidgetDepositRecord): Deposit => ({
    ...deposit,
    serverTime: new Date(now()).toISOString(),
  });

  app.get('/checkouts/:id', async (c) => ok(c, await backend.getCheckout(checkoutIdParam(c))));

  app.post('/checkouts/:id/deposit', stateChanging, async (c) => {
    const id = checkoutIdParam(c);
    const body = await jsonBody(c);
    const { method } = body;
    if (typeof method !== 'string' || !/^[A-Za-z0-9_.-]{1,64}$/.test(method))
      throw new ApiError(400, "method: send the code of one of the checkout's methods");
    const { deposit, choice } = await backend.chooseMethod(id, method, walletChoice(backend, id, body));
    // 201 the first time, 200 for the same method again or a switch.
    const answer = CHOICE_ANSWERS[choice];
    return ok(c, stamped(deposit), answer.status, answer.message);
  });

  // Most of a shop's traffic (every pending shopper, every few seconds): a cached deposit is answered without a wait.
  const answerRead = (c: Context, read: WidgetDepositRead): Response => {
    c.header('ETag', read.etag);
    c.header('Cache-Control', 'no-cache');
    if (matchesEtag(c.req.header('if-none-match'), read.etag)) return c.body(null, 304);
    c.header('Content-Type', 'application/json');
    return c.body(depositReadBody(read, new Date(now()).toISOString()));
  };
  app.get('/checkouts/:id/deposit', (c): Response | Promise<Response> => {
    const id = checkoutIdParam(c);
    const known = backend.depositNow?.(id);
    return known ? answerRead(c, known) : backend.readDeposit(id).then((read) => answerRead(c, read));
  });

  app.post('/checkouts/:id/cancel', stateChanging, async (c) =>
    ok(c, stamped(await backend.cancel(checkoutIdParam(c))), 200, 'Deposit cancelled'),
  );

  const { sandboxSet, sandboxPay } = backend;
  if (sandboxSet) {
    // Body {amount?} (optional, as JSON): a payment of that amount; without it, of what is still due.
    app.post('/sandbox/checkouts/:id/pay', stateChanging, async (c) => {
      const id = checkoutIdParam(c);
      const amount = paymentAmount((await jsonBody(c)).amount);
      const deposit = sandboxPay
        ? await sandboxPay.call(backend, id, amount)
        : await sandboxSet.call(backend, id, 'completed');
      return ok(c, stamped(deposit), 200, 'Sandbox: payment received');
    });
    app.post('/sandbox/checkouts/:id/expire', stateChanging, async (c) =>
      ok(c, stamped(await sandboxSet.call(backend, checkoutIdParam(c), 'expired')), 200, 'Sandbox: deposit expired'),
    );
  }
  return app;
}
