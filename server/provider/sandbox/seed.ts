import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { verify } from 'hono/jwt';
import { insertMerchant, merchantOfEmail, updateMerchant, webhookUrlOf } from '../accounts/merchants.js';
import { hashPassword, verifyPassword } from '../auth/passwords.js';
import { issueAccessToken } from '../auth/tokens.js';
import type { ProviderDeps } from '../instance/deps.js';
import { newRecordId } from '../db/ids.js';

const isUniqueViolation = (err: unknown) => {
  const code = (err as { code?: string } | undefined)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
};

/** The file docs/design.md promises under "Running it": everything a merchant backend needs to talk to this sandbox. */
export interface SandboxCredentials {
  baseUrl: string;
  checkoutUrl: string;
  dashboardUrl: string;
  email: string;
  password: string;
  clientId: string;
  clientSecret: string;
  accessToken: string;
  webhookSecret: string;
}

const SANDBOX_EMAIL = 'merchant@sandbox.kasir.test';

/** The token sandbox.json held, when it is still one for this user under this key (a new database or key needs a new one). */
async function stillValid(deps: ProviderDeps, token: string | undefined, userId: string): Promise<string | undefined> {
  if (!token) return undefined;
  try {
    const payload = await verify(token, deps.jwtSecret, 'HS256');
    return payload.sub === userId && payload.exp === undefined ? token : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The seeded user's password, the same for every copy of the service (kept in service_keys, as sandbox.json shows it
 * anyway). The first start that keeps it there sets it as the user's password in the same transaction, so two copies
 * starting together agree; a data dir from before keeps the password its sandbox.json holds (`fromFile`), whose hash
 * is the user's already.
 */
async function sandboxPassword(deps: ProviderDeps, userId: string, fromFile: string | undefined): Promise<string> {
  const { db, config } = deps;
  return db.transaction().execute(async (trx) => {
    const now = deps.now().toISOString();
    const candidate = fromFile ?? randomBytes(16).toString('hex'); // hex: never a leading '-', which a command line would read as an option
    const inserted = await trx
      .insertInto('service_keys')
      .values({ name: 'sandbox_password', value: candidate, created_at: now })
      .onConflict((oc) => oc.column('name').doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) {
      return (
        await trx
          .selectFrom('service_keys')
          .select('value')
          .where('name', '=', 'sandbox_password')
          .executeTakeFirstOrThrow()
      ).value;
    }
    const user = await trx
      .selectFrom('users')
      .select('password_hash')
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    if (!fromFile || !(await verifyPassword(fromFile, user.password_hash))) {
      await trx
        .updateTable('users')
        .set({ password_hash: await hashPassword(candidate, config.scryptN), updated_at: now })
        .where('id', '=', userId)
        .execute();
    }
    return candidate;
  });
}

/**
 * Seeds the sandbox merchant on first start and (re)writes sandbox.json. A restart keeps the account,
 * its secrets and its token; only the URLs follow the current ports.
 */
export async function seedSandbox(deps: ProviderDeps): Promise<SandboxCredentials> {
  const { db, config } = deps;
  const file = join(config.dataDir, 'sandbox.json');
  const previous: Partial<SandboxCredentials> = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
  const urls = {
    baseUrl: config.baseUrl,
    checkoutUrl: `${config.baseUrl}/checkout`,
    dashboardUrl: `${config.baseUrl}/dashboard`,
  };

  let merchant = await merchantOfEmail(db, SANDBOX_EMAIL);

  if (!merchant) {
    // Created with a throwaway password; sandboxPassword sets the real one.
    const passwordHash = await hashPassword(randomBytes(12).toString('base64url'), config.scryptN);
    const now = deps.now().toISOString();
    const orgId = newRecordId();
    const userId = newRecordId();
    try {
      await db.transaction().execute(async (trx) => {
        await trx
          .insertInto('organizations')
          .values({ id: orgId, name: 'Kasir Sandbox Store', created_at: now })
          .execute();
        await trx
          .insertInto('users')
          .values({
            id: userId,
            organization_id: orgId,
            name: 'Sandbox Merchant',
            email: SANDBOX_EMAIL,
            password_hash: passwordHash,
            policy: 'merchant-admin',
            role: 'admin',
            is_active: 1,
            country: 'Indonesia',
            country_code: 'ID',
            national_id: '',
            legal_full_name: 'Sandbox Merchant',
            created_at: now,
            updated_at: now,
          })
          .execute();
        await insertMerchant(trx, {
          organizationId: orgId,
          userId,
          webhookUrl: config.webhookUrl,
          checkoutEnabled: true,
          now,
        });
      });
    } catch (err) {
      // Another copy on the same PostgreSQL database seeded it a moment ago: use that one.
      if (!isUniqueViolation(err)) throw err;
    }
    merchant = await merchantOfEmail(db, SANDBOX_EMAIL);
    if (!merchant) throw new Error('The sandbox merchant is missing right after seeding it');
  }
  const password = await sandboxPassword(deps, merchant.user_id, previous.password);
  // A webhook URL given (webhookUrl, KASIR_WEBHOOK_URL) always wins. Without one, a URL that is still the default
  // receiver follows the current PORT (a restart on another port must not send webhooks to the old one); one set in
  // the dashboard stays.
  const stored = await webhookUrlOf(db, merchant.id);
  const isDefaultReceiver = !stored || /^http:\/\/localhost:\d+\/api\/webhooks\/kasir$/.test(stored);
  if (stored !== config.webhookUrl && (config.webhookUrlExplicit || isDefaultReceiver)) {
    await updateMerchant(db, merchant.id, { webhook_url: config.webhookUrl });
  }

  // The underpayment tolerance given as an option or KASIR_UNDERPAYMENT_TOLERANCE (docs/design.md, "Payments that do
  // not go as planned") wins over the dashboard's.
  if (config.underpaymentTolerance !== undefined) {
    await updateMerchant(db, merchant.id, { underpayment_tolerance: config.underpaymentTolerance });
  }

  const credentials: SandboxCredentials = {
    ...urls,
    email: merchant.email,
    password,
    // Secrets are read back from the database: the dashboard may have rotated them since the last start.
    clientId: merchant.client_id,
    clientSecret: merchant.client_secret,
    accessToken:
      (await stillValid(deps, previous.accessToken, merchant.user_id)) ??
      (await issueAccessToken(deps, merchant.user_id, true)),
    webhookSecret: merchant.webhook_secret,
  };
  writeFileSync(file, JSON.stringify(credentials, null, 2) + '\n', { mode: 0o600 });
  return credentials;
}
