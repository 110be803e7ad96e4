import { z } from '@hono/zod-openapi';
import { pagination, stringError, TIMESTAMP } from '../openapi/operation.js';

// Validation of the recipient endpoints (/v1/recipient). Messages are short; the envelope prefixes each with the
// field's path, e.g. "bank.accountType: must be Checking or Savings".

const text = (max = 200) => z.string(stringError).trim().max(max, `must be at most ${max} characters`);
const required = (max = 200) => text(max).min(1, 'is required');

const RECIPIENT_TYPES = ['Individual', 'Business'] as const;
const ACCOUNT_TYPES = ['Checking', 'Savings'] as const;

const RecipientType = z.enum(RECIPIENT_TYPES, { error: 'must be Individual or Business' });
const AccountType = z.enum(ACCOUNT_TYPES, { error: 'must be Checking or Savings' });
const EmailField = z
  .string(stringError)
  .trim()
  .max(254, 'must be at most 254 characters')
  .pipe(z.email({ error: 'must be a valid email address' }));
/** A string, never a number: a JSON number would lose leading zeros and long account numbers. */
const AccountNumber = z
  .string({
    error: (i) => (i.input === undefined ? 'is required' : 'must be a string (a number would lose leading zeros)'),
  })
  .trim()
  .regex(/^[0-9A-Za-z -]{1,34}$/, 'must be 1 to 34 letters, digits, spaces or dashes');

const bankShape = {
  accountName: required(),
  currency: required(10),
  country: required(100),
  bankName: text().optional(),
  accountNumber: AccountNumber.optional(),
  paymentCode: text(50).optional(),
  achNumber: text(50).optional(),
  fedwireNumber: text(50).optional(),
  ibanNumber: text(50).optional(),
  ifsc: text(50).optional(),
  accountType: AccountType.optional(),
};

const objectError = {
  error: (i: { input?: unknown }) => (i.input === undefined ? 'is required' : 'must be an object'),
};

const BankInput = z.object(bankShape, objectError).openapi('RecipientBankInput');

export const CreateRecipientBody = z
  .object(
    {
      name: required(),
      email: EmailField,
      address: required(500),
      city: required(100),
      postCode: required(20),
      recipientType: RecipientType.optional(),
      organizationId: text(64).optional(),
      reference: text(500).optional(),
      bank: BankInput,
    },
    objectError,
  )
  .openapi('CreateRecipientRequest');

/** Every field optional (the interface's shown request sends only name and bank.currency); present fields are validated. */
export const UpdateRecipientBody = z
  .object(
    {
      name: required().optional(),
      email: EmailField.optional(),
      address: required(500).optional(),
      city: required(100).optional(),
      postCode: required(20).optional(),
      recipientType: RecipientType.optional(),
      organizationId: text(64).optional(),
      reference: text(500).optional(),
      bank: z
        .object(
          {
            ...bankShape,
            accountName: bankShape.accountName.optional(),
            currency: bankShape.currency.optional(),
            country: bankShape.country.optional(),
          },
          objectError,
        )
        .optional(),
    },
    objectError,
  )
  .openapi('UpdateRecipientRequest');

const wholeNumber = (min: number, max: number) =>
  z
    .string(stringError)
    .regex(/^\d{1,7}$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`));

const SORTS = ['createdAt', '-createdAt', 'updatedAt', '-updatedAt'] as const;

export const ListQuery = z.object({
  limit: wholeNumber(1, 100).optional(),
  page: wholeNumber(1, 1_000_000).optional(),
  sort: z.enum(SORTS, { error: 'must be createdAt or updatedAt, with - in front for descending' }).optional(),
  search: text(100).optional(),
  country: text(100).optional(),
  currency: text(10).optional(),
});

const Id = z.string(stringError).min(1, 'is required').max(64, 'must be at most 64 characters');
export const IdParam = z.object({ id: Id.openapi({ param: { name: 'id', in: 'path' } }) });
export const IdQuery = z.object({ id: Id });

const BankView = z
  .object({
    _id: z.string(),
    accountName: z.string(),
    bankName: z.string(),
    accountNumber: z.string(),
    paymentCode: z.string(),
    currency: z.string(),
    country: z.string(),
    achNumber: z.string(),
    fedwireNumber: z.string(),
    ibanNumber: z.string(),
    ifsc: z.string(),
    accountType: z.string(),
  })
  .openapi('RecipientBank');

export const RecipientView = z
  .object({
    id: z.string(),
    name: z.string(),
    recipientType: z.string(),
    email: z.string(),
    organizationId: z.string(),
    userId: z.string(),
    address: z.string(),
    city: z.string(),
    postCode: z.string(),
    reference: z.string(),
    bank: z.array(BankView),
    createdAt: TIMESTAMP,
    updatedAt: TIMESTAMP,
  })
  .openapi('Recipient');

export const RecipientPage = pagination(RecipientView).openapi('RecipientPage');

export type CreateRecipientInput = z.infer<typeof CreateRecipientBody>;
export type UpdateRecipientInput = z.infer<typeof UpdateRecipientBody>;
export type ListRecipientsQuery = z.infer<typeof ListQuery>;
export type Recipient = z.infer<typeof RecipientView>;
