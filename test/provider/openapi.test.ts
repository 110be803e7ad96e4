// The OpenAPI document at /v1/openapi.json: the deposit webhooks under `webhooks`, `date-time` on
// every timestamp, the new endpoints, and payerInfo as the interface's Deposit has it (detail only, when available).
// Also valid for an outside linter (Redocly's recommended rules) and true to what the service answers.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { fiatBody } from './deposit-helpers';
import { ResponseChecker, type OpenApiDocument } from '../support/openapi-responses';
import { createTestProvider, type TestProvider } from '../support/provider';

const REDOCLY = fileURLToPath(new URL('../../node_modules/@redocly/cli/bin/cli.js', import.meta.url));

interface LintReport {
  totals: { errors: number; warnings: number };
  problems: Array<{ ruleId: string; severity: string; message: string; location: Array<{ pointer?: string }> }>;
}

/** `redocly lint` with its recommended rules over a document, as its JSON report. */
async function lint(doc: unknown): Promise<LintReport> {
  const dir = mkdtempSync(join(tmpdir(), 'kasir-openapi-lint-'));
  try {
    const file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(doc));
    // The sandbox serves on localhost by design: the one recommended rule that does not apply to it.
    const args = [REDOCLY, 'lint', file, '--extends=recommended', '--skip-rule=no-server-example.com', '--format=json'];
    const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
    // It exits 1 when there is an error: the report on stdout says which.
    const output = await promisify(execFile)(process.execPath, args, {
      env,
      cwd: dir,
      maxBuffer: 16 * 1024 * 1024,
    }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
    return JSON.parse(output.stdout) as LintReport;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

type Schema = {
  type?: string | string[];
  format?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  $ref?: string;
  items?: Schema;
  anyOf?: Schema[];
  allOf?: Schema[];
};
interface Document {
  openapi: string;
  paths: Record<
    string,
    Record<string, { security?: unknown[]; operationId?: string; responses: Record<string, unknown> }>
  >;
  webhooks: Record<
    string,
    {
      post: {
        requestBody: { content: { 'application/json': { schema: Schema } } };
        parameters?: Array<{ name: string; in: string }>;
      };
    }
  >;
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
  after(async () => {
    await p.close();
  });

  it('describes the deposit webhooks (OpenAPI 3.1 webhooks), with their signature headers and payload', () => {
    assert.equal(doc.openapi, '3.1.0');
    const names = Object.keys(doc.webhooks).sort();
    assert.deepEqual(names, [
      'deposit.completed',
      'deposit.expired',
      'deposit.paid_late',
      'deposit.partially_paid',
      'deposit.payment_failed',
    ]);
    for (const name of names) {
      const hook = doc.webhooks[name].post;
      assert.deepEqual(
        hook.parameters
          ?.filter((h) => h.in === 'header')
          .map((h) => h.name)
          .sort(),
        ['webhook-id', 'webhook-signature', 'webhook-timestamp'],
      );
      const ref = hook.requestBody.content['application/json'].schema.$ref!;
      const payload = doc.components.schemas[ref.split('/').at(-1)!];
      assert.deepEqual(Object.keys(payload.properties!).sort(), [
        'data',
        'depositId',
        'orderId',
        'reference',
        'status',
        'timestamp',
        'type',
      ]);
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
    for (const [path, method] of [
      ['/v1/deposit/convert-estimation', 'post'],
      ['/v1/banks', 'get'],
    ] as const) {
      assert.ok(doc.paths[path]?.[method], `${method} ${path}`);
      assert.deepEqual(doc.paths[path][method].security, [
        { Bearer: [] },
        { ClientId: [], Timestamp: [], Signature: [] },
      ]);
    }
    assert.ok(doc.components.schemas.Quote && doc.components.schemas.Bank);
  });

  it('passes redocly lint with its recommended rules: no error, no warning', async () => {
    const report = await lint(doc);
    const problems = report.problems.map(
      (problem) => `${problem.severity} ${problem.ruleId}: ${problem.message} (${problem.location[0]?.pointer})`,
    );
    assert.deepEqual(problems, []);
  });

  it('names every operation, and says which need no credentials (security: [])', () => {
    const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({ name: `${method} ${path}`, ...op })),
    );
    const ids = operations.map((op) => op.operationId);
    assert.equal(ids.filter((id) => !id).length, 0);
    assert.equal(new Set(ids).size, ids.length);
    const open = operations
      .filter((op) => op.security?.length === 0)
      .map((op) => op.name)
      .sort();
    assert.deepEqual(open, [
      'get /checkout/{id}/session',
      'get /sandbox/mailbox',
      'get /v1/reference/cryptos',
      'get /v1/reference/currencies',
      'post /checkout/{id}/deposit',
      'post /v1/auth/login',
      'post /v1/auth/register',
      'post /v1/auth/verify-login',
    ]);
    for (const op of operations) assert.ok(op.security, op.name);
  });

  it('documents a deposit read and its sandbox status update under one path and one parameter name', () => {
    assert.deepEqual(
      Object.keys(doc.paths).filter((path) => /^\/v1\/deposit\/\{[^}]+\}$/.test(path)),
      ['/v1/deposit/{depositIdOrReference}'],
    );
    assert.deepEqual(Object.keys(doc.paths['/v1/deposit/{depositIdOrReference}']).sort(), ['get', 'patch']);
  });

  it("describes what the service answers: a session before a choice (deposit null), 413, 415 and a NUL byte's 400", async () => {
    const checkout = await p.signed('POST', '/v1/checkout', { inputCurrency: 'IDR', inputAmount: 150000 });
    const { id } = ((await checkout.json()) as { data: { id: string } }).data;
    const session = await p.app.request(`/checkout/${id}/session`);
    assert.equal(((await session.json()) as { data: { deposit: unknown } }).data.deposit, null);
    const big = await p.bearer('POST', '/v1/deposit/fiat', fiatBody({ note: 'x'.repeat(70 * 1024) }));
    assert.equal(big.status, 413);
    const text = await p.app.request(`/checkout/${id}/deposit`, {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain' },
      body: 'QRIS',
    });
    assert.equal(text.status, 415);
    const nul = await p.app.request('/v1/reference/currencies?x=%00');
    assert.equal(nul.status, 400);
    assert.deepEqual(p.undocumented, []);
  });

  it("has payerInfo optional on the Deposit (present once there is a payer), and the bank transfer's uniqueCode", () => {
    const deposit = doc.components.schemas.Deposit;
    assert.ok(deposit.properties!.payerInfo);
    assert.equal(deposit.required!.includes('payerInfo'), false);
    assert.ok(deposit.properties!.paymentFiat.properties!.uniqueCode);
  });
});

