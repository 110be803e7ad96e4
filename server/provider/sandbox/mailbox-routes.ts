import { z } from '@hono/zod-openapi';
import { normalizeEmail } from '../auth/accounts.js';
import { ErrorSchema, json, operation, PUBLIC, stringError, TIMESTAMP } from '../openapi/operation.js';
import { ApiError, createRouter } from '../http/errors.js';
import type { ProviderDeps } from '../instance/deps.js';

const Message = z
  .object({
    id: z.string(),
    to: z.string(),
    subject: z.string(),
    text: z.string(),
    code: z.string().nullable(),
    createdAt: TIMESTAMP,
  })
  .openapi('MailboxMessage');

const mailboxRoute = operation({
  method: 'get',
  path: '/sandbox/mailbox',
  operationId: 'readSandboxMailbox',
  tags: ['Sandbox'],
  security: PUBLIC,
  summary: 'Mail the sandbox sent to an address (newest first; sandbox mode without SMTP only)',
  request: {
    query: z.object({
      email: z
        .string(stringError)
        .trim()
        .max(254, 'is too long')
        .pipe(z.email({ error: 'must be a valid email address' })),
    }),
  },
  responses: {
    200: json(
      z.object({ statusCode: z.number(), message: z.string(), data: z.array(Message) }),
      'Messages, newest first (at most 20)',
    ),
    400: json(ErrorSchema, 'Invalid email'),
    403: json(ErrorSchema, 'Not in sandbox mode'),
  },
});

/** GET /sandbox/mailbox?email=: where the sandbox's OTP mail can be read when SMTP_URL is not set. */
export function mailboxRoutes(deps: ProviderDeps) {
  const router = createRouter();
  router.openapi(mailboxRoute, async (c) => {
    if (!deps.config.sandbox) throw new ApiError(403, 'The mailbox exists in sandbox mode only');
    const email = normalizeEmail(c.req.valid('query').email);
    const rows = await deps.db
      .selectFrom('sandbox_mailbox')
      .selectAll()
      .where('to_email', '=', email)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(20)
      .execute();
    c.header('Cache-Control', 'no-store');
    return c.json(
      {
        statusCode: 200,
        message: rows.length ? 'Mailbox' : 'No mail for this address',
        data: rows.map((r) => ({
          id: r.id,
          to: r.to_email,
          subject: r.subject,
          text: r.body,
          code: r.code,
          createdAt: r.created_at,
        })),
      },
      200,
    );
  });
  return router;
}
