// The three packages as a new shop gets them (docs/design.md, "Packages"): `npm pack --workspaces`, then the
// tarballs installed with npm into scratch apps copied from ./fixtures: a React 19 + TS app, a Vue 3 + TS app, a plain
// Node server with @kasir/merchant only, and a shop's test suite with @kasir/sandbox. Nothing here imports the
// repository's sources: every module under test comes from a temp dir's node_modules.
//
// Time goes to `npm pack` (each package's prepack builds it afresh) and to the installs (better-sqlite3 compiles from
// source in the sandbox app), so the installs start in the top-level `before`, in parallel, the sandbox's first, and
// each group awaits only its own. Every step's time is printed ([packages] lines).
// Set KASIR_KEEP_PACKAGES_TMP=1 to keep the temp dir for a look after a failure.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { packedTarballs } from '../support/packed';
import { sandboxConnectionEnv } from '../support/sandbox-env';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURES = fileURLToPath(new URL('./fixtures', import.meta.url));
const KEEP_TMP = process.env.KASIR_KEEP_PACKAGES_TMP === '1';

const PACKAGES = [
  { name: '@kasir/checkout', dir: 'widget' },
  { name: '@kasir/merchant', dir: 'server/merchant' },
  { name: '@kasir/sandbox', dir: 'server/provider' },
] as const;
type PackageName = (typeof PACKAGES)[number]['name'];

/** The sandbox's dependencies that must never reach a storefront's server through @kasir/merchant. */
const SANDBOX_ONLY_DEPS = ['better-sqlite3', 'pg', 'kysely', 'nodemailer', 'swagger-ui-dist'];

// ---------------------------------------------------------------------------------------------------------------
// Timing, processes, ports

const started = performance.now();
const timings: Array<[string, number]> = [];
function logTime(step: string, ms: number) {
  timings.push([step, ms]);
  console.log(
    `[packages] ${step}: ${(ms / 1000).toFixed(1)} s (at ${((performance.now() - started) / 1000).toFixed(1)} s)`,
  );
}
async function timed<T>(step: string, fn: () => Promise<T>): Promise<T> {
  const t = performance.now();
  try {
    return await fn();
  } finally {
    logTime(step, performance.now() - t);
  }
}

/** Every child we started; `after` ends whichever is still running (its whole process group). */
const children = new Set<ChildProcess>();

/** The environment of our children: no npm-script or kasir variables from the process running this test. */
function childEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (
      /^(KASIR_|PROVIDER_PORT$|PORT$|DATABASE_URL$|NODE_OPTIONS$|INIT_CWD$|npm_package_|npm_lifecycle_|npm_command$)/.test(
        key,
      )
    )
      continue;
    if (/^npm_config_(local_prefix|prefix|workspaces?|include_workspace_root|global)$/i.test(key)) continue;
    env[key] = value;
  }
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return env;
}

interface Output {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function tail(text: string, chars = 4000) {
  return text.length > chars ? `...${text.slice(-chars)}` : text;
}

async function killTree(child: ChildProcess, graceMs = 3000) {
  if (child.exitCode !== null || child.signalCode !== null || !child.pid) return;
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, sig);
    } catch {
      try {
        child.kill(sig);
      } catch {
        /* gone */
      }
    }
  };
  signal('SIGTERM');
  const killed = await Promise.race([
    exited.then(() => true),
    new Promise<boolean>((r) => setTimeout(() => r(false), graceMs).unref()),
  ]);
  if (!killed) {
    signal('SIGKILL');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 2000).unref())]);
  }
}

/** A long-running child in its own process group, its output collected. */
function startProcess(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }) {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env ?? childEnv(),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  const out: Output = { code: null, signal: null, stdout: '', stderr: '' };
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out.stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (out.stderr += d));
  const exited = new Promise<Output>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      // Let the pipes drain before answering.
      setImmediate(() => {
        children.delete(child);
        out.code = code;
        out.signal = signal;
        resolve(out);
      });
    });
  });
  exited.catch(() => {});
  return { child, out, exited };
}

