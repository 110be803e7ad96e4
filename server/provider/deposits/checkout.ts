// Hosted checkout: a priced, 15-minute link whose deposit (depositId = checkout id) the shopper creates.
import type { Decimal } from 'decimal.js';
import {
  CRYPTOS,
  findCrypto,
  findFiat,
  findPaymentMethod,
  PAYMENT_METHODS,
  placesOf,
  type RateTable,
} from '../catalog/index.js';
import type { CheckoutRow } from '../db/deposit-tables.js';
import { ApiError } from '../../common/errors.js';
import type { AuthenticatedMerchant, ProviderDeps } from '../instance/deps.js';
import { newUuid } from '../db/ids.js';
import { ceilTo, money, toNumber, toText } from './money.js';
import { outputOf, quoteCryptoCovering, rateOf, requestAmount, type CryptoCoveringQuote } from './pricing.js';
import { createQuote } from './quotes.js';
import { checkoutStillDue } from './payments.js';
import { merchantOwner } from '../accounts/merchants.js';
import { checkoutById, insertCheckout } from './repository.js';
import {
  createCryptoDeposit,
  createFiatDeposit,
  DepositIdTaken,
  DepositNotPending,
  quoteMethod,
  readDepositById,
  switchDepositMethod,
  type FiatQuote,
  type SwitchRequest,
} from './service.js';
import type { MethodChoice, WalletChoice } from '../../common/widget-api.js';
import { mobileNumber, returnUrl } from '../../common/ewallet.js';
import { sendPushAgain, setReturnUrl } from './attempts.js';
import { feesPolicy, type FeesPaidByOption, type FeesPolicy } from '../../common/fee-policy.js';
import type { DepositRow, DepositView } from './view.js';

const CHECKOUT_VALIDITY_SECONDS = 15 * 60;

export type { CheckoutRow } from '../db/deposit-tables.js';

export interface CheckoutRequest {
  inputCurrency: string;
  inputAmount?: number;
  outputAmount?: number;
  outputCurrency?: string;
  /** Who bears the fee, for every kind or per kind (docs/indonesian-payments.md); default: the amount field says. */
  feesPaidBy?: FeesPaidByOption;
}

const bad = (message: string) => new ApiError(400, message);

export interface MethodOffer {
  quote: FiatQuote;
  /** What the order costs in the input currency, before any fee the shopper bears. */
  amount: Decimal;
  /** What the shopper pays on top of amount (0 when the merchant bears the fee). */
  shopperFee: Decimal;
  available: boolean;
}

type CheckoutAmounts = Pick<CheckoutRow, 'input_currency' | 'output_currency' | 'input_amount' | 'output_amount'> &
  Partial<Pick<CheckoutRow, 'fees_paid_by'>>;

/**
 * Who bears each kind's fee on a checkout (docs/indonesian-payments.md): as stored, or for a checkout made without one
 * its amount field (inputAmount the merchant, outputAmount the shopper); QRIS is always the merchant's.
 */
export function checkoutFeesPolicy(checkout: CheckoutAmounts): FeesPolicy {
  const stored = checkout.fees_paid_by ? (JSON.parse(checkout.fees_paid_by) as Partial<FeesPolicy>) : undefined;
  return feesPolicy(stored && { ...stored, qris: 'merchant' }, checkout.input_amount !== null ? 'merchant' : 'shopper');
}

/**
 * The methods a checkout offers and what each costs the shopper, at the service's rates (deps.config.rates): a kind
 * whose fee the merchant bears costs the order amount, one whose fee the shopper bears the amount that yields the
 * order after the fee (QRIS never: docs/indonesian-payments.md).
 */