describe('the response check the provider suites run (test/support/openapi-responses.ts)', () => {
  let checker: ResponseChecker;
  before(async () => {
    const p = await createTestProvider();
    try {
      checker = new ResponseChecker(
        (await (await p.app.request('http://localhost/v1/openapi.json')).json()) as OpenApiDocument,
      );
    } finally {
      await p.close();
    }
  });
  const error = (status: number) => JSON.stringify({ statusCode: status, error: 'x', message: 'x' });

  it('passes a documented answer and skips what the document does not cover (pages, the widget API)', () => {
    assert.equal(checker.check('GET', '/v1/deposit/abc', 404, 'application/json', error(404)), undefined);
    assert.equal(checker.covers('GET', '/checkout/abc'), false);
    assert.equal(checker.covers('GET', '/checkout/api/checkouts/abc'), false);
    assert.equal(checker.covers('GET', '/v1/deposit/payment-method'), true);
  });

  it('refuses an undocumented status, a body its schema refuses, and an undocumented Content-Type', () => {
    assert.match(
      checker.check('GET', '/v1/deposit/abc', 500, 'application/json', error(500)) ?? '',
      /status not documented/,
    );
    assert.match(
      checker.check('GET', '/v1/deposit/abc', 404, 'application/json', '{"statusCode":404}') ?? '',
      /must have required property 'error'/,
    );
    assert.match(
      checker.check('GET', '/v1/deposit/abc', 404, 'text/html', '<p>') ?? '',
      /Content-Type text\/html not documented/,
    );
    // A literal segment is its own operation, not a depositId.
    assert.match(
      checker.check(
        'GET',
        '/v1/deposit/payment-method',
        200,
        'application/json',
        '{"statusCode":200,"message":"x","data":{}}',
      ) ?? '',
      /must be array/,
    );
  });
});
