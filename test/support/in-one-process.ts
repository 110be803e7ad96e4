// A folder's test files in one process (test/support/provider-files.ts, merchant-files.ts), as test:server and
// test:server:pg run them: each file's own process cost (tsx's loader thread, importing the servers and their packages,
// node:test's harness: about 2 s of CPU, most of a small file's) is paid once per folder instead of once per file. The
// files share nothing else: each opens its own providers, data dirs, databases and Redis prefixes and closes them. A
// file alone still runs as `node --import tsx --test test/<folder>/x.test.ts`.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { it } from 'node:test';

/**
 * A test that fails when a test file of `folder` is neither imported by the file at `entry` (its
 * `import '../<folder>/x.test';` lines) nor among `alone` (the files run in processes of their own).
 */
export function everyFileImported(entry: string, folder: string, alone: string[] = []) {
  it(`runs every test file of test/${folder}`, () => {
    const pattern = new RegExp(`^import '\\.\\./${folder}/(.+)';$`, 'gm');
    const imported = [...readFileSync(new URL(entry), 'utf8').matchAll(pattern)].map(([, name]) => `${name}.ts`);
    const files = readdirSync(new URL(`../${folder}/`, import.meta.url)).filter((file) => file.endsWith('.test.ts'));
    assert.deepEqual(
      files.filter((file) => !alone.includes(file)).sort(),
      imported.sort(),
      `import each file of test/${folder} in ${new URL(entry).pathname.split('/').pop()}`,
    );
  });
}