export function offersFor(checkout: CheckoutAmounts, rates: RateTable): MethodOffer[] {
  const inPlaces = placesOf(checkout.input_currency)!;
  const outPlaces = placesOf(checkout.output_currency)!;
  const policy = checkoutFeesPolicy(checkout);
  const methods = PAYMENT_METHODS.filter((m) => m.currency === checkout.input_currency);
  return methods.map((method) => {
    const shopperBears = policy[method.kind] === 'shopper';
    // The order in the input currency, from the quote that charges the fee to the merchant.
    const merchantQuote =
      checkout.input_amount !== null
        ? quoteMethod(method, checkout.output_currency, { input: money(checkout.input_amount) }, rates)
        : undefined;
    const rate = merchantQuote?.rate ?? rateOf(rates, checkout.input_currency, checkout.output_currency);
    // No rate: quoteMethod throws the 400 naming outputCurrency.
    if (!rate) quoteMethod(method, checkout.output_currency, { input: money(1) }, rates);
    const amount =
      checkout.input_amount !== null
        ? money(checkout.input_amount)
        : ceilTo(money(checkout.output_amount!).dividedBy(rate!), inPlaces);
    if (!shopperBears) {
      const quote = merchantQuote ?? quoteMethod(method, checkout.output_currency, { input: amount }, rates);
      return { quote, amount, shopperFee: money(0), available: quote.withinLimits };
    }
    const output =
      checkout.output_amount !== null ? money(checkout.output_amount) : outputOf(amount, money(0), rate!, outPlaces);
    const quote = quoteMethod(method, checkout.output_currency, { output }, rates);
    const shopperFee = quote.inputAmount.minus(amount);
    return {
      quote,
      amount,
      shopperFee: shopperFee.isNegative() ? money(0) : shopperFee,
      available: quote.withinLimits,
    };
  });
}

/**
 * The cryptos a checkout offers after its fiat methods (docs/design.md, "Crypto"): those of the catalog that pair with
 * its currency, each with the token amount whose conversion covers the order (its outputAmount, or its inputAmount
 * converted to the output currency: crypto deposits carry no fee).
 */
export function cryptoOffersFor(
  checkout: Pick<CheckoutRow, 'input_currency' | 'output_currency' | 'input_amount' | 'output_amount'>,
  rates: RateTable,
): CryptoCoveringQuote[] {
  const outPlaces = placesOf(checkout.output_currency);
  const toOutput = rateOf(rates, checkout.input_currency, checkout.output_currency);
  if (outPlaces === undefined || !toOutput) return [];
  const target =
    checkout.output_amount !== null
      ? money(checkout.output_amount)
      : outputOf(money(checkout.input_amount!), money(0), toOutput, outPlaces);
  if (target.lessThanOrEqualTo(0)) return [];
  return CRYPTOS.filter((c) => c.currencies.includes(checkout.input_currency))
    .map((c) => quoteCryptoCovering(c, checkout.output_currency, target, rates))
    .filter((q): q is CryptoCoveringQuote => q !== undefined);
}

/** POST /v1/checkout: validates, prices and stores a checkout; returns {id, url}. */
export async function createCheckout(
  deps: ProviderDeps,
  merchant: AuthenticatedMerchant,
  req: CheckoutRequest,
): Promise<{ id: string; url: string }> {
  const hasIn = req.inputAmount !== undefined;
  if (hasIn === (req.outputAmount !== undefined))
    throw bad('inputAmount: send exactly one of inputAmount and outputAmount');
  const fiat = findFiat(req.inputCurrency);
  if (!fiat || !PAYMENT_METHODS.some((m) => m.currency === fiat.code)) {
    throw bad(`inputCurrency: checkout accepts ${[...new Set(PAYMENT_METHODS.map((m) => m.currency))].join(', ')}`);
  }
  const outputCurrency = req.outputCurrency ?? req.inputCurrency;
  const outPlaces = placesOf(outputCurrency);
  if (outPlaces === undefined || !rateOf(deps.config.rates, req.inputCurrency, outputCurrency))
    throw bad(`outputCurrency: unsupported currency '${outputCurrency}'`);
  const field = hasIn ? 'inputAmount' : 'outputAmount';
  const amount = requestAmount(
    (hasIn ? req.inputAmount : req.outputAmount)!,
    field,
    hasIn ? fiat.code : outputCurrency,
  );
  let policy: FeesPolicy;
  try {
    policy = feesPolicy(req.feesPaidBy, hasIn ? 'merchant' : 'shopper');
  } catch (err) {
    throw bad(`feesPaidBy.qris: ${(err as Error).message}`);
  }
  const draft = {
    input_currency: fiat.code,
    output_currency: outputCurrency,
    input_amount: hasIn ? toText(amount) : null,
    output_amount: hasIn ? null : toText(amount),
    fees_paid_by: JSON.stringify(policy),
  };
  // Throws a 400 naming outputCurrency when the pair is not allowed.
  const offers = offersFor(draft, deps.config.rates);
  if (!offers.some((o) => o.available)) {
    const inputs = offers.map((o) => o.quote.inputAmount);
    const highest = offers.reduce(
      (max, o) => (money(o.quote.method.maximumAmount).greaterThan(max) ? money(o.quote.method.maximumAmount) : max),
      money(0),
    );
    if (inputs.every((i) => i.greaterThan(highest))) {
      throw bad(
        `${field}: ${toText(amount)} is above the maximum of ${toText(highest)} ${fiat.code} of every payment method`,
      );
    }
    throw bad(`${field}: no payment method accepts this amount`);
  }
  const now = deps.now();
  const id = newUuid();
  await insertCheckout(deps.db, {
    id,
    merchant_id: merchant.merchantId,
    ...draft,
    expires_at: new Date(now.getTime() + CHECKOUT_VALIDITY_SECONDS * 1000).toISOString(),
    created_at: now.toISOString(),
  });
  return { id, url: `${deps.config.baseUrl}/checkout/${id}` };
}

