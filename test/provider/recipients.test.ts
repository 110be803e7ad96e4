import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newClientId, newClientSecret, newWebhookSecret } from '../../server/provider/seed';
import { createTestProvider, type TestProvider } from '../support/provider';

const bank = {
  accountName: 'Budi Santoso', bankName: 'Bank Central Asia', accountNumber: '0012345678', currency: 'IDR', country: 'ID',
  accountType: 'Savings', paymentCode: 'BCA', ifsc: 'X1',
};
const recipient = (over: Record<string, unknown> = {}) => ({
  name: 'Budi Santoso', email: 'budi@example.com', address: 'Jl. Sudirman 1', city: 'Jakarta', postCode: '10220',
  recipientType: 'Individual', reference: 'supplier-1', bank, ...over,
});

describe('recipients (interface 4.5)', () => {
  let p: TestProvider;
  let other: { clientId: string; clientSecret: string };
  const tick = () => { p.clock.offsetMs += 1000; };

  before(async () => {
    p = await createTestProvider();
    // A second merchant account, in its own organization.
    const now = new Date().toISOString();
    other = { clientId: newClientId(), clientSecret: newClientSecret() };
    await p.deps.db.insertInto('organizations').values({ id: 'org-other', name: 'Other Store', created_at: now }).execute();
    await p.deps.db.insertInto('users').values({
      id: 'user-other', organization_id: 'org-other', name: 'Other', email: 'other@example.com', password_hash: 'x', policy: 'p', role: 'admin',
      is_active: 1, country: '', country_code: '', national_id: '', legal_full_name: '', created_at: now, updated_at: now,
    }).execute();
    await p.deps.db.insertInto('merchants').values({
      id: 'merchant-other', organization_id: 'org-other', user_id: 'user-other', client_id: other.clientId, client_secret: other.clientSecret,
      webhook_url: null, webhook_secret: newWebhookSecret(), checkout_enabled: 0, created_at: now, updated_at: now,
    }).execute();
  });
  after(async () => { await p.close(); });

  it('creates a recipient: bank one object in, an array out, account number kept as a string', async () => {
    const res = await p.signed('POST', '/v1/recipient', recipient());
    assert.equal(res.status, 200);
    const body = await res.json();
    assert.equal(body.statusCode, 200);
    const r = body.data;
    assert.equal(r.name, 'Budi Santoso');
    assert.equal(r.recipientType, 'Individual');
    assert.equal(r.email, 'budi@example.com');
    assert.equal(r.postCode, '10220');
    assert.equal(r.reference, 'supplier-1');
    assert.ok(Array.isArray(r.bank));
    assert.equal(r.bank.length, 1);
    assert.equal(r.bank[0].accountNumber, '0012345678');
    assert.equal(r.bank[0].accountType, 'Savings');
    assert.match(r.bank[0]._id, /^[0-9a-f]{24}$/);
    assert.ok(r.id && r.organizationId && r.userId && r.createdAt && r.updatedAt);

    const read = await p.signed('GET', `/v1/recipient/${r.id}`);
    assert.equal(read.status, 200);
    assert.deepEqual((await read.json()).data, r);
  });

  it('validates required fields, enums and email, naming the field', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [recipient({ name: undefined }), /^name: is required/],
      [recipient({ email: 'not-an-email' }), /^email: must be a valid email address/],
      [recipient({ recipientType: 'Robot' }), /^recipientType: must be Individual or Business/],
      [recipient({ bank: { ...bank, accountType: 'Current' } }), /^bank\.accountType: must be Checking or Savings/],
      [recipient({ bank: { ...bank, accountName: undefined } }), /^bank\.accountName: is required/],
      [recipient({ bank: { ...bank, currency: '' } }), /^bank\.currency: is required/],
      [recipient({ bank: { ...bank, accountNumber: 12345 } }), /^bank\.accountNumber: must be a string/],
      [recipient({ bank: undefined }), /^bank: is required/],
      [recipient({ postCode: '   ' }), /^postCode: is required/],
    ];
    for (const [body, message] of cases) {
      const res = await p.signed('POST', '/v1/recipient', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      const json = await res.json();
      assert.equal(json.statusCode, 400);
      assert.equal(json.error, 'Bad Request');
      assert.match(json.message, message);
    }
  });

  it('requires the signature headers', async () => {
    const res = await p.app.request('http://localhost/v1/recipient');
    assert.equal(res.status, 401);
    assert.match((await res.json()).message, /Missing signature headers/);
    const post = await p.app.request('http://localhost/v1/recipient', { method: 'POST', body: '{bad json' });
    assert.equal(post.status, 401);
  });

  it('lists with the pagination envelope, search, filters and sort', async () => {
    tick();
    await p.signed('POST', '/v1/recipient', recipient({ name: 'Siti Aminah', email: 'siti@toko.id' }));
    tick();
    await p.signed('POST', '/v1/recipient', recipient({
      name: 'Acme Corp', email: 'ap@acme.com', recipientType: 'Business',
      bank: { accountName: 'Acme', currency: 'USD', country: 'US', accountType: 'Checking', accountNumber: '000123' },
    }));
    for (let i = 0; i < 10; i++) {
      tick();
      await p.signed('POST', '/v1/recipient', recipient({ name: `Filler ${i}`, email: `filler${i}@example.com` }));
    }

    const first = (await (await p.signed('GET', '/v1/recipient')).json()).data;
    assert.deepEqual(Object.keys(first).sort(), ['docs', 'hasNextPage', 'hasPrevPage', 'limit', 'nextPage', 'offset', 'page', 'pagingCounter', 'prevPage', 'totalDocs', 'totalPages'].sort());
    assert.equal(first.totalDocs, 13);
    assert.equal(first.limit, 10);
    assert.equal(first.docs.length, 10);
    assert.equal(first.totalPages, 2);
    assert.equal(first.page, 1);
    assert.equal(first.pagingCounter, 1);
    assert.equal(first.offset, 0);
    assert.equal(first.hasPrevPage, false);
    assert.equal(first.hasNextPage, true);
    assert.equal(first.prevPage, null);
    assert.equal(first.nextPage, 2);
    assert.equal(first.docs[0].name, 'Budi Santoso', 'default sort is createdAt ascending');

    const second = (await (await p.signed('GET', '/v1/recipient?page=2&limit=10')).json()).data;
    assert.equal(second.docs.length, 3);
    assert.equal(second.pagingCounter, 11);
    assert.equal(second.offset, 10);
    assert.equal(second.hasNextPage, false);
    assert.equal(second.nextPage, null);
    assert.equal(second.prevPage, 1);

    const desc = (await (await p.signed('GET', '/v1/recipient?sort=-createdAt&limit=2')).json()).data;
    assert.deepEqual(desc.docs.map((d: { name: string }) => d.name), ['Filler 9', 'Filler 8']);

    const search = (await (await p.signed('GET', '/v1/recipient?search=SITI')).json()).data;
    assert.deepEqual(search.docs.map((d: { name: string }) => d.name), ['Siti Aminah']);
    const byEmail = (await (await p.signed('GET', '/v1/recipient?search=acme.com')).json()).data;
    assert.deepEqual(byEmail.docs.map((d: { name: string }) => d.name), ['Acme Corp']);
    const wildcard = (await (await p.signed('GET', '/v1/recipient?search=%25')).json()).data;
    assert.equal(wildcard.totalDocs, 0, 'a % in search is a literal, not a wildcard');

    const usd = (await (await p.signed('GET', '/v1/recipient?currency=usd')).json()).data;
    assert.deepEqual(usd.docs.map((d: { name: string }) => d.name), ['Acme Corp']);
    assert.equal(usd.docs[0].bank[0].accountNumber, '000123');
    const us = (await (await p.signed('GET', '/v1/recipient?country=US&currency=IDR')).json()).data;
    assert.equal(us.totalDocs, 0);
    const idr = (await (await p.signed('GET', '/v1/recipient?country=ID')).json()).data;
    assert.equal(idr.totalDocs, 12);
  });

  it('rejects bad list queries with the envelope', async () => {
    for (const [query, message] of [
      ['limit=101', /^limit: must be at most 100/], ['limit=0', /^limit: must be at least 1/], ['limit=abc', /^limit: must be a whole number/],
      ['page=0', /^page: must be at least 1/], ['sort=name', /^sort: must be createdAt or updatedAt/],
    ] as const) {
      const res = await p.signed('GET', `/v1/recipient?${query}`);
      assert.equal(res.status, 400, query);
      assert.match((await res.json()).message, message);
    }
  });

  it('updates the name by ?id= (other fields are accepted and validated)', async () => {
    const created = (await (await p.signed('POST', '/v1/recipient', recipient({ name: 'Old Name' }))).json()).data;
    tick();
    const res = await p.signed('PATCH', `/v1/recipient?id=${created.id}`, { name: 'New Name', bank: { currency: 'USD' } });
    assert.equal(res.status, 200);
    const updated = (await res.json()).data;
    assert.equal(updated.name, 'New Name');
    assert.equal(updated.bank[0].currency, 'IDR', 'only name is applied');
    assert.ok(updated.updatedAt > created.updatedAt);

    const bad = await p.signed('PATCH', `/v1/recipient?id=${created.id}`, { email: 'nope' });
    assert.equal(bad.status, 400);
    assert.match((await bad.json()).message, /^email: must be a valid email address/);
    const noId = await p.signed('PATCH', '/v1/recipient', { name: 'x' });
    assert.equal(noId.status, 400);
    assert.match((await noId.json()).message, /^id: is required/);
  });

  it('deletes by ?id= and answers with the deleted recipient', async () => {
    const created = (await (await p.signed('POST', '/v1/recipient', recipient({ name: 'To Delete' }))).json()).data;
    const res = await p.signed('DELETE', `/v1/recipient?id=${created.id}`);
    assert.equal(res.status, 200);
    assert.deepEqual((await res.json()).data, created);
    const gone = await p.signed('GET', `/v1/recipient/${created.id}`);
    assert.equal(gone.status, 404);
    assert.deepEqual(await gone.json(), { statusCode: 404, error: 'Not Found', message: 'Recipient not found' });
    const again = await p.signed('DELETE', `/v1/recipient?id=${created.id}`);
    assert.equal(again.status, 404);
  });

  it("treats another organization's recipient as not found", async () => {
    const mine = (await (await p.signed('POST', '/v1/recipient', recipient({ name: 'Mine Only' }))).json()).data;
    const as = { clientId: other.clientId, secret: other.clientSecret };
    const read = await p.signed('GET', `/v1/recipient/${mine.id}`, undefined, as);
    assert.equal(read.status, 404);
    const patch = await p.signed('PATCH', `/v1/recipient?id=${mine.id}`, { name: 'Hijacked' }, as);
    assert.equal(patch.status, 404);
    const del = await p.signed('DELETE', `/v1/recipient?id=${mine.id}`, undefined, as);
    assert.equal(del.status, 404);
    const list = (await (await p.signed('GET', '/v1/recipient', undefined, as)).json()).data;
    assert.equal(list.totalDocs, 0);
    const still = (await (await p.signed('GET', `/v1/recipient/${mine.id}`)).json()).data;
    assert.equal(still.name, 'Mine Only');

    const foreignOrg = await p.signed('POST', '/v1/recipient', recipient({ organizationId: 'org-other' }));
    assert.equal(foreignOrg.status, 403);
    assert.match((await foreignOrg.json()).message, /^organizationId:/);
  });

  it('is in the OpenAPI document', async () => {
    const doc = await (await p.app.request('http://localhost/v1/openapi.json')).json();
    assert.ok(doc.paths['/v1/recipient']?.get && doc.paths['/v1/recipient']?.post && doc.paths['/v1/recipient']?.patch && doc.paths['/v1/recipient']?.delete);
    assert.ok(doc.paths['/v1/recipient/{id}']?.get);
    assert.ok(doc.paths['/v1/auth/verify-login']?.post);
  });
});
