// The deposit domain's two expected transition failures, answered as ApiErrors in the words of the route that
// asked: the interface words them differently per endpoint (a 400 "Deposit not found" on the sandbox update, a 404
// elsewhere), so the wording is the caller's and the mapping is here, once.
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import {
  DepositNotFound,
  DepositNotPending,
  recordPayment,
  transitionDeposit,
  type PaymentRequest,
  type TransitionKind,
} from './service.js';
import type { DepositView } from './view.js';
import { recordFailedAttempt, type AttemptRequest } from './attempts.js';
import type { ProviderDeps } from '../instance/deps.js';
import { ApiError } from '../http/errors.js';

export interface TransitionWording {
  /** Status of the "Deposit not found" answer (and its envelope label when it is not the status text). */
  notFound: { status: ContentfulStatusCode; label?: string };
  /** The 400 message for a deposit that is no longer pending, given its status. */
  notPending: (status: string) => string;
}

/** transitionDeposit, with DepositNotFound and DepositNotPending thrown as the ApiErrors `wording` says. */
export function transitionOrAnswer(
  deps: ProviderDeps,
  depositId: string,
  kind: Exclude<TransitionKind, 'expired'>,
  wording: TransitionWording,
  merchantId?: string,
): Promise<DepositView> {
  return answering(wording, () => transitionDeposit(deps, depositId, kind, merchantId));
}

/**
 * recordPayment (docs/design.md, "Payments that do not go as planned"), with DepositNotFound and DepositNotPending
 * thrown as the ApiErrors `wording` says.
 */
export function paymentOrAnswer(
  deps: ProviderDeps,
  depositId: string,
  request: PaymentRequest,
  wording: TransitionWording,
): Promise<DepositView> {
  return answering(wording, () => recordPayment(deps, depositId, request));
}

/** recordFailedAttempt (docs/indonesian-payments.md), with DepositNotFound and DepositNotPending thrown as the ApiErrors `wording` says. */
export function attemptOrAnswer(
  deps: ProviderDeps,
  depositId: string,
  request: AttemptRequest,
  wording: TransitionWording,
): Promise<DepositView> {
  return answering(wording, () => recordFailedAttempt(deps, depositId, request));
}

async function answering(wording: TransitionWording, work: () => Promise<DepositView>): Promise<DepositView> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof DepositNotFound)
      throw new ApiError(wording.notFound.status, 'Deposit not found', wording.notFound.label);
    if (err instanceof DepositNotPending) throw new ApiError(400, wording.notPending(err.status));
    throw err;
  }
}
