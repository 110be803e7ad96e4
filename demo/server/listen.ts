// Starts the demo shop's server and logs what a shopper opens.
import { startMerchant, type MerchantServerOptions, type RunningMerchant } from '@kasir/merchant';
import { createStorefront } from './storefront.js';

export async function listenStorefront(options: MerchantServerOptions): Promise<RunningMerchant> {
  const merchant = await startMerchant(options, createStorefront({
    ...options,
    distDir: process.env.KASIR_DIST_DIR,
    // A real shop marks its order paid here (and ships it); the demo logs it.
    onDepositCompleted: ({ checkoutId, orderId, deposit }) => {
      console.log(`[merchant] deposit ${checkoutId}${orderId ? ` (order ${orderId})` : ''} completed: ${deposit.inputAmount} ${deposit.inputCurrency}`);
    },
  }));
  console.log(`[merchant] demo shop on ${merchant.url} (also /react/ and /vue/), widget API on ${merchant.url}/api`);
  return merchant;
}