/** Runs a command to its end within timeoutMs (then its process group is killed and this rejects). */
async function run(
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<Output> {
  const proc = startProcess(command, args, options);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      void killTree(proc.child);
      reject(
        new Error(
          `\`${command} ${args.join(' ')}\` (in ${options.cwd}) took longer than ${options.timeoutMs / 1000} s and was killed.\n` +
            `stdout: ${tail(proc.out.stdout)}\nstderr: ${tail(proc.out.stderr)}`,
        ),
      );
    }, options.timeoutMs);
  });
  try {
    return await Promise.race([proc.exited, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** run(), and a failure (non-zero exit) is an error carrying the command's output. */
async function runOk(
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<Output> {
  const out = await run(command, args, options);
  if (out.code !== 0) {
    throw new Error(
      `\`${command} ${args.join(' ')}\` (in ${options.cwd}) exited with ${out.code ?? out.signal}\n` +
        `--- stdout\n${tail(out.stdout)}\n--- stderr\n${tail(out.stderr)}`,
    );
  }
  return out;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function waitFor<T>(
  what: string,
  timeoutMs: number,
  probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `Timed out after ${timeoutMs / 1000} s waiting for ${what}${lastError ? ` (last error: ${(lastError as Error).message ?? lastError})` : ''}`,
      );
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function fetchWithTimeout(url: string, init: RequestInit = {}, timeoutMs = 10_000) {
  return fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
}

async function postJson(url: string, body: unknown) {
  const res = await fetchWithTimeout(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text };
}

async function getJson(url: string) {
  const res = await fetchWithTimeout(url);
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text };
}

// ---------------------------------------------------------------------------------------------------------------
// Tarballs

interface TarEntry {
  path: string;
  size: number;
}

/** The files of an npm tarball (gzipped ustar, with pax headers for long names), paths without `package/`. */
function listTarball(bytes: Buffer): TarEntry[] {
  const tar = gunzipSync(bytes);
  const entries: TarEntry[] = [];
  let paxPath: string | undefined;
  for (let offset = 0; offset + 512 <= tar.length;) {
    const header = tar.subarray(offset, offset + 512);
    if (header.every((b) => b === 0)) break;
    const field = (start: number, length: number) =>
      header
        .subarray(start, start + length)
        .toString('utf8')
        .replace(/\0.*$/s, '');
    const size = parseInt(field(124, 12).trim() || '0', 8);
    const type = field(156, 1) || '0';
    const prefix = field(257, 6).startsWith('ustar') ? field(345, 155) : '';
    let path = prefix ? `${prefix}/${field(0, 100)}` : field(0, 100);
    const body = tar.subarray(offset + 512, offset + 512 + size);
    if (type === 'x') {
      const match = /\d+ path=([^\n]*)\n/.exec(body.toString('utf8'));
      paxPath = match?.[1];
    } else if (type === '0' || type === '') {
      if (paxPath) path = paxPath;
      paxPath = undefined;
      entries.push({ path: path.replace(/^[^/]+\//, ''), size });
    } else {
      paxPath = undefined;
    }
    offset += 512 + Math.ceil(size / 512) * 512;
  }
  return entries;
}

interface PackedPackage {
  name: PackageName;
  version: string;
  file: string;
  bytes: number;
  entries: TarEntry[];
  manifest: any;
}

// ---------------------------------------------------------------------------------------------------------------
// Shared state: the temp dir, the tarballs, the four apps and their installs

let work = '';
const packed = new Map<PackageName, PackedPackage>();
const apps = { react: '', vue: '', node: '', shop: '' };
type AppName = keyof typeof apps;
const installs = {} as Record<AppName, Promise<void>>;

function tarballOf(name: PackageName): string {
  const pkg = packed.get(name);
  if (!pkg) throw new Error(`No tarball of ${name}: npm pack did not produce one`);
  return pkg.file;
}

/** Copies a fixture app to the temp dir and npm-installs our tarballs into it (with its own dependencies). */
async function installApp(app: AppName, fixture: string, ours: PackageName[]) {
  const dir = join(work, app);
  await cp(join(FIXTURES, fixture), dir, { recursive: true });
  apps[app] = dir;
  await timed(`npm install (${app}: ${ours.join(' + ')} + its own dependencies)`, () =>
    runOk(
      'npm',
      ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', ...ours.map(tarballOf)],
      {
        // better-sqlite3 (the sandbox's) has no prebuilt binary within reach and compiles from source: its two big
        // sources side by side (JOBS) and unoptimised (-O0, appended after gyp's -O3, wins): the shop's tests need a
        // working SQLite, not a fast one, and this compiles in a fraction of the time.
        // SCARF_ANALYTICS: no phoning home from swagger-ui-dist's postinstall (only the npm registry is reachable).
        cwd: dir,
        env: childEnv({ JOBS: '2', CFLAGS: '-O0', CXXFLAGS: '-O0', SCARF_ANALYTICS: 'false' }),
        timeoutMs: 360_000,
      },
    ),
  );
}

function bin(app: AppName, name: string) {
  return join(apps[app], 'node_modules', '.bin', name);
}

/** Imports a package's main entry the way the app's own code would resolve it (exports map, `default` condition). */
async function importFrom(app: AppName, specifier: string): Promise<any> {
  try {
    const resolved = createRequire(join(apps[app], 'package.json')).resolve(specifier);
    return await import(pathToFileURL(resolved).href);
  } catch (err) {
    throw new Error(`Importing ${specifier} as installed in the ${app} app failed: ${(err as Error).message}`, {
      cause: err,
    });
  }
}

/** Every node_modules/<name> directory in an app's installed tree (nested ones too). */
async function findInstalled(dir: string, names: string[]): Promise<string[]> {
  const found: string[] = [];
  async function walk(nodeModules: string) {
    let items: string[];
    try {
      items = await readdir(nodeModules);
    } catch {
      return;
    }
    for (const item of items) {
      if (item.startsWith('.')) continue;
      const pkgs = item.startsWith('@')
        ? (await readdir(join(nodeModules, item)).catch(() => [])).map((s) => `${item}/${s}`)
        : [item];
      for (const pkg of pkgs) {
        if (names.includes(pkg)) found.push(join(nodeModules, pkg));
        await walk(join(nodeModules, pkg, 'node_modules'));
      }
    }
  }
  await walk(join(dir, 'node_modules'));
  return found;
}

function lockEntry(app: AppName, name: string): any {
  const lock = JSON.parse(readFileSync(join(apps[app], 'package-lock.json'), 'utf8'));
  return lock.packages?.[`node_modules/${name}`];
}

function tscOutput(out: Output) {
  return `${out.stdout}${out.stderr}`.trim();
}

// ---------------------------------------------------------------------------------------------------------------

before(
  async () => {
    work = await mkdtemp(join(tmpdir(), 'kasir-packages-'));
    // prepack builds each package again from a clean dist/; the run's other package tests reuse these tarballs.
    const tarballs = await timed('npm pack --workspaces', () => packedTarballs(childEnv()));
    for (const { name, dir } of PACKAGES) {
      const manifest = JSON.parse(await readFile(join(ROOT, dir, 'package.json'), 'utf8'));
      const file = tarballs.get(name);
      if (!file) continue; // its tests say so
      const bytes = await readFile(file);
      const entries = listTarball(bytes);
      const packedManifest = JSON.parse(gunzipPackageJson(bytes) ?? '{}');
      packed.set(name, {
        name,
        version: manifest.version,
        file,
        bytes: bytes.length,
        entries,
        manifest: packedManifest,
      });
    }

    const sizes = [...packed.values()].map((p) => ({
      name: p.name,
      version: p.version,
      file: p.file.split('/').pop(),
      bytes: p.bytes,
      files: p.entries.length,
      unpackedBytes: p.entries.reduce((sum, e) => sum + e.size, 0),
    }));
    for (const s of sizes) {
      console.log(
        `[packages] ${s.file}: ${(s.bytes / 1024).toFixed(1)} KB packed, ${(s.unpackedBytes / 1024).toFixed(1)} KB unpacked, ${s.files} files`,
      );
    }
    await mkdir(join(ROOT, '.bench'), { recursive: true });
    await writeFile(
      join(ROOT, '.bench', 'tarballs.json'),
      `${JSON.stringify({ generatedAt: new Date().toISOString(), tarballs: sizes }, null, 2)}\n`,
    );

    // The installs, the slowest (a native build) first. Each group's `before` awaits its own; a failure is reported there.
    const start = (app: AppName, fixture: string, ours: PackageName[]) => {
      installs[app] = installApp(app, fixture, ours);
      installs[app].catch(() => {});
    };
    start('shop', 'shop-tests', ['@kasir/sandbox', '@kasir/checkout']);
    start('node', 'node-app', ['@kasir/merchant', '@kasir/checkout']);
    start('react', 'react-app', ['@kasir/checkout']);
    start('vue', 'vue-app', ['@kasir/checkout']);
  },
  { timeout: 200_000 },
);

after(
  async () => {
    await Promise.all([...children].map((c) => killTree(c)));
    // Installs still running (a group failed early) end with their processes; wait for them before removing the dir.
    await Promise.allSettled(Object.values(installs));
    if (work && !KEEP_TMP) await rm(work, { recursive: true, force: true, maxRetries: 3 });
    else if (work) console.log(`[packages] kept ${work}`);
    console.log(
      `[packages] total ${((performance.now() - started) / 1000).toFixed(1)} s; steps: ${timings.map(([s, ms]) => `${s} ${(ms / 1000).toFixed(1)} s`).join('; ')}`,
    );
  },
  { timeout: 60_000 },
);

/** package/package.json out of a tarball. */
function gunzipPackageJson(bytes: Buffer): string | undefined {
  const tar = gunzipSync(bytes);
  for (let offset = 0; offset + 512 <= tar.length;) {
    const header = tar.subarray(offset, offset + 512);
    if (header.every((b) => b === 0)) break;
    const name = header.subarray(0, 100).toString('utf8').replace(/\0.*$/s, '');
    const size = parseInt(header.subarray(124, 136).toString('utf8').replace(/\0.*$/s, '').trim() || '0', 8);
    if (name === 'package/package.json') return tar.subarray(offset + 512, offset + 512 + size).toString('utf8');
    offset += 512 + Math.ceil(size / 512) * 512;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------------------------

describe('npm pack --workspaces', () => {
  for (const { name } of PACKAGES) {
    const get = () => {
      const pkg = packed.get(name);
      assert.ok(pkg, `npm pack --workspaces made no tarball of ${name}`);
      return pkg;
    };
    const paths = () => get().entries.map((e) => e.path);

    describe(name, () => {
      it('is packed', () => {
        const pkg = get();
        assert.ok(pkg.bytes > 0);
      });

      it('holds package.json, README.md and LICENSE', () => {
        const have = paths();
        for (const file of ['package.json', 'README.md', 'LICENSE']) {
          assert.ok(
            have.includes(file),
            `${name}'s tarball has no ${file} (it has: ${have.filter((p) => !p.includes('/')).join(', ')})`,
          );
        }
      });

      it('holds compiled JavaScript with .d.ts and source maps in dist/', () => {
        const have = paths();
        const js = have.filter((p) => p.startsWith('dist/') && p.endsWith('.js'));
        const dts = have.filter((p) => p.startsWith('dist/') && p.endsWith('.d.ts'));
        const maps = have.filter((p) => p.startsWith('dist/') && p.endsWith('.js.map'));
        assert.ok(js.length > 0, `${name}: no dist/**/*.js`);
        assert.ok(dts.length > 0, `${name}: no dist/**/*.d.ts`);
        assert.ok(maps.length > 0, `${name}: no dist/**/*.js.map`);
        // Every compiled module (tsc's output: the .js with a source map) has its declarations beside it; the
        // script-tag build and static assets are not modules to import.
        const missing = js.filter((p) => have.includes(`${p}.map`) && !have.includes(p.replace(/\.js$/, '.d.ts')));
        assert.deepEqual(missing, [], `${name}: .js without .d.ts`);
      });

      it('holds no TypeScript sources, tests, screenshots or tsbuildinfo', () => {
        const unwanted = paths().filter(
          (p) =>
            (/\.(ts|tsx|mts|cts)$/.test(p) && !/\.d\.(ts|mts|cts)$/.test(p)) ||
            /(^|\/)(test|tests|__tests__)\//.test(p) ||
            /\.(test|spec)\.[cm]?[jt]sx?$/.test(p) ||
            /screenshot/i.test(p) ||
            p.endsWith('.tsbuildinfo'),
        );
        assert.deepEqual(unwanted, [], `${name}'s tarball ships files a shop does not need`);
      });

      it('holds every file its exports and bin point to', () => {
        const pkg = get();
        const have = new Set(paths());
        const targets: string[] = [];
        const collect = (value: unknown) => {
          if (typeof value === 'string') targets.push(value);
          else if (value && typeof value === 'object') Object.values(value).forEach(collect);
        };
        collect(pkg.manifest.exports);
        collect(pkg.manifest.bin);
        if (pkg.manifest.main) targets.push(pkg.manifest.main);
        if (pkg.manifest.types) targets.push(pkg.manifest.types);
        assert.ok(targets.length > 0, `${name}'s package.json has no exports`);
        const missing = [...new Set(targets)]
          .map((t) => t.replace(/^\.\//, ''))
          .filter((t) => !t.includes('*') && !have.has(t));
        assert.deepEqual(missing, [], `${name}: exports/bin point to files the tarball does not have`);
      });
    });
  }
});

// ---------------------------------------------------------------------------------------------------------------

const CHECKOUT_ENTRIES = [
  '@kasir/checkout',
  '@kasir/checkout/react',
  '@kasir/checkout/vue',
  '@kasir/checkout/kasir-checkout.js',
];

describe('React 19 + TypeScript shop (@kasir/checkout/react)', () => {
  before(() => installs.react, { timeout: 420_000 });

  it('installs @kasir/checkout from the tarball', () => {
    assert.match(lockEntry('react', '@kasir/checkout')?.resolved ?? '', /^file:.*kasir-checkout-.*\.tgz$/);
  });

  it('tsc --noEmit passes (strict, erasableSyntaxOnly, verbatimModuleSyntax, skipLibCheck false), the expected type errors included', async () => {
    const out = await timed('react: tsc --noEmit', () =>
      run(bin('react', 'tsc'), ['--noEmit', '-p', '.'], { cwd: apps.react, timeoutMs: 120_000 }),
    );
    assert.equal(out.code, 0, `tsc failed in the React shop:\n${tscOutput(out)}`);
  });

  it("vite build passes (vite's own JSX, no plugin)", async () => {
    const out = await timed('react: vite build', () =>
      run(bin('react', 'vite'), ['build', '--logLevel', 'warn'], { cwd: apps.react, timeoutMs: 120_000 }),
    );
    assert.equal(out.code, 0, `vite build failed in the React shop:\n${tscOutput(out)}`);
    const assets = await readdir(join(apps.react, 'dist', 'assets'));
    assert.ok(
      assets.some((f) => f.endsWith('.js')),
      'vite build wrote no JavaScript',
    );
  });

  it('Node (no DOM) imports every @kasir/checkout entry, react installed', async () => {
    const out = await runOk('node', ['imports.mjs', ...CHECKOUT_ENTRIES], { cwd: apps.react, timeoutMs: 60_000 });
    const failed = JSON.parse(out.stdout).filter((r: { ok: boolean }) => !r.ok);
    assert.deepEqual(failed, []);
  });

  it('server rendering (react-dom/server in plain Node) gives <kasir-checkout markup', async () => {
    const out = await timed('react: ssr', () => run('node', ['ssr.mjs'], { cwd: apps.react, timeoutMs: 30_000 }));
    assert.equal(out.code, 0, `rendering KasirCheckout in Node failed:\n${tscOutput(out)}`);
    assert.match(out.stdout, /<kasir-checkout[\s>]/, `no <kasir-checkout in the server-rendered markup: ${out.stdout}`);
    assert.match(out.stdout, /endpoint="\/api"/, `the endpoint is not in the server-rendered markup: ${out.stdout}`);
    // Options under their attribute names, as the element declares them.
    assert.match(
      out.stdout,
      /order-id="ord_1"[^>]* poll-interval="5000"/,
      `the options are not attributes in the server-rendered markup: ${out.stdout}`,
    );
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe('Vue 3 + TypeScript shop (@kasir/checkout/vue)', () => {
  before(() => installs.vue, { timeout: 420_000 });

  it('vue-tsc --noEmit passes (strict templates, erasableSyntaxOnly, verbatimModuleSyntax, skipLibCheck false)', async () => {
    const out = await timed('vue: vue-tsc --noEmit', () =>
      run(bin('vue', 'vue-tsc'), ['--noEmit', '-p', 'tsconfig.json'], { cwd: apps.vue, timeoutMs: 120_000 }),
    );
    assert.equal(out.code, 0, `vue-tsc failed in the Vue shop:\n${tscOutput(out)}`);
  });

  it('vite build passes (isCustomElement from @kasir/checkout/vue in vite.config)', async () => {
    const out = await timed('vue: vite build', () =>
      run(bin('vue', 'vite'), ['build', '--logLevel', 'warn'], { cwd: apps.vue, timeoutMs: 120_000 }),
    );
    assert.equal(out.code, 0, `vite build failed in the Vue shop:\n${tscOutput(out)}`);
    const assets = await readdir(join(apps.vue, 'dist', 'assets'));
    assert.ok(
      assets.some((f) => f.endsWith('.js')),
      'vite build wrote no JavaScript',
    );
  });

  // One vue-tsc run over the app plus src-errors/*.vue, which must fail, each file for its own reason.
  let wrong: Promise<{ code: number | null; text: string }> | undefined;
  const wrongRun = () =>
    (wrong ??= timed('vue: vue-tsc (expected errors)', async () => {
      const out = await run(bin('vue', 'vue-tsc'), ['--noEmit', '-p', 'tsconfig.errors.json'], {
        cwd: apps.vue,
        timeoutMs: 120_000,
      });
      return { code: out.code, text: tscOutput(out) };
    }));

  it('a <kasir-checkout> without endpoint fails vue-tsc, naming the prop', async () => {
    const { code, text } = await wrongRun();
    assert.notEqual(code, 0, 'vue-tsc passed the wrong components: the Vue template types are not real');
    const here = text.split(/\n(?=\S)/).filter((l) => l.includes('MissingEndpoint.vue'));
    assert.ok(here.length > 0, `vue-tsc found nothing wrong in MissingEndpoint.vue:\n${text}`);
    assert.match(
      here.join('\n'),
      /endpoint/,
      `vue-tsc failed in MissingEndpoint.vue without naming endpoint:\n${text}`,
    );
  });

  it('a handler of the wrong event type on @kasir-completed fails vue-tsc', async () => {
    const { text } = await wrongRun();
    const here = text.split(/\n(?=\S)/).filter((l) => l.includes('WrongEventHandler.vue'));
    assert.ok(
      here.length > 0,
      `vue-tsc found nothing wrong in WrongEventHandler.vue (are @kasir-* events typed?):\n${text}`,
    );
    assert.match(here.join('\n'), /KasirCompletedEvent/, `the error does not name the event type:\n${text}`);
  });

  it('vue-tsc fails only in the wrong components', async () => {
    const { text } = await wrongRun();
    const elsewhere = text.split('\n').filter((l) => /error TS/.test(l) && !l.startsWith('src-errors/'));
    assert.deepEqual(elsewhere, []);
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe('Node shop server with @kasir/merchant only', () => {
  let imports: Promise<Array<{ entry: string; ok: boolean; error?: string; code?: string; exports?: string[] }>>;
  let merchant: any;
  before(
    async () => {
      await installs.node;
      const manifest = JSON.parse(await readFile(join(apps.node, 'node_modules/@kasir/merchant/package.json'), 'utf8'));
      const merchantEntries = Object.keys(manifest.exports ?? { '.': null })
        .filter((k) => !k.endsWith('.json') && !k.includes('*'))
        .map((k) => (k === '.' ? '@kasir/merchant' : `@kasir/merchant/${k.slice(2)}`));
      imports = timed('node: import every entry in plain Node', async () => {
        const results = JSON.parse(
          (
            await runOk('node', ['imports.mjs', ...merchantEntries, ...CHECKOUT_ENTRIES], {
              cwd: apps.node,
              timeoutMs: 60_000,
            })
          ).stdout,
        );
        for (const r of results)
          console.log(`[packages] node: import ${r.entry}: ${r.ok ? `ok (${r.exports.join(', ')})` : r.error}`);
        return results;
      });
      imports.catch(() => {});
      merchant = await importFrom('node', '@kasir/merchant');
    },
    { timeout: 420_000 },
  );

  it("resolves @kasir/merchant's dependency @kasir/checkout@0.1.0 to our tarball, installed in the same npm install", async () => {
    const entry = lockEntry('node', '@kasir/checkout');
    assert.match(
      entry?.resolved ?? '',
      /^file:.*kasir-checkout-.*\.tgz$/,
      `@kasir/checkout in the lockfile: ${JSON.stringify(entry)}`,
    );
    assert.equal(
      existsSync(join(apps.node, 'node_modules/@kasir/merchant/node_modules/@kasir/checkout')),
      false,
      'a second, nested @kasir/checkout',
    );
    const installed = JSON.parse(await readFile(join(apps.node, 'node_modules/@kasir/checkout/package.json'), 'utf8'));
    assert.equal(installed.version, packed.get('@kasir/checkout')?.version);
  });

  it(`its installed tree holds none of ${SANDBOX_ONLY_DEPS.join(', ')}`, async () => {
    const found = await findInstalled(apps.node, SANDBOX_ONLY_DEPS);
    assert.deepEqual(
      found.map((p) => p.slice(apps.node.length + 1)),
      [],
    );
  });

  it('tsc --noEmit passes on server.ts (createKasirApi + verifyWebhook; strict, NodeNext, skipLibCheck false)', async () => {
    const out = await timed('node: tsc --noEmit', () =>
      run(bin('node', 'tsc'), ['--noEmit', '-p', '.'], { cwd: apps.node, timeoutMs: 120_000 }),
    );
    assert.equal(out.code, 0, `tsc failed in the Node shop:\n${tscOutput(out)}`);
  });

  it('Node imports every entry of @kasir/merchant without throwing', async () => {
    const failed = (await imports).filter((r) => r.entry.startsWith('@kasir/merchant') && !r.ok);
    assert.deepEqual(failed, []);
  });

  for (const entry of CHECKOUT_ENTRIES) {
    it(`Node (no DOM) imports ${entry} without throwing`, async () => {
      const result = (await imports).find((r) => r.entry === entry);
      assert.ok(result, `${entry} was not tried`);
      if (
        !result.ok &&
        entry.endsWith('/react') &&
        result.code === 'ERR_MODULE_NOT_FOUND' &&
        /'react'/.test(result.error ?? '')
      ) {
        // react is an optional peer and this shop has none: the entry may only fail for that reason (it is imported
        // with react present by the React shop's server rendering).
        return;
      }
      assert.equal(result.ok, true, `${entry}: ${result.error}`);
    });
  }

  it('@kasir/merchant exports createKasirApi and verifyWebhook', () => {
    assert.equal(
      typeof merchant.createKasirApi,
      'function',
      `exports of @kasir/merchant: ${Object.keys(merchant).join(', ')}`,
    );
    assert.equal(
      typeof merchant.verifyWebhook,
      'function',
      `exports of @kasir/merchant: ${Object.keys(merchant).join(', ')}`,
    );
  });

  const valid = () => ({
    baseUrl: 'http://127.0.0.1:9',
    clientId: 'client',
    clientSecret: 'secret',
    accessToken: 'token',
    webhookSecret: `whsec_${randomBytes(24).toString('base64')}`,
  });

  it('createKasirApi({}) reads no setting when created; at the first use it names baseUrl and KASIR_BASE_URL', () => {
    const api = merchant.createKasirApi({});
    assert.throws(() => api.config.baseUrl, /baseUrl \(or KASIR_BASE_URL\)/);
  });

  it('createKasirApi with a misspelled option throws, naming the nearest known one', () => {
    assert.throws(
      () => merchant.createKasirApi({ ...valid(), onDepositComplete: () => {} }),
      /did you mean onDepositCompleted\?/,
    );
  });

  it('createKasirApi with a baseUrl that is no URL throws, naming baseUrl', () => {
    assert.throws(() => merchant.createKasirApi({ ...valid(), baseUrl: 'not a url' }), /baseUrl/);
  });

  it('createKasirApi with a malformed webhookSecret throws, naming webhookSecret', () => {
    assert.throws(() => merchant.createKasirApi({ ...valid(), webhookSecret: 'not-a-secret' }), /webhookSecret/);
  });

  it('createKasirApi with feesPaidBy "nobody" throws, naming feesPaidBy', () => {
    assert.throws(() => merchant.createKasirApi({ ...valid(), feesPaidBy: 'nobody' }), /feesPaidBy/);
  });

  it('createKasirApi(valid options) is a Hono app whose .fetch answers a standard Request', async () => {
    const api = merchant.createKasirApi(valid());
    assert.equal(typeof api.route, 'function', 'not a Hono app (no .route)');
    assert.equal(typeof api.fetch, 'function', 'no .fetch');
    const res = await api.fetch(new Request('http://shop.example/no-such-route'));
    assert.ok(res instanceof Response, 'fetch did not answer a Response');
    assert.equal(res.status, 404);
  });

  const sign = (secret: string, id: string, timestamp: number, body: string) =>
    `v1,${createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64'))
      .update(`${id}.${timestamp}.${body}`)
      .digest('base64')}`;

  it('verifyWebhook(secret, headers, rawBody) verifies a Standard Webhooks delivery synchronously and returns the payload', () => {
    const secret = `whsec_${randomBytes(24).toString('base64')}`;
    const payload = {
      type: 'deposit.completed',
      orderId: 'chk_1',
      depositId: 'chk_1',
      status: 'completed',
      data: { id: 'chk_1' },
      timestamp: new Date().toISOString(),
    };
    const body = JSON.stringify(payload);
    const ts = Math.floor(Date.now() / 1000);
    const headers = {
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(ts),
      'webhook-signature': sign(secret, 'msg_1', ts, body),
    };
    const result = merchant.verifyWebhook(secret, headers, body);
    assert.equal(typeof result?.then, 'undefined', 'verifyWebhook returned a Promise: it must be synchronous');
    assert.deepEqual(result, payload);
    // A fetch Headers object works as well as a plain record.
    assert.deepEqual(merchant.verifyWebhook(secret, new Headers(headers), body), payload);
  });

  it('verifyWebhook throws on a bad signature', () => {
    const secret = `whsec_${randomBytes(24).toString('base64')}`;
    const body = JSON.stringify({ type: 'deposit.completed' });
    const ts = Math.floor(Date.now() / 1000);
    const other = `whsec_${randomBytes(24).toString('base64')}`;
    assert.throws(() =>
      merchant.verifyWebhook(
        secret,
        { 'webhook-id': 'msg_1', 'webhook-timestamp': String(ts), 'webhook-signature': sign(other, 'msg_1', ts, body) },
        body,
      ),
    );
    assert.throws(() =>
      merchant.verifyWebhook(
        secret,
        {
          'webhook-id': 'msg_1',
          'webhook-timestamp': String(ts),
          'webhook-signature': sign(secret, 'msg_1', ts, body),
        },
        `${body} `,
      ),
    );
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe("A shop's own tests: startSandbox (@kasir/sandbox) + the Node shop's server (createKasirApi at /api)", () => {
  let sandbox: any;
  let shop: { url: string; completed: unknown[]; close(): Promise<void> } | undefined;
  let checkout: any;
  let method: any;

  before(
    async () => {
      await Promise.all([installs.shop, installs.node]);
      const { startSandbox } = await importFrom('shop', '@kasir/sandbox');
      assert.equal(typeof startSandbox, 'function', '@kasir/sandbox exports no startSandbox');
      const shopPort = await freePort();
      sandbox = await timed('startSandbox', () =>
        startSandbox({
          port: 0,
          dataDir: join(work, 'sandbox-data'),
          webhookUrl: `http://127.0.0.1:${shopPort}/api/webhooks/kasir`,
        }),
      );
      // The shop's server.ts, run as its own code (its imports resolve from the Node shop's node_modules).
      const { startShop } = await import(pathToFileURL(join(apps.node, 'server.ts')).href).catch((err: Error) => {
        throw new Error(`Loading the Node shop's server.ts failed: ${err.message}`, { cause: err });
      });
      shop = await startShop(sandbox.credentials, shopPort);
    },
    { timeout: 420_000 },
  );

  after(
    async () => {
      await shop?.close().catch(() => {});
      await sandbox?.stop?.();
    },
    { timeout: 30_000 },
  );

  it('installs @kasir/sandbox with its dependency @kasir/checkout@0.1.0 resolved to our tarball', () => {
    for (const name of ['@kasir/sandbox', '@kasir/checkout']) {
      const entry = lockEntry('shop', name);
      assert.match(entry?.resolved ?? '', /^file:.*\.tgz$/, `${name} in the lockfile: ${JSON.stringify(entry)}`);
    }
    assert.equal(
      existsSync(join(apps.shop, 'node_modules/@kasir/sandbox/node_modules/@kasir/checkout')),
      false,
      'a second, nested @kasir/checkout',
    );
  });

  it('startSandbox({port: 0, dataDir, webhookUrl}) gives url, port, credentials and stop()', () => {
    assert.match(sandbox.url, /^http:\/\/[^/]+:\d+/);
    assert.ok(Number.isInteger(sandbox.port) && sandbox.port > 0, `port: ${sandbox.port}`);
    assert.equal(new URL(sandbox.url).port, String(sandbox.port), `url ${sandbox.url} is not on port ${sandbox.port}`);
    assert.equal(typeof sandbox.stop, 'function');
    for (const key of [
      'baseUrl',
      'checkoutUrl',
      'dashboardUrl',
      'email',
      'password',
      'clientId',
      'clientSecret',
      'accessToken',
      'webhookSecret',
    ]) {
      assert.equal(typeof sandbox.credentials?.[key], 'string', `credentials.${key}`);
      assert.ok(sandbox.credentials[key].length > 0, `credentials.${key} is empty`);
    }
  });

  it('POST /api/checkouts creates a checkout with its methods (201)', async () => {
    const res = await postJson(`${shop!.url}/api/checkouts`, { amount: '150000', currency: 'IDR' });
    assert.equal(res.status, 201, res.text);
    checkout = res.json.data;
    assert.equal(typeof checkout?.id, 'string', res.text);
    assert.ok(Array.isArray(checkout.methods) && checkout.methods.length > 0, `no methods: ${res.text}`);
    for (const m of checkout.methods) assert.equal(typeof m.code, 'string');
  });

  it('POST /api/checkouts/:id/deposit with a listed method starts a deposit (201)', async () => {
    assert.ok(checkout, 'no checkout (the step before failed)');
    const usable = checkout.methods.filter((m: any) => m.available !== false);
    method = usable.find((m: any) => m.code === 'BCA_VA') ?? usable.find((m: any) => m.kind === 'va') ?? usable[0];
    assert.ok(method, 'no available method');
    const res = await postJson(`${shop!.url}/api/checkouts/${checkout.id}/deposit`, { method: method.code });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.json.data.status, 'pending', res.text);
  });

  it('POST /api/sandbox/checkouts/:id/pay pays it', async () => {
    assert.ok(method, 'no deposit (the step before failed)');
    const res = await postJson(`${shop!.url}/api/sandbox/checkouts/${checkout.id}/pay`, undefined);
    assert.ok(res.status >= 200 && res.status < 300, `${res.status} ${res.text}`);
  });

  it('GET /api/checkouts/:id/deposit reads completed', async () => {
    assert.ok(method, 'no deposit (the step before failed)');
    const status = await waitFor('the deposit to read completed', 15_000, async () => {
      const res = await getJson(`${shop!.url}/api/checkouts/${checkout.id}/deposit`);
      assert.equal(res.status, 200, res.text);
      return res.json.data.status === 'completed' ? res.json.data.status : undefined;
    });
    assert.equal(status, 'completed');
  });

  it('the completion webhook arrived and verified: onDepositCompleted ran once', async () => {
    assert.ok(method, 'no deposit (the steps before failed)');
    await timed('webhook to onDepositCompleted', () =>
      waitFor(
        "onDepositCompleted to be called (the sandbox's webhook to /api/webhooks/kasir)",
        20_000,
        () => shop!.completed.length > 0,
      ),
    );
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(shop!.completed.length, 1, `onDepositCompleted ran ${shop!.completed.length} times`);
    assert.ok(
      JSON.stringify(shop!.completed[0]).includes(checkout.id),
      `the hook's argument does not name the checkout: ${JSON.stringify(shop!.completed[0])}`,
    );
  });

  it('createKasirApi(...).fetch creates a checkout from a standard Request, with no HTTP server (a route handler)', async () => {
    const { createKasirApi } = await importFrom('node', '@kasir/merchant');
    const { baseUrl, checkoutUrl, clientId, clientSecret, accessToken, webhookSecret } = sandbox.credentials;
    const api = createKasirApi({
      baseUrl,
      checkoutUrl,
      clientId,
      clientSecret,
      accessToken,
      webhookSecret,
      sandbox: true,
    });
    const res: Response = await api.fetch(
      new Request('https://shop.example/checkouts', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ amount: '25000', currency: 'IDR' }),
      }),
    );
    const text = await res.text();
    assert.equal(res.status, 201, text);
    assert.equal(typeof JSON.parse(text).data?.id, 'string', text);
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe('The installed bins: kasir-sandbox and kasir-merchant', () => {
  const dataDir = () => join(work, 'bin-data');
  let sandboxProc: ReturnType<typeof startProcess> | undefined;
  let merchantProc: ReturnType<typeof startProcess> | undefined;
  let credentials: any;
  let merchantUrl = '';
  let merchantPort = 0;

  before(
    async () => {
      await Promise.all([installs.shop, installs.node]);
      merchantPort = await freePort();
      merchantUrl = `http://127.0.0.1:${merchantPort}`;
    },
    { timeout: 420_000 },
  );

  after(
    async () => {
      await Promise.all([sandboxProc, merchantProc].filter((p) => p !== undefined).map((p) => killTree(p.child)));
    },
    { timeout: 30_000 },
  );

  it('kasir-sandbox writes KASIR_DATA_DIR/sandbox.json with the credentials', async () => {
    const port = await freePort();
    sandboxProc = startProcess(bin('shop', 'kasir-sandbox'), [], {
      cwd: apps.shop,
      env: childEnv({
        PROVIDER_PORT: String(port),
        KASIR_DATA_DIR: dataDir(),
        KASIR_WEBHOOK_URL: `${merchantUrl}/api/webhooks/kasir`,
      }),
    });
    const file = join(dataDir(), 'sandbox.json');
    credentials = await timed('kasir-sandbox to sandbox.json', () =>
      waitFor(
        `${file} (kasir-sandbox output so far: ${tail(sandboxProc!.out.stdout + sandboxProc!.out.stderr, 1000)})`,
        30_000,
        async () => {
          if (sandboxProc!.out.code !== null)
            throw new Error(`kasir-sandbox exited with ${sandboxProc!.out.code}: ${tail(sandboxProc!.out.stderr)}`);
          if (!existsSync(file)) return undefined;
          return JSON.parse(await readFile(file, 'utf8'));
        },
      ),
    );
    for (const key of [
      'baseUrl',
      'checkoutUrl',
      'dashboardUrl',
      'email',
      'password',
      'clientId',
      'clientSecret',
      'accessToken',
      'webhookSecret',
    ]) {
      assert.equal(typeof credentials[key], 'string', `sandbox.json has no ${key}`);
    }
    const res = await waitFor(
      'the sandbox to answer',
      10_000,
      async () => (await fetchWithTimeout(credentials.baseUrl, {}, 2000)).status > 0,
    );
    assert.ok(res);
  });

  const merchantEnv = (extra: Record<string, string | undefined> = {}) =>
    childEnv({
      ...sandboxConnectionEnv(credentials),
      PORT: String(merchantPort),
      HOST: '127.0.0.1',
      ...extra,
    });

  it('kasir-merchant, configured from sandbox.json, serves /kasir-checkout.js (200, JavaScript)', async () => {
    assert.ok(credentials, 'no sandbox.json (the step before failed)');
    // Its follower reads open checkouts every 500 ms here, so a payment reaches its hook without a webhook to it.
    merchantProc = startProcess(bin('node', 'kasir-merchant'), [], {
      cwd: apps.node,
      env: merchantEnv({ KASIR_FOLLOW_MS: '500' }),
    });
    const res = await timed('kasir-merchant to answer', () =>
      waitFor(`kasir-merchant on ${merchantUrl}`, 20_000, async () => {
        if (merchantProc!.out.code !== null)
          throw new Error(`kasir-merchant exited with ${merchantProc!.out.code}: ${tail(merchantProc!.out.stderr)}`);
        return fetchWithTimeout(`${merchantUrl}/kasir-checkout.js`, {}, 2000);
      }),
    );
    const body = await res.text();
    assert.equal(res.status, 200, body.slice(0, 500));
    assert.match(res.headers.get('content-type') ?? '', /javascript/);
    assert.match(body, /kasir-checkout/);
  });

  it('kasir-merchant serves the widget API under /api (POST /api/checkouts: 201)', async () => {
    assert.ok(merchantProc, 'kasir-merchant did not start (the step before failed)');
    const res = await postJson(`${merchantUrl}/api/checkouts`, { amount: '150000', currency: 'IDR' });
    assert.equal(res.status, 201, res.text);
  });

  it("kasir-merchant's own completion line: a paid checkout's paidAmount as exact decimal text", async () => {
    assert.ok(merchantProc, 'kasir-merchant did not start (the step before failed)');
    const created = await postJson(`${merchantUrl}/api/checkouts`, { amount: '150000', currency: 'IDR' });
    const id = created.json?.data?.id as string;
    assert.equal((await postJson(`${merchantUrl}/api/checkouts/${id}/deposit`, { method: 'BCA_VA' })).status, 201);
    const paid = await postJson(`${merchantUrl}/api/sandbox/checkouts/${id}/pay`, undefined);
    assert.ok(paid.status < 300, paid.text);
    const line = await waitFor(`the "deposit completed" line of ${id}`, 20_000, () =>
      merchantProc!.out.stdout
        .split('\n')
        .flatMap((l) => (l.includes('"deposit completed"') ? [JSON.parse(l) as Record<string, unknown>] : []))
        .find((l) => l.checkoutId === id),
    );
    assert.deepEqual([line.paidAmount, line.currency], ['150000', 'IDR']);
  });

  it('kasir-merchant serves the webhook receiver at /api/webhooks/kasir (an unsigned delivery is refused, not 404)', async () => {
    assert.ok(merchantProc, 'kasir-merchant did not start (the step before failed)');
    const res = await postJson(`${merchantUrl}/api/webhooks/kasir`, { type: 'deposit.completed' });
    assert.ok(res.status >= 400 && res.status < 500 && res.status !== 404, `${res.status} ${res.text}`);
  });

  it('kasir-merchant without KASIR_CLIENT_ID exits 1 with a message naming it', async () => {
    const port = await freePort();
    const env = childEnv({
      KASIR_BASE_URL: 'http://127.0.0.1:9',
      KASIR_CLIENT_SECRET: 'secret',
      KASIR_ACCESS_TOKEN: 'token',
      KASIR_WEBHOOK_SECRET: `whsec_${randomBytes(24).toString('base64')}`,
      PORT: String(port),
      HOST: '127.0.0.1',
    });
    const out = await run(bin('node', 'kasir-merchant'), [], { cwd: apps.node, env, timeoutMs: 20_000 });
    assert.equal(out.code, 1, `exit ${out.code ?? out.signal}; stderr: ${out.stderr}`);
    assert.match(out.stderr + out.stdout, /KASIR_CLIENT_ID/);
  });
});
