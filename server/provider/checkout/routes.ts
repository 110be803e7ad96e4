import { z } from '@hono/zod-openapi';
import { createMiddleware } from 'hono/factory';
import { checkoutEnabledFor } from '../accounts/merchants.js';
import { createCheckout } from '../deposits/checkout.js';
import { CheckoutRequestSchema } from '../deposits/schemas.js';
import { ApiError, createRouter } from '../http/errors.js';
import type { ProviderDeps } from '../instance/deps.js';
import type { ProviderEnv } from '../http/env.js';
import {
  body,
  envelope,
  errorResponses,
  IDEMPOTENCY_PARAMETER,
  IDEMPOTENCY_RESPONSES,
  json,
  operation,
  SIGNED,
} from '../openapi/operation.js';
import { signatureAuth } from '../auth/signature.js';
import { idempotentWrites } from '../http/idempotency.js';

/** POST /v1/checkout creates a hosted checkout link (the page and its APIs are in ../checkout/). */
export function checkoutRoutes(deps: ProviderDeps) {
  const router = createRouter();
  const signed = signatureAuth(deps);

  const checkoutEnabled = createMiddleware<ProviderEnv>(async (c, next) => {
    if (!(await checkoutEnabledFor(deps.db, c.get('merchant').merchantId)))
      throw new ApiError(400, 'Checkout is not enabled', 'Bad Request');
    await next();
  });

  router.openapi(
    operation({
      method: 'post',
      path: '/v1/checkout',
      operationId: 'createCheckout',
      tags: ['Checkout'],
      summary: 'Create a hosted checkout link (valid 15 minutes)',
      security: SIGNED,
      middleware: [signed, checkoutEnabled, idempotentWrites(deps)] as const,
      request: { body: body(CheckoutRequestSchema) },
      parameters: [IDEMPOTENCY_PARAMETER],
      responses: {
        200: json(envelope(z.object({ id: z.string(), url: z.string() })), 'The checkout'),
        ...errorResponses(400, 401),
        ...IDEMPOTENCY_RESPONSES,
      },
    }),
    async (c) => {
      const checkout = await createCheckout(deps, c.get('merchant'), c.req.valid('json'));
      return c.json({ statusCode: 200, message: 'Checkout created successfully', data: checkout }, 200);
    },
  );

  return router;
}
