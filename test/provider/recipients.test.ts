import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from '../../server/provider/openapi/pagination';
import type { Recipient } from '../../server/provider/recipients/schemas';
import { newClientId, newClientSecret, newWebhookSecret } from '../../server/provider/accounts/merchants';
import { bodyOf, dataOf, errorOf, type Envelope } from '../support/envelope';
import { createTestProvider, type TestProvider } from '../support/provider';

const bank = {
  accountName: 'Budi Santoso',
  bankName: 'Bank Central Asia',
  accountNumber: '0012345678',
  currency: 'IDR',
  country: 'ID',
  accountType: 'Savings',
  paymentCode: 'BCA',
  ifsc: 'X1',
};
const recipient = (over: Record<string, unknown> = {}) => ({
  name: 'Budi Santoso',
  email: 'budi@example.com',
  address: 'Jl. Sudirman 1',
  city: 'Jakarta',
  postCode: '10220',
  recipientType: 'Individual',
  reference: 'supplier-1',
  bank,
  ...over,
});

describe('recipients', () => {
  let p: TestProvider;
  let other: { clientId: string; clientSecret: string };
  const tick = () => {
    p.clock.offsetMs += 1000;
  };

  before(async () => {
    p = await createTestProvider();
    // A second merchant account, in its own organization.
    const now = new Date().toISOString();
    other = { clientId: newClientId(), clientSecret: newClientSecret() };
    await p.deps.db
      .insertInto('organizations')
      .values({ id: 'org-other', name: 'Other Store', created_at: now })
      .execute();
    await p.deps.db
      .insertInto('users')
      .values({
        id: 'user-other',
        organization_id: 'org-other',
        name: 'Other',
        email: 'other@example.com',
        password_hash: 'x',
        policy: 'p',
        role: 'admin',
        is_active: 1,
        country: '',
        country_code: '',
        national_id: '',
        legal_full_name: '',
        created_at: now,
        updated_at: now,
      })
      .execute();
    await p.deps.db
      .insertInto('merchants')
      .values({
        id: 'merchant-other',
        organization_id: 'org-other',
        user_id: 'user-other',
        client_id: other.clientId,
        client_secret: other.clientSecret,
        webhook_url: null,
        webhook_secret: newWebhookSecret(),
        checkout_enabled: 0,
        created_at: now,
        updated_at: now,
      })
      .execute();
  });
  after(async () => {
    await p.close();
  });
  const list = async (query = '', as?: { clientId: string; secret: string }) =>
    dataOf<Page<Recipient>>(await p.signed('GET', `/v1/recipient${query}`, undefined, as));
  const names = (page: Page<Recipient>) => page.docs.map((d) => d.name);
  const create = async (over: Record<string, unknown> = {}) =>
    dataOf<Recipient>(await p.signed('POST', '/v1/recipient', recipient(over)));

  it('creates a recipient: bank one object in, an array out, account number kept as a string', async () => {
    const res = await p.signed('POST', '/v1/recipient', recipient());
    assert.equal(res.status, 200);
    const body = await bodyOf<Envelope<Recipient>>(res);
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
    assert.deepEqual(await dataOf<Recipient>(read), r);
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
      const json = await errorOf(res);
      assert.equal(json.statusCode, 400);
      assert.equal(json.error, 'Bad Request');
      assert.match(json.message, message);
    }
  });

  it('requires the signature headers', async () => {
    const res = await p.app.request('http://localhost/v1/recipient');
    assert.equal(res.status, 401);
    assert.match((await errorOf(res)).message, /Missing signature headers/);
    const post = await p.app.request('http://localhost/v1/recipient', { method: 'POST', body: '{bad json' });
    assert.equal(post.status, 401);
  });

  describe('listing', () => {
    before(async () => {
      tick();
      await p.signed('POST', '/v1/recipient', recipient({ name: 'Siti Aminah', email: 'siti@toko.id' }));
      tick();
      await p.signed(
        'POST',
        '/v1/recipient',
        recipient({
          name: 'Acme Corp',
          email: 'ap@acme.com',
          recipientType: 'Business',
          bank: {
            accountName: 'Acme',
            currency: 'USD',
            country: 'US',
            accountType: 'Checking',
            accountNumber: '000123',
          },
        }),
      );
      for (let i = 0; i < 10; i++) {
        tick();
        await p.signed('POST', '/v1/recipient', recipient({ name: `Filler ${i}`, email: `filler${i}@example.com` }));
      }
    });

    it('answers the first page in the pagination envelope, 10 by default, oldest first', async () => {
      const first = await list();
      assert.deepEqual(
        Object.keys(first).sort(),
        [
          'docs',
          'hasNextPage',
          'hasPrevPage',
          'limit',
          'nextPage',
          'offset',
          'page',
          'pagingCounter',
          'prevPage',
          'totalDocs',
          'totalPages',
        ].sort(),
      );
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
    });

    it('answers a later page with its counters', async () => {
      const second = await list('?page=2&limit=10');
      assert.equal(second.docs.length, 3);
      assert.equal(second.pagingCounter, 11);
      assert.equal(second.offset, 10);
      assert.equal(second.hasNextPage, false);
      assert.equal(second.nextPage, null);
      assert.equal(second.prevPage, 1);
    });

    it('sorts by -createdAt, newest first', async () => {
      assert.deepEqual(names(await list('?sort=-createdAt&limit=2')), ['Filler 9', 'Filler 8']);
    });

    it('searches name and email, case-insensitively, with % as a literal', async () => {
      assert.deepEqual(names(await list('?search=SITI')), ['Siti Aminah']);
      assert.deepEqual(names(await list('?search=acme.com')), ['Acme Corp']);
      assert.equal((await list('?search=%25')).totalDocs, 0, 'a % in search is a literal, not a wildcard');
    });

    it("filters by the bank's currency and country", async () => {
      const usd = await list('?currency=usd');
      assert.deepEqual(names(usd), ['Acme Corp']);
      assert.equal(usd.docs[0].bank[0].accountNumber, '000123');
      assert.equal((await list('?country=US&currency=IDR')).totalDocs, 0);
      assert.equal((await list('?country=ID')).totalDocs, 12);
    });
  });

  it('rejects bad list queries with the envelope', async () => {
    for (const [query, message] of [
      ['limit=101', /^limit: must be at most 100/],
      ['limit=0', /^limit: must be at least 1/],
      ['limit=abc', /^limit: must be a whole number/],
      ['page=0', /^page: must be at least 1/],
      ['sort=name', /^sort: must be createdAt or updatedAt/],
    ] as const) {
      const res = await p.signed('GET', `/v1/recipient?${query}`);
      assert.equal(res.status, 400, query);
      assert.match((await errorOf(res)).message, message);
    }
  });

  it('updates the name by ?id=; other fields are accepted but not applied', async () => {
    const created = await create({ name: 'Old Name' });
    tick();
    const res = await p.signed('PATCH', `/v1/recipient?id=${created.id}`, {
      name: 'New Name',
      bank: { currency: 'USD' },
    });
    assert.equal(res.status, 200);
    const updated = await dataOf<Recipient>(res);
    assert.equal(updated.name, 'New Name');
    assert.equal(updated.bank[0].currency, 'IDR', 'only name is applied');
    assert.ok(updated.updatedAt > created.updatedAt);
  });

  it('validates the fields an update sends, naming the field', async () => {
    const created = await create({ name: 'Old Name' });
    const bad = await p.signed('PATCH', `/v1/recipient?id=${created.id}`, { email: 'nope' });
    assert.equal(bad.status, 400);
    assert.match((await errorOf(bad)).message, /^email: must be a valid email address/);
  });

  it('refuses an update without ?id=, naming id', async () => {
    const noId = await p.signed('PATCH', '/v1/recipient', { name: 'x' });
    assert.equal(noId.status, 400);
    assert.match((await errorOf(noId)).message, /^id: is required/);
  });

  it('deletes by ?id= and answers with the deleted recipient', async () => {
    const created = await create({ name: 'To Delete' });
    const res = await p.signed('DELETE', `/v1/recipient?id=${created.id}`);
    assert.equal(res.status, 200);
    assert.deepEqual(await dataOf<Recipient>(res), created);
    const gone = await p.signed('GET', `/v1/recipient/${created.id}`);
    assert.equal(gone.status, 404);
    assert.deepEqual(await gone.json(), { statusCode: 404, error: 'Not Found', message: 'Recipient not found' });
    const again = await p.signed('DELETE', `/v1/recipient?id=${created.id}`);
    assert.equal(again.status, 404);
  });

  it("keeps each organization's count with its creates and deletes (migration 010): totalDocs equals a COUNT, pages walk the rows in order", async () => {
    const kept = async () =>
      new Map(
        (await p.deps.db.selectFrom('recipient_counts').selectAll().where('count', '!=', 0).execute()).map((r) => [
          r.organization_id,
          Number(r.count),
        ]),
      );
    const counted = async () =>
      new Map(
        (
          await p.deps.db
            .selectFrom('recipients')
            .select('organization_id')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .groupBy('organization_id')
            .execute()
        ).map((r) => [r.organization_id, Number(r.n)]),
      );
    const made = [];
    for (let i = 0; i < 4; i++) {
      tick();
      made.push(await create({ name: `Counted ${i}` }));
    }
    tick();
    const as = { clientId: other.clientId, secret: other.clientSecret };
    const theirs = await dataOf<Recipient>(await p.signed('POST', '/v1/recipient', recipient({ name: 'Theirs' }), as));
    assert.equal((await list('', as)).totalDocs, 1);
    await p.signed('DELETE', `/v1/recipient?id=${made[1].id}`);
    await p.signed('DELETE', `/v1/recipient?id=${made[1].id}`); // a repeat deletes nothing
    assert.deepEqual(await kept(), await counted());
    await p.signed('DELETE', `/v1/recipient?id=${theirs.id}`, undefined, as);
    assert.equal((await list('', as)).totalDocs, 0);
    assert.deepEqual(await kept(), await counted());
    for (const sort of ['createdAt', '-createdAt', 'updatedAt', '-updatedAt']) {
      const column = sort.includes('updated') ? 'updated_at' : 'created_at';
      const direction = sort.startsWith('-') ? 'desc' : 'asc';
      const org = (
        await p.deps.db
          .selectFrom('merchants')
          .select('organization_id')
          .where('client_id', '!=', other.clientId)
          .executeTakeFirstOrThrow()
      ).organization_id;
      const want = (
        await p.deps.db
          .selectFrom('recipients')
          .select('id')
          .where('organization_id', '=', org)
          .orderBy(column, direction)
          .orderBy('id', direction)
          .execute()
      ).map((r) => r.id);
      const walked: string[] = [];
      for (let page = 1; ; page++) {
        const data = await list(`?limit=3&sort=${sort}&page=${page}`);
        assert.equal(data.totalDocs, want.length, `${sort}: totalDocs`);
        walked.push(...data.docs.map((d) => d.id));
        if (!data.hasNextPage) break;
      }
      assert.deepEqual(walked, want, sort);
    }
  });

  it("treats another organization's recipient as not found", async () => {
    const mine = await create({ name: 'Mine Only' });
    const as = { clientId: other.clientId, secret: other.clientSecret };
    const read = await p.signed('GET', `/v1/recipient/${mine.id}`, undefined, as);
    assert.equal(read.status, 404);
    const patch = await p.signed('PATCH', `/v1/recipient?id=${mine.id}`, { name: 'Hijacked' }, as);
    assert.equal(patch.status, 404);
    const del = await p.signed('DELETE', `/v1/recipient?id=${mine.id}`, undefined, as);
    assert.equal(del.status, 404);
    assert.equal((await list('', as)).totalDocs, 0);
    const still = await dataOf<Recipient>(await p.signed('GET', `/v1/recipient/${mine.id}`));
    assert.equal(still.name, 'Mine Only');
  });

  it('refuses to create a recipient in another organization (403 naming organizationId)', async () => {
    const foreignOrg = await p.signed('POST', '/v1/recipient', recipient({ organizationId: 'org-other' }));
    assert.equal(foreignOrg.status, 403);
    assert.match((await errorOf(foreignOrg)).message, /^organizationId:/);
  });

  it('is in the OpenAPI document', async () => {
    const doc = await bodyOf<{ paths: Record<string, Partial<Record<'get' | 'post' | 'patch' | 'delete', unknown>>> }>(
      await p.app.request('http://localhost/v1/openapi.json'),
    );
    assert.ok(
      doc.paths['/v1/recipient']?.get &&
        doc.paths['/v1/recipient']?.post &&
        doc.paths['/v1/recipient']?.patch &&
        doc.paths['/v1/recipient']?.delete,
    );
    assert.ok(doc.paths['/v1/recipient/{id}']?.get);
    assert.ok(doc.paths['/v1/auth/verify-login']?.post);
  });
});
