// The merchant client's types come from the service's OpenAPI document: server/merchant/client/openapi.ts is
// generated (scripts/generate-client-types.ts) and checked in; these tests fail when it no longer matches.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CLIENT_TYPES_FILE, clientTypesSource } from '../../scripts/generate-client-types';

const MERCHANT_DIR = join(import.meta.dirname, '../../server/merchant');

/** Where two texts first differ, as "line N: <checked in> / <generated>", or undefined when equal. */
function firstDifference(checkedIn: string, generated: string): string | undefined {
  if (checkedIn === generated) return undefined;
  const a = checkedIn.split('\n');
  const b = generated.split('\n');
  const line = a.findIndex((text, i) => text !== b[i]);
  const n = line < 0 ? a.length : line;
  return `line ${n + 1}: ${JSON.stringify(a[n] ?? '<end of file>')} checked in, ${JSON.stringify(b[n] ?? '<end of file>')} generated`;
}

describe('merchant client types', () => {
  it("are what openapi-typescript makes of the sandbox's /v1/openapi.json today", async () => {
    const difference = firstDifference(readFileSync(CLIENT_TYPES_FILE, 'utf8'), await clientTypesSource());
    assert.equal(
      difference,
      undefined,
      `server/merchant/client/openapi.ts is stale (${difference}): run npm run generate:client-types`,
    );
  });

  it('are types only: the generated file imports nothing and declares no value', () => {
    const code = readFileSync(CLIENT_TYPES_FILE, 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/^\s*\/\/.*$/gm, '');
    assert.doesNotMatch(code, /^\s*import\b/m);
    const declarations = code.match(/^export\s+\w+(\s+\w+)?/gm) ?? [];
    assert.ok(declarations.length > 0);
    for (const declaration of declarations) assert.match(declaration, /^export\s+(interface|type)\b/, declaration);
  });

  it('keep the merchant package free of imports from the sandbox', () => {
    const files = readdirSync(MERCHANT_DIR, { recursive: true, encoding: 'utf8' }).filter(
      (f) => f.endsWith('.ts') && !f.startsWith('dist') && !f.includes('node_modules'),
    );
    assert.ok(files.includes(join('client', 'openapi.ts')));
    for (const file of files) {
      const source = readFileSync(join(MERCHANT_DIR, file), 'utf8');
      assert.doesNotMatch(
        source,
        /from\s+['"][^'"]*\/provider\//,
        `server/merchant/${file} imports from server/provider`,
      );
    }
  });
});