export async function findCheckout(deps: ProviderDeps, id: string): Promise<CheckoutRow | undefined> {
  return checkoutById(deps.db, id);
}

/** The checkout with this id, or a 404 "Checkout not found". */
export async function requireCheckout(deps: ProviderDeps, id: string): Promise<CheckoutRow> {
  const checkout = await findCheckout(deps, id);
  if (!checkout) throw new ApiError(404, 'Checkout not found');
  return checkout;
}

export async function checkoutDeposit(
  deps: ProviderDeps,
  checkout: CheckoutRow,
): Promise<{ row: DepositRow; view: DepositView } | undefined> {
  const found = await readDepositById(deps, checkout.id);
  return found && found.row.checkout_id === checkout.id ? found : undefined;
}

/**
 * The shopper picks a method (a bankCode or a crypto id): creates the deposit whose depositId is the checkout id. The
 * same method again returns the same deposit; another one while the deposit is pending and the checkout open switches
 * it (same depositId, new details); after completion, expiry or the checkout's 15 minutes nothing can be chosen.
 * `choice` says which of the three happened.
 */
export async function chooseMethod(
  deps: ProviderDeps,
  checkout: CheckoutRow,
  code: string,
  wallet: WalletChoice = {},
): Promise<{ view: DepositView; choice: MethodChoice }> {
  // Look the code up first: an unknown one of any length is the interface's row.
  const method = findPaymentMethod(code);
  const crypto = method ? undefined : findCrypto(code);
  if (!method && !crypto) throw new ApiError(400, 'Payment method not found', 'Not Found');
  const found = await checkoutDeposit(deps, checkout);
  if (found && chosenCode(found.row) === code) {
    // A push wallet chosen again is its "try again": a new request to the phone once none awaits (docs/indonesian-payments.md).
    if (method?.flow === 'push' && found.row.status === 'pending') {
      try {
        const number =
          wallet.mobileNumber === undefined ? undefined : mobileNumber(wallet.mobileNumber, 'mobileNumber');
        return { view: await sendPushAgain(deps, checkout.id, number), choice: 'unchanged' };
      } catch (err) {
        if (!(err instanceof DepositNotPending)) throw err;
      }
    }
    // A redirect wallet chosen again with the page to come back to (the element, before it leaves for the wallet).
    if (method?.flow === 'redirect' && wallet.returnUrl !== undefined && found.row.status === 'pending') {
      return {
        view: await setReturnUrl(deps, checkout.id, returnUrl(wallet.returnUrl, 'returnUrl')),
        choice: 'unchanged',
      };
    }
    return { view: found.view, choice: 'unchanged' };
  }
  if (found && found.row.status !== 'pending')
    throw bad(`paymentMethod: the deposit is ${found.row.status}; no payment method can be chosen any more`);
  if (checkout.expires_at <= deps.now().toISOString())
    throw bad('Checkout has expired: no payment method can be chosen after 15 minutes');

  const owner = await merchantOwner(deps.db, checkout.merchant_id);
  if (found) {
    try {
      // The rest is priced inside the switch's locked transaction, from the deposit as it stands then (docs/money.md):
      // a payment committing while the shopper chooses is counted before the new method is asked for the rest.
      const { view, switched } = await switchDepositMethod(deps, checkout.id, {
        code,
        price: (bound, _row, rest) =>
          methodRequest(
            bound,
            { ...checkout, ...checkoutStillDue(checkout, { status: 'pending', ...rest }) },
            owner.merchantId,
            code,
            wallet,
          ),
      });
      return { view, choice: switched ? 'switched' : 'unchanged' };
    } catch (err) {
      if (err instanceof DepositNotPending)
        throw bad(`paymentMethod: the deposit is ${err.status}; no payment method can be chosen any more`);
      throw err;
    }
  }
  const { next, value } = await methodRequest(deps, checkout, owner.merchantId, code, wallet);
  const options = {
    depositId: checkout.id,
    checkoutId: checkout.id,
    exchangeInfo: true,
    order: { currency: checkout.input_currency, value },
  };
  try {
    const view =
      next.depositType === 'fiat'
        ? await createFiatDeposit(deps, owner, next.request, options)
        : await createCryptoDeposit(deps, owner, next.request, options);
    return { view, choice: 'created' };
  } catch (err) {
    // Two choices at once: the database let one win; the other answers as a repeated choice, or switches.
    if (err instanceof DepositIdTaken) return chooseMethod(deps, checkout, code, wallet);
    throw err;
  }
}

