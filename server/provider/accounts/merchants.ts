// The `merchants` table's one owner: every read and write of a merchant account (its credentials, webhook target,
// secrets, settings, organization name) is a named function here, so the other modules never name the table.
// Functions that may run inside a caller's transaction take it as `db` (a Transaction is a Kysely).
// One query elsewhere still joins merchants, to save a round trip: the webhook attempts list (webhooks/history.ts
// recentAttempts, for the URL of attempts older than migration 008).
import { randomBytes } from 'node:crypto';
import type { Updateable } from 'kysely';
import type { Database, Db } from '../db/database.js';
import type { AuthenticatedMerchant, Credential } from '../instance/deps.js';
import { newRecordId } from '../db/ids.js';

type MerchantUpdate = Pick<
  Updateable<Database['merchants']>,
  'webhook_url' | 'checkout_enabled' | 'underpayment_tolerance'
>;

// ---------------------------------------------------------------------------------------------------------
// Creating one

export const newClientId = () => `kasir_test_${randomBytes(10).toString('hex')}`;
export const newClientSecret = () => `sk_test_${randomBytes(24).toString('base64url')}`;
/** A Standard Webhooks secret: `whsec_` and base64 of 24 random bytes. */
export const newWebhookSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

/** Opens the merchant account of a new user and organization, with fresh credentials and webhook secret. */
export async function insertMerchant(
  db: Db,
  account: { organizationId: string; userId: string; webhookUrl: string | null; checkoutEnabled: boolean; now: string },
): Promise<void> {
  const { organizationId, userId, webhookUrl, checkoutEnabled, now } = account;
  await db
    .insertInto('merchants')
    .values({
      id: newRecordId(),
      organization_id: organizationId,
      user_id: userId,
      client_id: newClientId(),
      client_secret: newClientSecret(),
      webhook_url: webhookUrl,
      webhook_secret: newWebhookSecret(),
      checkout_enabled: checkoutEnabled ? 1 : 0,
      created_at: now,
      updated_at: now,
    })
    .execute();
}

// ---------------------------------------------------------------------------------------------------------
// Who signs or holds a token

/** A client's signing secret and the account it signs for (uncached: auth/credentials.ts keeps them briefly). */
export async function credentialOfClient(db: Db, clientId: string): Promise<Credential | undefined> {
  const row = await db
    .selectFrom('merchants')
    .select(['id', 'organization_id', 'user_id', 'client_id', 'client_secret'])
    .where('client_id', '=', clientId)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    merchant: { merchantId: row.id, organizationId: row.organization_id, userId: row.user_id, clientId: row.client_id },
    secret: row.client_secret,
  };
}

/** A bearer token's user resolved to its merchant account; undefined when the user is gone, inactive or has none. */
export async function merchantOfUser(db: Db, userId: string): Promise<AuthenticatedMerchant | undefined> {
  const row = await db
    .selectFrom('users')
    .innerJoin('merchants', 'merchants.organization_id', 'users.organization_id')
    .select([
      'merchants.id as merchantId',
      'merchants.organization_id as organizationId',
      'users.id as userId',
      'merchants.client_id as clientId',
      'users.is_active',
    ])
    .where('users.id', '=', userId)
    .executeTakeFirst();
  if (!row || !row.is_active) return undefined;
  return { merchantId: row.merchantId, organizationId: row.organizationId, userId: row.userId, clientId: row.clientId };
}

/** The merchant account of the user with this email, with its secrets (the seeded sandbox merchant). */
export function merchantOfEmail(db: Db, email: string) {
  return db
    .selectFrom('merchants')
    .innerJoin('users', 'users.id', 'merchants.user_id')
    .select([
      'merchants.id',
      'merchants.client_id',
      'merchants.client_secret',
      'merchants.webhook_secret',
      'users.id as user_id',
      'users.email',
    ])
    .where('users.email', '=', email)
    .executeTakeFirst();
}

/** Who owns a merchant account's deposits: the merchant, its user and its organization. */
export async function merchantOwner(
  db: Db,
  merchantId: string,
): Promise<{ merchantId: string; userId: string; organizationId: string }> {
  const m = await db
    .selectFrom('merchants')
    .select(['id', 'user_id', 'organization_id'])
    .where('id', '=', merchantId)
    .executeTakeFirstOrThrow();
  return { merchantId: m.id, userId: m.user_id, organizationId: m.organization_id };
}

// ---------------------------------------------------------------------------------------------------------
// Settings, as the dashboard, the hosted pages, payments and webhooks read them

