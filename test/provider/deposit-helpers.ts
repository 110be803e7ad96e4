// Helpers shared by the deposit, checkout and expiry tests.
import { issueAccessToken } from '../../server/provider/http/bearer';
import { newRecordId } from '../../server/provider/ids';
import { newClientId, newClientSecret, newWebhookSecret } from '../../server/provider/seed';
import type { TestProvider } from '../support/provider';

export const fiatBody = (over: Record<string, unknown> = {}) => ({
  inputCurrency: 'IDR', inputAmount: 150000, outputCurrency: 'IDR', balanceType: 'fiat', paymentMethod: 'BCA_VA', ...over,
});

export async function createFiat(p: TestProvider, over: Record<string, unknown> = {}) {
  const res = await p.bearer('POST', '/v1/deposit/fiat', fiatBody(over));
  const body = (await res.json()) as any;
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${JSON.stringify(body)}`);
  return body.data;
}

/** A second merchant account in the same service, with its own credentials. */
export async function addMerchant(p: TestProvider, options: { checkoutEnabled?: boolean } = {}) {
  const now = new Date().toISOString();
  const orgId = newRecordId();
  const userId = newRecordId();
  const clientId = newClientId();
  const clientSecret = newClientSecret();
  await p.deps.db.insertInto('organizations').values({ id: orgId, name: 'Other Shop', created_at: now }).execute();
  await p.deps.db.insertInto('users').values({
    id: userId, organization_id: orgId, name: 'Other', email: `other-${orgId}@example.test`, password_hash: 'x', policy: 'merchant-admin',
    role: 'admin', is_active: 1, country: 'Indonesia', country_code: 'ID', national_id: '', legal_full_name: 'Other', created_at: now, updated_at: now,
  }).execute();
  await p.deps.db.insertInto('merchants').values({
    id: newRecordId(), organization_id: orgId, user_id: userId, client_id: clientId, client_secret: clientSecret, webhook_url: null,
    webhook_secret: newWebhookSecret(), checkout_enabled: options.checkoutEnabled ? 1 : 0, created_at: now, updated_at: now,
  }).execute();
  return { clientId, clientSecret, token: await issueAccessToken(p.deps, userId, true) };
}

export async function outbox(p: TestProvider, depositId: string) {
  const rows = await p.deps.db.selectFrom('webhook_deliveries').selectAll().where('deposit_id', '=', depositId).orderBy('created_at').execute();
  return rows.map((r) => ({ type: r.event_type, payload: JSON.parse(r.payload) }));
}
