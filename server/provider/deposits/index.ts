// The deposit core's public surface, for the routes and for the rest of the service (webhooks, dashboard).
export { loadDepositView, toDepositView, type DepositView, type DepositRow, type ActivityRow } from './view';
export {
  createFiatDeposit, createCryptoDeposit, transitionDeposit, expireOverdue, expireIfOverdue, readDeposit, readDepositById, listDeposits,
  DepositNotFound, DepositNotPending, type TransitionKind,
} from './service';
export { createCheckout, chooseMethod, findCheckout, CHECKOUT_VALIDITY_SECONDS } from './checkout';
