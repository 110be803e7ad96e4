// The two ways a checkout's change reaches the shop's hooks, over one hook runner: the webhook receiver (POST
// /webhooks/kasir) and the follower, which reads every open checkout again at a pace whatever happens to webhooks.
import type { Hono } from 'hono';
import type { MerchantService } from '../widget-api/service.js';
import { createFollower, type Follower } from './follower.js';
import { deliveryHooks, webhookRoutes, type DeliveryHooks, type WebhookReceiverOptions } from './receiver.js';

export interface WebhookDelivery {
  /** The receiver's routes, to mount at /webhooks/kasir. */
  routes: Hono;
  /** What runs each hook once, shared with reconcile. */
  hooks: DeliveryHooks;
  /** Started at once; every checkout the service opens is added to it. */
  follower: Follower;
}

export function webhookDelivery(
  service: MerchantService,
  options: WebhookReceiverOptions & { followMs: number },
): WebhookDelivery {
  const hooks = deliveryHooks(service, options);
  const follower = createFollower(service, hooks, {
    followMs: options.followMs,
    log: options.log,
    webhookUrlHint:
      'it must reach /webhooks/kasir where this API is mounted, e.g. https://shop.example/api/webhooks/kasir',
  });
  service.onOpened = (id) => follower.add(id);
  follower.start();
  return { routes: webhookRoutes(service, options, hooks), hooks, follower };
}
