// The deposit core's public surface, for the routes and for the rest of the service (webhooks, dashboard).
export { loadDepositView, toDepositView, type DepositView, type DepositRow, type ActivityRow } from './view.js';
export {
  createFiatDeposit, createCryptoDeposit, transitionDeposit, expireOverdue, expireIfOverdue, readDeposit, readDepositById, listDeposits,
  DepositNotFound, DepositNotPending, type TransitionKind,
} from './service.js';
export { createCheckout, chooseMethod, findCheckout, CHECKOUT_VALIDITY_SECONDS } from './checkout.js';
