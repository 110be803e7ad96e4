// @kasir/merchant: the merchant backend as a library (createKasirApi, verifyWebhook) and a server (startMerchant).
export { createKasirApi, type KasirApi, type ServerOrder } from './api.js';
export type { RenderCheckoutOptions } from './widget-api/render-checkout.js';
export {
  ConfigError,
  loadMerchantConfig,
  type KasirApiOptions,
  type MerchantConfig,
  type MerchantServerOptions,
} from './config.js';
export { createMerchantApp, startMerchant, type MerchantApp, type RunningMerchant } from './server.js';
export { toNodeHandler } from './node-handler.js';
export { widgetScriptRoutes } from './widget-api/widget-script.js';
export type {
  CompletedDeposit,
  DepositHookEvent,
  DepositPayment,
  ExpiredDeposit,
  FailedPayment,
  MerchantHooks,
  OrderCustomer,
  PaidLateDeposit,
  PartiallyPaidDeposit,
  PricedOrder,
  RefundRecipient,
  RefundRequest,
} from './hooks.js';
export type { FeesPaidBy } from './model.js';
export { verifyWebhook, type KasirWebhookEvent } from './webhooks/receiver.js';
export type { ReconcileLine, ReconcileOptions } from './webhooks/reconcile.js';
export { createLogger, type Logger } from '../common/log.js';
export {
  WebhookVerificationError,
  type VerifyWebhookOptions,
  type WebhookVerificationReason,
} from '../common/standard-webhooks.js';
export { PaymentServiceClient } from './client/client.js';
export type { RequestSigner, SignableRequest } from './client/signing.js';
export type { CheckReport, CheckResult } from './check.js';
export type { DepositRecord, DepositsQuery } from './orders/records.js';
export { PaymentServiceError, PaymentServiceUnavailableError } from './client/errors.js';
export type * from './client/types.js';
export type { WidgetCheckout, WidgetDeposit, WidgetMethod } from './widget-api/views.js';
