// The three packages packed once for every package test of a run: `npm pack --workspaces` (each package's prepack
// builds it afresh from a clean dist/) into a directory named by a hash of the packages' sources, which the next
// test file reuses as long as no source changed. A change of any file the packages are built from packs again.
// KASIR_TEST_PACKED_DIR names the directory instead: `npm test` packs there once, right after its build
// (`node --import tsx test/support/packed.ts`), so the package tests never clean a dist/ that the suites running
// beside them read. `npm test`'s build starts from clean dist/ folders, as a prepack does, so it packs them as built
// (`packed.ts --as-built`: `npm pack --ignore-scripts`) instead of building the three packages a second time.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** What the packages are built from: their folders (less what is built or installed) and the root's settings. */
const SOURCES = ['widget', 'server', 'package.json', 'package-lock.json', 'tsconfig.base.json'];
const SKIPPED = new Set(['node_modules', 'dist', '.turbo']);

async function filesUnder(path: string): Promise<string[]> {
  if (!existsSync(path)) return [];
  const entries = await readdir(path, { withFileTypes: true }).catch(() => null);
  if (!entries) return [path]; // a file
  const nested = await Promise.all(
    entries
      .filter((e) => !SKIPPED.has(e.name) && !e.name.endsWith('.tsbuildinfo'))
      .map((e) => filesUnder(join(path, e.name))),
  );
  return nested.flat();
}

/** A hash of every source file's path and bytes. */
async function sourceHash(): Promise<string> {
  const files = (await Promise.all(SOURCES.map((s) => filesUnder(join(ROOT, s))))).flat().sort();
  const hash = createHash('sha256');
  for (const file of files)
    hash
      .update(relative(ROOT, file))
      .update('\0')
      .update(await readFile(file))
      .update('\0');
  return hash.digest('hex').slice(0, 16);
}

/**
 * The tarballs by package name (`@kasir/checkout`, ...), packed now or by an earlier test file of this source.
 * `asBuilt`: pack the packages' dist/ as they are (only right after a build from clean dist/ folders).
 */
export async function packedTarballs(env: NodeJS.ProcessEnv, asBuilt = false): Promise<Map<string, string>> {
  const dir = process.env.KASIR_TEST_PACKED_DIR || join(tmpdir(), `kasir-packed-${await sourceHash()}`);
  if (!existsSync(dir)) {
    const staging = await mkdtemp(join(tmpdir(), 'kasir-packing-'));
    try {
      await new Promise<void>((resolve, reject) =>
        execFile(
          'npm',
          [
            'pack',
            '--workspaces',
            '--pack-destination',
            staging,
            '--loglevel=error',
            ...(asBuilt ? ['--ignore-scripts'] : []),
          ],
          { cwd: ROOT, env, timeout: 600_000, maxBuffer: 64 * 1024 * 1024 },
          (err, stdout, stderr) =>
            err
              ? reject(
                  new Error(`npm pack failed${err.killed ? ' (timed out)' : ''}: ${err.message}\n${stdout}${stderr}`),
                )
              : resolve(),
        ),
      );
      // Whole or not at all: a reader never sees a half-written directory (one packed meanwhile wins).
      await rename(staging, dir);
    } catch (err) {
      await rm(staging, { recursive: true, force: true });
      if (!existsSync(dir)) throw err;
    }
  }
  return new Map(
    (await readdir(dir))
      .filter((file) => file.endsWith('.tgz'))
      .map((file) => [`@${file.replace(/-\d+\.\d+\.\d+.*\.tgz$/, '').replace('-', '/')}`, join(dir, file)]),
  );
}

// Run as a command: packs now (into KASIR_TEST_PACKED_DIR or the sources' directory) and names the tarballs. npm's
// settings for the workspace root are left out, as the package tests leave them out.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) =>
        !/^(npm_config_(local_prefix|prefix|workspaces?|include_workspace_root|global)|npm_lifecycle_.*|npm_command|NODE_OPTIONS)$/i.test(
          key,
        ),
    ),
  );
  for (const [name, file] of await packedTarballs(env, process.argv.includes('--as-built')))
    console.log(`${name}: ${file}`);
}
