// The webhook receiver: Standard Webhooks v1 verification, staleness and replay protection, dedupe on
// webhook-id, then the cache update (which wakes SSE listeners) and the merchant's completion or expiry hook.
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { MemoryReplayGuard, verifyWebhook, WebhookVerificationError, type ReplayGuard } from '../common/standard-webhooks.js';
import type { Deposit as UpstreamDeposit } from './client/types.js';
import { errorBody } from './http.js';
import type { MerchantService } from './service.js';

interface DepositWebhook {
  type?: string;
  orderId?: string;
  depositId?: string;
  status?: string;
  data?: UpstreamDeposit;
}

export interface WebhookReceiverOptions {
  secret: string;
  toleranceSeconds: number;
  now?: () => number;
  /** Remembers accepted webhook ids (default in memory; share one, e.g. on Redis, across several copies). */
  replayGuard?: ReplayGuard;
}

/** POST / (mounted at /api/webhooks/kasir). */
export function webhookRoutes(service: MerchantService, options: WebhookReceiverOptions) {
  const now = options.now ?? Date.now;
  const guard = options.replayGuard ?? new MemoryReplayGuard(200_000, now);
  /** Deposits whose completion or expiry hook ran (once per deposit and kind), and runs in progress. */
  const done = new Set<string>();
  const running = new Map<string, Promise<void>>();

  const runHookOnce = async (status: 'completed' | 'expired', deposit: UpstreamDeposit, webhookId: string) => {
    const hook = status === 'completed' ? service.hooks.onDepositCompleted : service.hooks.onDepositExpired;
    const id = deposit.depositId;
    const key = `${status}:${id}`;
    if (!hook || done.has(key)) return;
    const inFlight = running.get(key);
    if (inFlight) return inFlight;
    const run = (async () => {
      await hook({ checkoutId: id, orderId: service.orderIdOf(id), deposit, webhookId });
      done.add(key);
    })().finally(() => running.delete(key));
    running.set(key, run);
    return run;
  };

  const app = new Hono();
  app.post('/', bodyLimit({ maxSize: 256 * 1024, onError: (c) => c.json(errorBody(413, 'Webhook body too large'), 413) }), async (c) => {
    // Verified over the raw bytes exactly as received, never a re-encoding of them.
    const bytes = new Uint8Array(await c.req.arrayBuffer());
    const raw = new TextDecoder().decode(bytes);
    let id: string;
    try {
      ({ id } = await verifyWebhook(options.secret, bytes, c.req.raw.headers, {
        toleranceSeconds: options.toleranceSeconds, now: () => new Date(now()), replayGuard: guard,
      }));
    } catch (err) {
      // A retry of a delivery already processed, or a replay within the window: acknowledged, not repeated.
      if (err instanceof WebhookVerificationError && err.reason === 'replay') {
        return c.json({ statusCode: 200, message: 'Duplicate delivery: already processed' }, 200);
      }
      const message = !(err instanceof WebhookVerificationError) ? 'Bad webhook'
        : err.reason === 'too_old' ? 'Stale webhook: webhook-timestamp is too old'
        : err.reason === 'bad_signature' ? 'Bad webhook signature'
        : err.message;
      return c.json(errorBody(401, message), 401);
    }

    let event: DepositWebhook;
    try {
      event = JSON.parse(raw) as DepositWebhook;
      // An object, nothing else: arrays, strings, numbers and null are refused like malformed JSON.
      if (!event || typeof event !== 'object' || Array.isArray(event)) throw new Error();
    } catch {
      await guard.release(id);
      return c.json(errorBody(400, 'Webhook body is not a JSON object'), 400);
    }
    try {
      const deposit = event.data && typeof event.data === 'object' && typeof event.data.depositId === 'string' ? event.data : undefined;
      const depositId = deposit?.depositId ?? event.depositId ?? event.orderId;
      if (deposit) {
        service.deposits.update(service.view(deposit));
        if (deposit.status === 'completed' || deposit.status === 'expired') await runHookOnce(deposit.status, deposit, id);
      } else if (typeof depositId === 'string') {
        // No deposit in the body: re-read it now (bounded), which updates the cache and wakes listeners.
        service.deposits.invalidate(depositId);
        void service.deposits.get(depositId).catch(() => undefined);
      }
      while (done.size > 200_000) done.delete(done.values().next().value!);
      return c.json({ statusCode: 200, message: 'Webhook received' }, 200);
    } catch (err) {
      // Forget the id so the sender's retry is processed again.
      await guard.release(id);
      console.error('[merchant] webhook processing failed (the payment service will retry):', err instanceof Error ? err.message : err);
      return c.json(errorBody(503, 'Webhook could not be processed; retry later'), 503);
    }
  });
  return app;
}