/** The method a checkout deposit is paid with: its bankCode, or its crypto id. */
const chosenCode = (row: DepositRow) => row.method_code ?? row.input_currency;

/**
 * The deposit request a chosen method makes for this checkout, priced as the session lists it. A crypto is priced
 * from a quote held for the deposit (convert estimation, docs/design.md, "Quotes, banks, bank transfers"), which the
 * deposit then claims.
 */
async function methodRequest(
  deps: ProviderDeps,
  checkout: CheckoutRow,
  merchantId: string,
  code: string,
  wallet: WalletChoice = {},
): Promise<{ next: SwitchRequest; value?: string }> {
  const note = `Checkout ${checkout.id}`;
  const crypto = findCrypto(code);
  if (crypto) {
    const offer = cryptoOffersFor(checkout, deps.config.rates).find((o) => o.crypto.id === code);
    if (!offer) throw bad(`paymentMethod: ${code} does not pair with ${checkout.input_currency}`);
    if (!offer.withinLimits)
      throw bad(
        `paymentMethod: ${toText(offer.inputAmount)} ${code} is above the maximum of ${crypto.maximumAmount} ${code}`,
      );
    const inputAmount = toNumber(offer.inputAmount);
    const quote = await createQuote(deps, merchantId, {
      inputCurrency: crypto.id,
      outputCurrency: checkout.output_currency,
      inputAmount,
    });
    const next: SwitchRequest = {
      depositType: 'crypto',
      request: {
        inputCurrency: crypto.id,
        inputAmount,
        outputCurrency: checkout.output_currency,
        note,
        quoteId: quote.quoteId,
      },
    };
    // What the crypto's price covers, in the checkout's currency: its amount, or what its outputAmount costs before fees.
    return {
      next,
      value:
        checkout.input_amount ??
        toText(
          ceilTo(
            money(checkout.output_amount!).dividedBy(
              rateOf(deps.config.rates, checkout.input_currency, checkout.output_currency)!,
            ),
            placesOf(checkout.input_currency) ?? 2,
          ),
        ),
    };
  }
  const method = findPaymentMethod(code)!;
  const offer = offersFor(checkout, deps.config.rates).find((o) => o.quote.method.code === code);
  if (!offer) throw bad(`paymentMethod: ${code} does not accept ${checkout.input_currency}`);
  if (!offer.available) {
    const amount = `${toText(offer.quote.inputAmount)} ${checkout.input_currency}`;
    throw bad(
      offer.quote.inputAmount.greaterThan(method.maximumAmount)
        ? `paymentMethod: ${amount} is above the maximum of ${method.maximumAmount} ${method.currency} for ${code}`
        : `paymentMethod: ${code} does not accept ${amount} (minimum ${method.minimumAmount}, maximum ${method.maximumAmount})`,
    );
  }
  return {
    next: {
      depositType: 'fiat',
      request: {
        inputCurrency: checkout.input_currency,
        inputAmount: toNumber(offer.quote.inputAmount),
        outputCurrency: checkout.output_currency,
        balanceType: 'fiat',
        paymentMethod: code,
        note,
        ...wallet,
      },
    },
  };
}