/** The account as the dashboard shows it. */
export async function accountOf(db: Db, merchantId: string) {
  const row = await db
    .selectFrom('merchants')
    .innerJoin('users', 'users.id', 'merchants.user_id')
    .innerJoin('organizations', 'organizations.id', 'merchants.organization_id')
    .select([
      'merchants.client_id',
      'merchants.webhook_url',
      'merchants.checkout_enabled',
      'merchants.underpayment_tolerance',
      'users.email',
      'users.name',
      'organizations.name as org_name',
    ])
    .where('merchants.id', '=', merchantId)
    .executeTakeFirstOrThrow();
  return {
    clientId: row.client_id,
    email: row.email,
    name: row.name,
    orgName: row.org_name,
    webhookUrl: row.webhook_url,
    checkoutEnabled: row.checkout_enabled === 1,
    underpaymentTolerance: Number(row.underpayment_tolerance),
  };
}

/** The name of the merchant's organization (what the hosted pages show the payer), if the merchant exists. */
export async function organizationNameOf(db: Db, merchantId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('merchants')
    .innerJoin('organizations', 'organizations.id', 'merchants.organization_id')
    .select('organizations.name')
    .where('merchants.id', '=', merchantId)
    .executeTakeFirst();
  return row?.name;
}

/** Whether hosted checkout is switched on for the merchant (docs/design.md, "Checkout"). */
export async function checkoutEnabledFor(db: Db, merchantId: string): Promise<boolean> {
  const row = await db
    .selectFrom('merchants')
    .select('checkout_enabled')
    .where('id', '=', merchantId)
    .executeTakeFirst();
  return !!row?.checkout_enabled;
}

/** A merchant's underpayment tolerance, a percentage (decimal text). */
export async function underpaymentTolerance(db: Db, merchantId: string): Promise<string> {
  return (
    (await db.selectFrom('merchants').select('underpayment_tolerance').where('id', '=', merchantId).executeTakeFirst())
      ?.underpayment_tolerance ?? '0'
  );
}

/** The merchant's webhook URL as stored (null when none is set). */
export async function webhookUrlOf(db: Db, merchantId: string): Promise<string | null> {
  return (await db.selectFrom('merchants').select('webhook_url').where('id', '=', merchantId).executeTakeFirstOrThrow())
    .webhook_url;
}

/** Where each of these merchants' webhooks go and what signs them, by merchant id (one query for a claimed batch). */
export async function webhookTargets(
  db: Db,
  merchantIds: string[],
): Promise<Map<string, { url: string | null; secret: string }>> {
  const rows =
    merchantIds.length === 0
      ? []
      : await db
          .selectFrom('merchants')
          .select(['id', 'webhook_url', 'webhook_secret'])
          .where('id', 'in', merchantIds)
          .execute();
  return new Map(rows.map((m) => [m.id, { url: m.webhook_url, secret: m.webhook_secret }]));
}

export async function secretsOf(db: Db, merchantId: string) {
  return db
    .selectFrom('merchants')
    .select(['client_secret', 'webhook_secret'])
    .where('id', '=', merchantId)
    .executeTakeFirstOrThrow();
}

// ---------------------------------------------------------------------------------------------------------
// Changing one

/**
 * Gives the merchant a new client secret and returns it. Signature checks may trust the old one from memory a
 * few seconds more: the caller forgets this process's cached credentials (auth/credentials.ts forgetCredentials).
 */
export async function rotateClientSecret(db: Db, merchantId: string, now: Date): Promise<string> {
  const secret = newClientSecret();
  await db
    .updateTable('merchants')
    .set({ client_secret: secret, updated_at: now.toISOString() })
    .where('id', '=', merchantId)
    .execute();
  return secret;
}

export async function rotateWebhookSecret(db: Db, merchantId: string, now: Date): Promise<string> {
  const secret = newWebhookSecret();
  await db
    .updateTable('merchants')
    .set({ webhook_secret: secret, updated_at: now.toISOString() })
    .where('id', '=', merchantId)
    .execute();
  return secret;
}

/** Changes the merchant's settings; `now` stamps updated_at (the seeding at start passes none and leaves it). */
export async function updateMerchant(db: Db, merchantId: string, set: MerchantUpdate, now?: Date): Promise<void> {
  await db
    .updateTable('merchants')
    .set(now ? { ...set, updated_at: now.toISOString() } : set)
    .where('id', '=', merchantId)
    .execute();
}

/** Sets the webhook URL of the merchant that signs with this client id (startSandbox's startDelivery). */
export async function updateWebhookUrlOfClient(db: Db, clientId: string, webhookUrl: string, now: Date): Promise<void> {
  await db
    .updateTable('merchants')
    .set({ webhook_url: webhookUrl, updated_at: now.toISOString() })
    .where('client_id', '=', clientId)
    .execute();
}
