// The deposit webhooks the service sends (docs/design.md, "Webhooks" and "Payments that do not go as planned"), one row
// each: the status its deposit has, its body schema's name in the OpenAPI document and when it is sent. Everything else
// reads this table: the bodies' schemas (deposits/schemas.ts depositWebhookSchema), the document's `webhooks`
// (deposits/routes.ts), the outbox's types, and, through the document, the merchant's generated client types
// (server/merchant/client/openapi.ts).

export const DEPOSIT_WEBHOOKS = {
  'deposit.completed': {
    status: 'completed',
    name: 'DepositCompletedWebhook',
    when: 'A deposit was paid (what arrived reaches the amount due less the underpayment tolerance; overpaidAmount says by how much more).',
  },
  'deposit.expired': {
    status: 'expired',
    name: 'DepositExpiredWebhook',
    when: 'A deposit expired, was cancelled, or was expired by the sandbox status update; paidAmount above 0 is owed back.',
  },
  'deposit.partially_paid': {
    status: 'pending',
    name: 'DepositPartiallyPaidWebhook',
    when: 'Less than was due arrived while the deposit is pending (docs/design.md, "Payments that do not go as planned"); it stays pending, remainingAmount says what is still due.',
  },
  'deposit.paid_late': {
    status: 'expired',
    name: 'DepositPaidLateWebhook',
    when: 'A payment arrived after the deposit expired or was cancelled (docs/design.md, "Payments that do not go as planned"): recorded with late: true, the status stays expired; the merchant owes a refund.',
  },
  'deposit.payment_failed': {
    status: 'pending',
    name: 'DepositPaymentFailedWebhook',
    when: 'An attempt to pay failed (declined, insufficient balance, or a wallet push not approved in time): the deposit stays pending, data.lastFailure says why; the shopper may try again or choose another method.',
  },
} as const;

/** The deposit webhooks' types. */
export type DepositEventType = keyof typeof DEPOSIT_WEBHOOKS;
