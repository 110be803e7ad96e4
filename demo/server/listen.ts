// Starts the demo shop's server and logs what a shopper opens. Logs are JSON lines (pino) on stdout; each hook run is
// one line (`deposit completed` / `deposit expired`, with its checkoutId and orderId), which is what a real shop would
// replace with marking the order paid (tests count these lines to check a hook ran once).
import { createLogger, startMerchant, type MerchantServerOptions, type RunningMerchant } from '@kasir/merchant';
import { createStorefront } from './storefront.js';

export async function listenStorefront(options: MerchantServerOptions): Promise<RunningMerchant> {
  const log = options.logger ?? createLogger('kasir-demo');
  // A paid order is recorded before the webhook is acknowledged, as a shop's database write would be: these lines go
  // straight to stdout (synchronous for files and pipes on Linux), not through the request log's buffer, which a
  // killed process loses.
  const orders = createLogger('kasir-demo', { destination: process.stdout });
  const merchant = await startMerchant(
    options,
    createStorefront({
      ...options,
      logger: log,
      distDir: process.env.KASIR_DIST_DIR,
      // A real shop marks its order paid here (and ships it); the demo logs it.
      onDepositCompleted: ({ checkoutId, orderId, deposit, eventId, paidAmount, overpaidAmount }) => {
        orders.info(
          {
            checkoutId,
            orderId,
            webhookId: eventId,
            amount: deposit.inputAmount,
            currency: deposit.inputCurrency,
            paidAmount,
            overpaidAmount,
          },
          'deposit completed',
        );
      },
      onDepositExpired: ({ checkoutId, orderId, eventId, paidAmount }) => {
        // paidAmount above "0": the shop owes it back (docs/design.md, "Payments that do not go as planned").
        orders.info({ checkoutId, orderId, webhookId: eventId, paidAmount }, 'deposit expired');
      },
      onDepositPartiallyPaid: ({ checkoutId, orderId, eventId, payment, remainingAmount }) => {
        orders.info({ checkoutId, orderId, webhookId: eventId, payment, remainingAmount }, 'partial payment received');
      },
      onDepositPaidLate: ({ checkoutId, orderId, eventId, payment }) => {
        orders.info({ checkoutId, orderId, webhookId: eventId, payment }, 'payment received after expiry: refund it');
      },
      // The shopper said where the money owed back goes (docs/refunds.md): a real shop queues the payout here; the demo
      // logs the amount and the recipient's kind and id (not the account details).
      onRefundRequested: ({ checkoutId, orderId, eventId, amount, currency, reason, recipient }) => {
        const to =
          recipient.type === 'bank'
            ? { type: 'bank', recipientId: recipient.recipientId, bankCode: recipient.bankCode }
            : { type: 'crypto', network: recipient.network };
        orders.info({ checkoutId, orderId, eventId, amount, currency, reason, recipient: to }, 'refund requested');
      },
    }),
  );
  log.info(
    { url: merchant.url, redis: !!options.redisUrl },
    `demo shop on ${merchant.url} (also /react/ and /vue/), widget API on ${merchant.url}/api`,
  );
  return merchant;
}
