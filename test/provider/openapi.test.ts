// The OpenAPI document at /v1/openapi.json (issue 12 item 6): the deposit webhooks under `webhooks`, `date-time` on
// every timestamp, the new endpoints, and payerInfo as interface 2.2 has it (detail only, when available).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestProvider, type TestProvider } from '../support/provider';

type Schema = { type?: string | string[]; format?: string; properties?: Record<string, Schema>; required?: string[]; $ref?: string; items?: Schema; anyOf?: Schema[]; allOf?: Schema[] };
interface Document {
  openapi: string;
  paths: Record<string, Record<string, { security?: unknown[] }>>;
  webhooks: Record<string, { post: { requestBody: { content: { 'application/json': { schema: Schema } } }; parameters?: Array<{ name: string; in: string }> } }>;
  components: { schemas: Record<string, Schema> };
}

/** Every property in the components whose name says it is a point in time, with its schema. */
function timestamps(doc: Document): Array<[string, Schema]> {
  const found: Array<[string, Schema]> = [];
  const visit = (where: string, s: Schema | undefined) => {
    if (!s) return;
    for (const [name, prop] of Object.entries(s.properties ?? {})) {
      if (/(At|_date|^timestamp)$/.test(name)) found.push([`${where}.${name}`, prop]);
      visit(`${where}.${name}`, prop);
    }
    visit(`${where}[]`, s.items);
    for (const alt of [...(s.anyOf ?? []), ...(s.allOf ?? [])]) visit(where, alt);
  };
  for (const [name, schema] of Object.entries(doc.components.schemas)) visit(name, schema);
  return found;
}

describe('OpenAPI document', () => {
  let p: TestProvider;
  let doc: Document;
  before(async () => {
    p = await createTestProvider();
    doc = (await (await p.app.request('http://localhost/v1/openapi.json')).json()) as Document;
  });
  after(async () => { await p.close(); });

  it('describes the deposit webhooks (OpenAPI 3.1 webhooks), with their signature headers and payload', () => {
    assert.equal(doc.openapi, '3.1.0');
    const names = Object.keys(doc.webhooks).sort();
    assert.deepEqual(names, ['deposit.completed', 'deposit.expired', 'deposit.paid_late', 'deposit.partially_paid']);
    for (const name of names) {
      const hook = doc.webhooks[name].post;
      assert.deepEqual(hook.parameters?.filter((h) => h.in === 'header').map((h) => h.name).sort(), ['webhook-id', 'webhook-signature', 'webhook-timestamp']);
      const ref = hook.requestBody.content['application/json'].schema.$ref!;
      const payload = doc.components.schemas[ref.split('/').at(-1)!];
      assert.deepEqual(Object.keys(payload.properties!).sort(), ['data', 'depositId', 'orderId', 'reference', 'status', 'timestamp', 'type']);
      assert.equal(payload.properties!.data.$ref, '#/components/schemas/Deposit');
    }
  });

  it('gives every timestamp format date-time', () => {
    const all = timestamps(doc);
    assert.ok(all.length >= 10, String(all.length));
    for (const [where, schema] of all) {
      const format = schema.format ?? schema.anyOf?.find((s) => s.format)?.format;
      assert.equal(format, 'date-time', where);
    }
  });

  it('documents the new endpoints with their authentication (A or S)', () => {
    for (const [path, method] of [['/v1/deposit/convert-estimation', 'post'], ['/v1/banks', 'get']] as const) {
      assert.ok(doc.paths[path]?.[method], `${method} ${path}`);
      assert.deepEqual(doc.paths[path][method].security, [{ Bearer: [] }, { ClientId: [], Timestamp: [], Signature: [] }]);
    }
    assert.ok(doc.components.schemas.Quote && doc.components.schemas.Bank);
  });

  it('has payerInfo optional on the Deposit (present once there is a payer), and the bank transfer\'s uniqueCode', () => {
    const deposit = doc.components.schemas.Deposit;
    assert.ok(deposit.properties!.payerInfo);
    assert.equal(deposit.required!.includes('payerInfo'), false);
    assert.ok(deposit.properties!.paymentFiat.properties!.uniqueCode);
  });
});
