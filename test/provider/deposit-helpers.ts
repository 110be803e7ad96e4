// Helpers shared by the deposit, checkout and expiry tests: deposit creation and reads, a second merchant and the
// outbox of a deposit. Typed answers (bodyOf, dataOf, errorOf) are in test/support/envelope.ts.
import type { DepositView } from '../../server/provider/deposits/view';
import { issueAccessToken } from '../../server/provider/auth/tokens';
import type { ProviderDeps } from '../../server/provider/instance/deps';
import type { Page } from '../../server/provider/openapi/pagination';
import { newRecordId } from '../../server/provider/db/ids';
import { newClientId, newClientSecret, newWebhookSecret } from '../../server/provider/accounts/merchants';
import type { DepositWebhookPayload } from '../../server/provider/webhooks/outbox';
import { bodyOf, dataOf, type Envelope } from '../support/envelope';
import type { TestProvider } from '../support/provider';

export type { DepositView } from '../../server/provider/deposits/view';

export const fiatBody = (over: Record<string, unknown> = {}) => ({
  inputCurrency: 'IDR',
  inputAmount: 150000,
  outputCurrency: 'IDR',
  balanceType: 'fiat',
  paymentMethod: 'BCA_VA',
  ...over,
});

/** Creates a fiat deposit with the seeded merchant's token (or `token`); throws unless it is a 201. */
export async function createFiat(
  p: TestProvider,
  over: Record<string, unknown> = {},
  token?: string,
): Promise<DepositView> {
  const res = await p.bearer('POST', '/v1/deposit/fiat', fiatBody(over), token);
  const body = await bodyOf<Envelope<DepositView>>(res);
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${JSON.stringify(body)}`);
  return body.data;
}

/** Creates a crypto deposit with the seeded merchant's token; throws unless it is a 201. */
export async function createCrypto(p: TestProvider, body: Record<string, unknown>): Promise<DepositView> {
  const res = await p.bearer('POST', '/v1/deposit/crypto', body);
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${await res.text()}`);
  return dataOf<DepositView>(res);
}

/** GET /v1/deposit/:idOrReference, signed by the seeded merchant: the Deposit. */
export async function readDeposit(p: TestProvider, idOrReference: string): Promise<DepositView> {
  return dataOf<DepositView>(await p.signed('GET', `/v1/deposit/${idOrReference}`));
}

/** GET /v1/deposit with a query, signed by the seeded merchant (or other credentials): the page. */
export async function listDeposits(
  p: TestProvider,
  query = '',
  as?: { clientId: string; secret: string },
): Promise<Page<DepositView>> {
  return dataOf<Page<DepositView>>(await p.signed('GET', `/v1/deposit${query}`, undefined, as));
}

/** A second merchant account in the same service, with its own credentials. */
export async function addMerchant(p: TestProvider, options: { checkoutEnabled?: boolean } = {}) {
  const now = new Date().toISOString();
  const orgId = newRecordId();
  const userId = newRecordId();
  const clientId = newClientId();
  const clientSecret = newClientSecret();
  await p.deps.db.insertInto('organizations').values({ id: orgId, name: 'Other Shop', created_at: now }).execute();
  await p.deps.db
    .insertInto('users')
    .values({
      id: userId,
      organization_id: orgId,
      name: 'Other',
      email: `other-${orgId}@example.test`,
      password_hash: 'x',
      policy: 'merchant-admin',
      role: 'admin',
      country: 'Indonesia',
      country_code: 'ID',
      legal_full_name: 'Other',
      created_at: now,
      updated_at: now,
    })
    .execute();
  await p.deps.db
    .insertInto('merchants')
    .values({
      id: newRecordId(),
      organization_id: orgId,
      user_id: userId,
      client_id: clientId,
      client_secret: clientSecret,
      webhook_secret: newWebhookSecret(),
      checkout_enabled: options.checkoutEnabled ? 1 : 0,
      created_at: now,
      updated_at: now,
    })
    .execute();
  return { clientId, clientSecret, token: await issueAccessToken(p.deps, userId, true) };
}

/**
 * Holds every BCA_TRANSFER unique code of a merchant's pool still free: pending deposits copied from the deposit with record
 * id `templateRowId` (whose merchant's pool it fills), each holding one code.
 */
export async function fillUniqueCodes(deps: Pick<ProviderDeps, 'db'>, templateRowId: string): Promise<void> {
  const template = await deps.db
    .selectFrom('deposits')
    .selectAll()
    .where('id', '=', templateRowId)
    .executeTakeFirstOrThrow();
  const taken = new Set(
    (
      await deps.db
        .selectFrom('bank_transfer_codes')
        .select('unique_code')
        .where('merchant_id', '=', template.merchant_id)
        .where('account_number', '=', '8730012345')
        .execute()
    ).map((r) => Number(r.unique_code)),
  );
  const codes = Array.from({ length: 999 }, (_, i) => i + 1).filter((code) => !taken.has(code));
  for (let i = 0; i < codes.length; i += 200) {
    const chunk = codes.slice(i, i + 200).map((code) => ({
      ...template,
      id: `${template.id}-fill-${code}`,
      deposit_id: `${template.id}-fill-${code}`,
      reference: null,
      va_number: null,
      checkout_id: null,
      code,
    }));
    await deps.db
      .insertInto('deposits')
      .values(chunk.map(({ code: _code, ...row }) => row))
      .execute();
    await deps.db
      .insertInto('bank_transfer_codes')
      .values(
        chunk.map((r) => ({
          deposit_row_id: r.id,
          merchant_id: template.merchant_id,
          account_number: '8730012345',
          unique_code: r.code,
        })),
      )
      .execute();
  }
}

/** The webhooks written to the outbox for a deposit, oldest first. */
export async function outbox(
  p: TestProvider,
  depositId: string,
): Promise<Array<{ type: string; payload: DepositWebhookPayload<DepositView> }>> {
  const rows = await p.deps.db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('deposit_id', '=', depositId)
    .orderBy('created_at')
    .execute();
  return rows.map((r) => ({
    type: r.event_type,
    payload: JSON.parse(r.payload) as DepositWebhookPayload<DepositView>,
  }));
}
