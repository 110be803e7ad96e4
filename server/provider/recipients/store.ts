import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import { findBank } from '../catalog/index.js';
import type { Database, Db } from '../db/database.js';
import type { RecipientBanksTable, RecipientsTable } from '../db/account-tables.js';
import type { AuthenticatedMerchant } from '../instance/deps.js';
import { newRecordId } from '../db/ids.js';
import { paginate, type Page } from '../openapi/pagination.js';
import type { CreateRecipientInput, ListRecipientsQuery, Recipient, UpdateRecipientInput } from './schemas.js';

const DEFAULT_LIMIT = 10;

function view(row: RecipientsTable, banks: RecipientBanksTable[]): Recipient {
  return {
    id: row.id,
    name: row.name,
    recipientType: row.recipient_type,
    email: row.email,
    organizationId: row.organization_id,
    userId: row.user_id,
    address: row.address,
    city: row.city,
    postCode: row.post_code,
    reference: row.reference,
    bank: banks.map((b) => ({
      _id: b.id,
      accountName: b.account_name,
      bankName: b.bank_name,
      accountNumber: b.account_number,
      paymentCode: b.payment_code,
      currency: b.currency,
      country: b.country,
      achNumber: b.ach_number,
      fedwireNumber: b.fedwire_number,
      ibanNumber: b.iban_number,
      ifsc: b.ifsc,
      accountType: b.account_type,
    })),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

async function banksOf(db: Db, ids: string[]): Promise<Map<string, RecipientBanksTable[]>> {
  const byRecipient = new Map<string, RecipientBanksTable[]>();
  if (!ids.length) return byRecipient;
  const rows = await db
    .selectFrom('recipient_banks')
    .selectAll()
    .where('recipient_id', 'in', ids)
    .orderBy('position')
    .execute();
  for (const row of rows) {
    const list = byRecipient.get(row.recipient_id) ?? [];
    list.push(row);
    byRecipient.set(row.recipient_id, list);
  }
  return byRecipient;
}

/** One recipient of the organization; undefined when it does not exist or belongs to another organization. */
export async function findRecipient(db: Db, organizationId: string, id: string): Promise<Recipient | undefined> {
  const row = await db
    .selectFrom('recipients')
    .selectAll()
    .where('id', '=', id)
    .where('organization_id', '=', organizationId)
    .executeTakeFirst();
  if (!row) return undefined;
  return view(row, (await banksOf(db, [row.id])).get(row.id) ?? []);
}

export async function createRecipient(
  db: Db,
  merchant: AuthenticatedMerchant,
  input: CreateRecipientInput,
  now: Date,
): Promise<Recipient> {
  const id = newRecordId();
  const iso = now.toISOString();
  const b = input.bank;
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('recipients')
      .values({
        id,
        organization_id: merchant.organizationId,
        user_id: merchant.userId,
        name: input.name,
        recipient_type: input.recipientType ?? 'Individual',
        email: input.email,
        address: input.address,
        city: input.city,
        post_code: input.postCode,
        reference: input.reference ?? '',
        created_at: iso,
        updated_at: iso,
      })
      .execute();
    await trx
      .insertInto('recipient_banks')
      .values({
        id: newRecordId(),
        recipient_id: id,
        position: 0,
        account_name: b.accountName,
        bank_name: resolvedBankName(b),
        account_number: b.accountNumber ?? '',
        payment_code: b.paymentCode ?? '',
        currency: b.currency,
        country: b.country,
        ach_number: b.achNumber ?? '',
        fedwire_number: b.fedwireNumber ?? '',
        iban_number: b.ibanNumber ?? '',
        ifsc: b.ifsc ?? '',
        account_type: b.accountType ?? '',
      })
      .execute();
  });
  return (await findRecipient(db, merchant.organizationId, id))!;
}

/**
 * A recipient bank's bankName: the banks list's name (GET /v1/banks) when the client sent a bankCode of the bank's
 * currency as bankName, or sent no bankName but a paymentCode that is one; otherwise as sent.
 */
function resolvedBankName(b: CreateRecipientInput['bank']): string {
  const byCode = findBank(b.bankName ?? b.paymentCode ?? '', b.currency);
  return byCode?.bankName ?? b.bankName ?? '';
}

