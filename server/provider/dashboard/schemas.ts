import { z } from '@hono/zod-openapi';
import { stringError, TIMESTAMP } from '../openapi/operation.js';

// The dashboard API's bodies and answers (routes.ts): a bearer-token API of the dashboard page, hidden from the
// OpenAPI document (it is no part of the interface).

const WebhookUrl = z
  .string(stringError)
  .trim()
  .max(2048, 'must be at most 2048 characters')
  .refine((value) => {
    try {
      const url = new URL(value);
      return (
        (url.protocol === 'http:' || url.protocol === 'https:') && !url.username && !url.password && url.hostname !== ''
      );
    } catch {
      return false;
    }
  }, 'must be an http:// or https:// URL without credentials');

export const Account = z.object({
  clientId: z.string(),
  email: z.string(),
  name: z.string(),
  orgName: z.string(),
  webhookUrl: z.string().nullable(),
  checkoutEnabled: z.boolean(),
  underpaymentTolerance: z.number(),
});

export const ClientSecret = z.object({ clientSecret: z.string() });
export const WebhookSecret = z.object({ webhookSecret: z.string() });

export const WebhookUrlBody = z.object({ webhookUrl: WebhookUrl.nullable() });
export const CheckoutBody = z.object({ enabled: z.boolean({ error: 'must be a boolean' }) });
export const UnderpaymentToleranceBody = z.object({
  underpaymentTolerance: z
    .number({ error: 'must be a number' })
    .min(0, { error: 'must be from 0 to 100' })
    .max(100, { error: 'must be from 0 to 100' })
    .multipleOf(0.01, { error: 'has at most 2 decimal places' }),
});

/** ?limit= of the lists: 1 to 100. */
export const LimitQuery = z.object({
  limit: z
    .string(stringError)
    .regex(/^\d{1,3}$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(1, 'must be at least 1').max(100, 'must be at most 100'))
    .optional(),
});

export const Delivery = z.object({
  id: z.string(),
  eventType: z.string(),
  depositId: z.string(),
  status: z.enum(['pending', 'succeeded', 'failed']),
  attemptCount: z.number(),
  nextAttemptAt: TIMESTAMP.nullable(),
  createdAt: TIMESTAMP,
  succeededAt: TIMESTAMP.nullable(),
  resendOf: z.string().nullable(),
  attempts: z.array(
    z.object({
      attemptedAt: TIMESTAMP,
      responseStatus: z.number().nullable(),
      error: z.string().nullable(),
      durationMs: z.number(),
    }),
  ),
});

export const DeliveryIdParam = z.object({
  id: z.string(stringError).min(1).max(64, 'must be at most 64 characters'),
});

const DepositStatus = z.enum(['pending', 'expired', 'completed']);

/** A deposit of the dashboard's list, with its webhook attempts (newest first). */
export const DepositRow = z.object({
  depositId: z.string(),
  createdAt: TIMESTAMP,
  method: z.string(),
  amount: z.number(),
  currency: z.string(),
  status: DepositStatus,
  attempts: z.array(
    z.object({
      time: TIMESTAMP,
      event: z.string(),
      status: z.number().nullable(),
      error: z.string().nullable(),
      durationMs: z.number(),
    }),
  ),
});

export const DepositIdParam = z.object({
  depositId: z.string(stringError).min(1).max(128, 'must be at most 128 characters'),
});

export const DepositOutcome = z.object({ depositId: z.string(), status: DepositStatus });
