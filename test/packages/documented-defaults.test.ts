// One fact, one value wherever it is written: each package README stands alone on npm (test/packages/readmes.test.ts),
// so its table of options and variables restates docs/configuration.md's. This test reads every table row that names
// an environment variable in both, and fails when a README and docs/configuration.md give one variable different
// defaults; the sandbox's expiry defaults are checked against the code's own table (instance/defaults.ts), and the
// packages' dependencies in ARCHITECTURE.md and docs/dependencies.md against each package.json.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { DEFAULT_EXPIRY_SECONDS } from '../../server/provider/instance/defaults';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** A table's cells, for every markdown table row of the text (header and rule rows included). */
const rows = (markdown: string): string[][] =>
  markdown
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .map((line) =>
      line
        .replace(/\\\|/g, '\u0000')
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.replace(/\u0000/g, '|').trim()),
    );

/** The environment variables a cell names: `KASIR_X`, `PORT`; a family (`KASIR_EXPIRY_{VA,...}_SECONDS`, `KASIR_EXPIRY_*_SECONDS`) by its stem. */
function variablesOf(cell: string): string[] {
  return [...cell.matchAll(/`([A-Z][A-Z0-9_]*(?:[{*][^`]*)?)`/g)]
    .map((m) => m[1].replace(/_?[{*].*$/, '_*'))
    .filter((name) => /^(KASIR_|PROVIDER_|REDIS_URL|DATABASE_URL|SMTP_URL|PORT$|HOST$)/.test(name));
}

/** A default as a fact: without backticks, explanations (after "(", ";" or ":") or "the"/"none" wording. */
const fact = (cell: string) =>
  cell
    .replace(/`/g, '')
    .replace(/^\((.*)\)$/, '$1')
    .replace(/\s*[(;:].*$/, '')
    .replace(/^none.*$/i, 'none')
    .trim()
    .toLowerCase();

/**
 * Each variable's default in a document's tables: a table whose header has `variable` and `default` columns (only
 * those with an `option` column too when asked). A row naming N variables with N comma-separated defaults
 * gives each its own.
 */
function defaultsIn(markdown: string, { optionTablesOnly = false } = {}): Map<string, string> {
  const out = new Map<string, string>();
  let header: string[] = [];
  for (const cells of rows(markdown)) {
    if (cells.includes('default')) {
      header = cells;
      continue;
    }
    if (cells.every((cell) => /^-+$/.test(cell))) continue;
    const at = header.indexOf('default');
    const variableAt = header.indexOf('variable');
    if (at < 0 || variableAt < 0 || (optionTablesOnly && !header.includes('option'))) continue;
    const names = variablesOf(cells[variableAt] ?? '');
    const value = cells[at] ?? '';
    const parts = names.length > 1 && !names.some((n) => n.endsWith('*')) ? value.split(/,\s*/) : [value];
    names.forEach((name, i) => {
      const part = parts.length === names.length ? parts[i] : value;
      if (!out.has(name)) out.set(name, name.endsWith('*') ? part.replace(/`/g, '').trim() : fact(part));
    });
  }
  return out;
}

/** docs/configuration.md's section of a package (`## @kasir/merchant`, `## @kasir/sandbox`). */
function docsSection(name: string): string {
  const text = read('docs/configuration.md');
  const start = text.indexOf(`## ${name}`);
  assert.ok(start >= 0, `docs/configuration.md has no section ${name}`);
  const end = text.indexOf('\n## ', start + 1);
  return text.slice(start, end < 0 ? undefined : end);
}

describe('documented defaults: package READMEs and docs/configuration.md', () => {
  for (const [dir, name] of [
    ['server/merchant', '@kasir/merchant'],
    ['server/provider', '@kasir/sandbox'],
  ] as const) {
    it(`${dir}/README.md gives every variable docs/configuration.md names the same default`, () => {
      const DOCS = defaultsIn(docsSection(name));
      // The README's tables of options (a command's own table may differ: kasir-sandbox logs at info).
      const readme = defaultsIn(read(`${dir}/README.md`), { optionTablesOnly: true });
      const differ = [...readme]
        .filter(([name, value]) => DOCS.has(name) && DOCS.get(name) !== value)
        .map(([name, value]) => `${name}: README "${value}", docs/configuration.md "${DOCS.get(name)}"`);
      assert.deepEqual(differ, []);
      assert.ok(readme.size > 5, `${dir}/README.md: no table of variables read`);
    });
  }

  it("the sandbox's expiry defaults are the code's, wherever written", () => {
    const expected = Object.values(DEFAULT_EXPIRY_SECONDS).join(', ');
    assert.equal(defaultsIn(docsSection('@kasir/sandbox')).get('KASIR_EXPIRY_*'), expected, 'docs/configuration.md');
    const readme = read('server/provider/README.md');
    const written = [...readme.matchAll(/KASIR_EXPIRY_[^|]*\|[^|]*?\|?\s*([\d, ]{10,})\s*\|/g)].map((m) => m[1].trim());
    assert.ok(written.length >= 1, 'server/provider/README.md names the expiry defaults');
    for (const value of written) assert.equal(value, expected, 'server/provider/README.md');
  });
});

describe('documented dependencies: docs/dependencies.md, the one list', () => {
  const table = rows(read('docs/dependencies.md'));
  for (const [dir, short] of [
    ['widget', 'checkout'],
    ['server/merchant', 'merchant'],
    ['server/provider', 'sandbox'],
  ] as const) {
    const manifest = JSON.parse(read(`${dir}/package.json`)) as {
      name: string;
      dependencies?: Record<string, string>;
      peerDependencies?: Record<string, string>;
    };
    it(`names every dependency of ${manifest.name} with it`, () => {
      const listed = (dep: string) =>
        table.some(([names = '', where = '']) => names.includes(`\`${dep}\``) && where.includes(short));
      const wanted = [...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})];
      assert.deepEqual(
        wanted.filter((dep) => !listed(dep)),
        [],
        `docs/dependencies.md leaves out dependencies of ${manifest.name}`,
      );
    });
  }

  it('ARCHITECTURE.md does not list them again', () => {
    assert.doesNotMatch(read('ARCHITECTURE.md'), /\| depends on \|/);
  });
});

describe('going live: the merchant README and docs/going-live.md', () => {
  /** A markdown section from its heading to the next heading of its level or above. */
  const section = (markdown: string, heading: string) => {
    const start = markdown.indexOf(`\n${heading}\n`);
    assert.ok(start >= 0, `no section ${heading}`);
    const level = heading.split(' ')[0];
    const next = markdown.slice(start + heading.length + 2).search(new RegExp(`^#{1,${level.length}} `, 'm'));
    return markdown.slice(start, next < 0 ? undefined : start + heading.length + 2 + next);
  };
  const variables = (text: string) => new Set(text.match(/\b(?:KASIR_[A-Z_]+|REDIS_URL)\b/g));
  const readme = section(read('server/merchant/README.md'), '## Going live');
  const page = read('docs/going-live.md');

  it('name the same settings that change', () => {
    const listed = variables(readme);
    const changes = variables(section(page, '## What changes'));
    assert.deepEqual(
      [...listed].filter((name) => !changes.has(name)),
      [],
      'in the README only',
    );
    assert.deepEqual(
      [...changes].filter((name) => !listed.has(name)),
      [],
      'in docs/going-live.md only',
    );
  });

  it('show the same checks, in the order the command runs them', () => {
    const checks = (text: string) => [...text.matchAll(/^(?:ok|FAIL) +(\w+) /gm)].map((m) => m[1]);
    const named = checks(readme);
    assert.ok(named.length > 3, 'the README shows the check');
    assert.deepEqual(checks(section(page, '## The check')), named);
  });
});