/** docs/design.md, "Recipients": PATCH applies `name` (the interface: "currently only name can be updated"). */
export async function updateRecipient(
  db: Db,
  organizationId: string,
  id: string,
  input: UpdateRecipientInput,
  now: Date,
): Promise<Recipient | undefined> {
  if (input.name !== undefined) {
    await db
      .updateTable('recipients')
      .set({ name: input.name, updated_at: now.toISOString() })
      .where('id', '=', id)
      .where('organization_id', '=', organizationId)
      .execute();
  }
  return findRecipient(db, organizationId, id);
}

export async function deleteRecipient(db: Db, organizationId: string, id: string): Promise<Recipient | undefined> {
  return db.transaction().execute(async (trx) => {
    const existing = await findRecipient(trx, organizationId, id);
    if (!existing) return undefined;
    await trx.deleteFrom('recipient_banks').where('recipient_id', '=', id).execute();
    const deleted = await trx
      .deleteFrom('recipients')
      .where('id', '=', id)
      .where('organization_id', '=', organizationId)
      .executeTakeFirst();
    // A concurrent delete (PostgreSQL runs them in parallel) got there first: only one of them reports it.
    return Number(deleted.numDeletedRows) === 1 ? existing : undefined;
  });
}

/** `LIKE` pattern for a substring, with the wildcard characters of the input escaped. */
const containsPattern = (s: string) => `%${s.toLowerCase().replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;

export async function listRecipients(
  db: Db,
  organizationId: string,
  query: ListRecipientsQuery,
): Promise<Page<Recipient>> {
  const limit = query.limit ?? DEFAULT_LIMIT;
  const page = query.page ?? 1;
  const sort = query.sort ?? 'createdAt';
  const direction = sort.startsWith('-') ? 'desc' : 'asc';
  const column = sort.replace('-', '') === 'updatedAt' ? 'updated_at' : 'created_at';

  const filters = (eb: ExpressionBuilder<Database, 'recipients'>) => {
    const conditions: Expression<SqlBool>[] = [eb('recipients.organization_id', '=', organizationId)];
    if (query.search) {
      const pattern = containsPattern(query.search);
      conditions.push(
        eb.or([
          sql<SqlBool>`lower(recipients.name) like ${pattern} escape '\\'`,
          sql<SqlBool>`lower(recipients.email) like ${pattern} escape '\\'`,
        ]),
      );
    }
    if (query.country || query.currency) {
      let banks = eb
        .selectFrom('recipient_banks')
        .select('recipient_banks.id')
        .whereRef('recipient_banks.recipient_id', '=', 'recipients.id');
      if (query.country)
        banks = banks.where(sql<string>`lower(recipient_banks.country)`, '=', query.country.toLowerCase());
      if (query.currency)
        banks = banks.where(sql<string>`lower(recipient_banks.currency)`, '=', query.currency.toLowerCase());
      conditions.push(eb.exists(banks));
    }
    return eb.and(conditions);
  };

  // Unfiltered, totalDocs is the organization's count (migration 010) and the page's ids come from the sort's index
  // alone (the entries before the page skipped there, never rows of the table); a search or a bank filter has to
  // read the organization's rows (a substring cannot be counted ahead).
  const filtered = Boolean(query.search || query.country || query.currency);
  const total = filtered
    ? (
        await db
          .selectFrom('recipients')
          .select((eb) => eb.fn.countAll<number>().as('total'))
          .where(filters)
          .executeTakeFirstOrThrow()
      ).total
    : ((
        await db
          .selectFrom('recipient_counts')
          .select('count')
          .where('organization_id', '=', organizationId)
          .executeTakeFirst()
      )?.count ?? 0);
  const ids = (
    await db
      .selectFrom('recipients')
      .select('id')
      .where(filters)
      .orderBy(column, direction)
      .orderBy('id', direction)
      .limit(limit)
      .offset((page - 1) * limit)
      .execute()
  ).map((r) => r.id);
  const byId = new Map(
    ids.length
      ? (await db.selectFrom('recipients').selectAll().where('id', 'in', ids).execute()).map((r) => [r.id, r])
      : [],
  );
  const rows = ids.flatMap((id) => byId.get(id) ?? []);
  const banks = await banksOf(
    db,
    rows.map((r) => r.id),
  );
  return paginate(
    rows.map((r) => view(r, banks.get(r.id) ?? [])),
    Number(total),
    page,
    limit,
  );
}
