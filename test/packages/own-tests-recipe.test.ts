// docs/testing.md's "Your own tests, against the sandbox" recipe, verbatim (docs/design.md, "Seeing and testing an
// integration"): its ```js block is taken out of docs/testing.md as it stands, written as a shop's test file into a
// new project that installs the packed tarballs (npm pack --workspaces) and the dependencies its install line names,
// and run with node --test.
// A docs edit that breaks the recipe breaks this test.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { packedTarballs } from '../support/packed';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SECTION = '## Your own tests, against the sandbox';

/** The section's first block of the given language, and its install line's packages. */
async function recipe(): Promise<{ code: string; packages: string[] }> {
  const readme = await readFile(join(ROOT, 'docs', 'testing.md'), 'utf8');
  const at = readme.indexOf(SECTION);
  assert.ok(at >= 0, `docs/testing.md has no "${SECTION}" section`);
  const section = readme.slice(at, readme.indexOf('\n## ', at + SECTION.length));
  const code = /```js\n([\s\S]*?)```/.exec(section)?.[1];
  const install = /```sh\nnpm install --save-dev ([^\n]+)\n```/.exec(section)?.[1];
  assert.ok(code && install, 'the section has no ```sh install line or no ```js block');
  return { code, packages: install.split(/\s+/) };
}

/** The environment of our children: none of this process's npm-script or kasir variables. */
function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(KASIR_|PROVIDER_|PORT$|DATABASE_URL$|NODE_OPTIONS$|NODE_TEST_CONTEXT$|INIT_CWD$|npm_)/i.test(key)) continue;
    env[key] = value;
  }
  return { ...env, ...extra };
}

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, timeoutMs: number) {
  return new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      setImmediate(() => resolve({ code, output }));
    });
  });
}

let work = '';
before(async () => {
  work = await mkdtemp(join(tmpdir(), 'kasir-own-tests-'));
});
after(async () => {
  if (work) await rm(work, { recursive: true, force: true, maxRetries: 3 });
});

it("the README's own-tests recipe passes as written, from the packed packages", { timeout: 600_000 }, async () => {
  const { code, packages } = await recipe();
  const tarballs = await packedTarballs(childEnv());

  const app = join(work, 'shop');
  await mkdir(app);
  await writeFile(join(app, 'package.json'), JSON.stringify({ name: 'a-shop', private: true, type: 'module' }));
  await writeFile(join(app, 'shop.test.mjs'), code);
  // Ours from the tarballs (and @kasir/checkout, which the other two depend on), the rest from the registry.
  const specs = [...packages.map((name) => tarballs.get(name) ?? name), tarballs.get('@kasir/checkout')!];
  const installed = await run(
    'npm',
    ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', ...specs],
    app,
    // better-sqlite3 compiles from source here: unoptimised and two at a time (see tarballs.test.ts).
    childEnv({ JOBS: '2', CFLAGS: '-O0', CXXFLAGS: '-O0', SCARF_ANALYTICS: 'false' }),
    420_000,
  );
  assert.equal(installed.code, 0, installed.output);

  const result = await run(process.execPath, ['--test', 'shop.test.mjs'], app, childEnv(), 120_000);
  assert.equal(result.code, 0, result.output);
  assert.match(result.output, /# pass 1\b/);
  // The sandbox printed the delivery to the shop's receiver at the default level.
  assert.match(
    result.output,
    /webhook deposit\.completed \S+ -> http:\/\/localhost:\d+\/api\/webhooks\/kasir 20\d in \d+ ms/,
  );
});
