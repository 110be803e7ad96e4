// The README's recipes, as a new shop follows them: Next.js App Router, Express 5 (with and without
// express.json() before the mount), Hono and plain Node, each in its own temp project with @kasir/merchant and
// @kasir/checkout from the packed tarballs and its framework from the npm registry. Each file run here is the file the
// docs/install.md shows (the test checks it holds it verbatim). Each recipe makes one test payment against a
// sandbox (started from this repository: it is not under test here) and waits for its onDepositCompleted line.
// The order page is opened in Chromium: the element's script loads, the methods show and one is chosen there, and the
// page shows the payment once the sandbox is paid.
// Printed: the time from `npm install` to that first test payment, per recipe ([recipes] lines).
// Set KASIR_KEEP_PACKAGES_TMP=1 to keep the temp dir for a look after a failure.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { cp, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { startSandbox, type RunningSandbox } from '../../server/provider/process/main';
import { chromiumArgs, chromiumPath } from '../support/chromium';
import { packedTarballs } from '../support/packed';
import { sandboxConnectionEnv } from '../support/sandbox-env';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const RECIPES = fileURLToPath(new URL('./fixtures/recipes', import.meta.url));
const KEEP_TMP = process.env.KASIR_KEEP_PACKAGES_TMP === '1';

type Recipe = 'next' | 'express' | 'hono' | 'node';
/** Each recipe's files the README shows, and which of our tarballs it installs. */
const SHOWN: Record<Recipe, string[]> = {
  next: [
    'lib/kasir.js',
    'app/api/[...kasir]/route.js',
    'app/order/[orderId]/page.js',
    'app/order/[orderId]/checkout.js',
    'next.config.mjs',
  ],
  express: ['server.js'],
  hono: ['server.js'],
  node: ['server.js'],
};
const OURS: Record<Recipe, Array<'merchant' | 'checkout'>> = {
  next: ['merchant', 'checkout'],
  express: ['merchant', 'checkout'],
  hono: ['merchant', 'checkout'],
  node: ['merchant', 'checkout'],
};

let work = '';
const tarballs = { merchant: '', checkout: '' };
const dirs = {} as Record<Recipe, string>;
const installs = {} as Record<Recipe, Promise<number>>;
const children = new Set<ChildProcess>();
const figures: string[] = [];
/** One Chromium for every recipe's order page, launched at the first. */
let browser: Promise<Browser> | undefined;
const launched = () =>
  (browser ??= chromium.launch({ executablePath: chromiumPath, args: chromiumArgs, headless: true }));

/** Children get no kasir or npm-script variables of ours: a recipe sees only what it is given. */
function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(KASIR_|PORT$|NODE_OPTIONS$|INIT_CWD$|npm_)/i.test(key)) continue;
    env[key] = value;
  }
  return { ...env, NEXT_TELEMETRY_DISABLED: '1', ...extra };
}

function start(command: string, args: string[], cwd: string, env = childEnv()) {
  const child = spawn(command, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  const out = { text: '', code: null as number | null };
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out.text += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (out.text += d));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      children.delete(child);
      out.code = code;
      setImmediate(() => resolve(code));
    }),
  );
  return { child, out, exited };
}

async function stop(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null || !child.pid) return;
  const exited = new Promise((r) => child.once('exit', r));
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {
    /* gone */
  }
  const timer = setTimeout(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      /* gone */
    }
  }, 3000);
  await exited;
  clearTimeout(timer);
}

async function runOk(command: string, args: string[], cwd: string, timeoutMs: number, env?: NodeJS.ProcessEnv) {
  const proc = start(command, args, cwd, env);
  const timer = setTimeout(() => void stop(proc.child), timeoutMs);
  const code = await proc.exited;
  clearTimeout(timer);
  if (code !== 0)
    throw new Error(
      `\`${command} ${args.join(' ')}\` in ${cwd} exited with ${code ?? 'a signal (timed out?)'}:\n${proc.out.text.slice(-4000)}`,
    );
  return proc.out.text;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
      .once('error', reject)
      .listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
  });
}

async function waitFor<T>(
  what: string,
  timeoutMs: number,
  probe: () => T | undefined | Promise<T | undefined>,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${timeoutMs / 1000} s waiting for ${what}${last ? ` (${(last as Error).message})` : ''}`,
      );
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function post(url: string, body?: unknown) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await res.text();
  return { status: res.status, text, json: JSON.parse(text) as { data?: { id: string; status: string } } };
}

/** The recipe's project: its fixture copied, then `npm install` of our tarballs and its own dependencies (timed). */
async function install(recipe: Recipe): Promise<number> {
  const dir = join(work, recipe);
  const t = performance.now();
  if (recipe === 'next') {
    // A fresh app as create-next-app makes it today (its defaults: Next 16 turns on cacheComponents), then the recipe's
    // route and its one line of next.config.
    await runOk(
      'npx',
      [
        '--yes',
        'create-next-app@latest',
        recipe,
        '--yes',
        '--js',
        '--app',
        '--no-src-dir',
        '--no-eslint',
        '--no-tailwind',
        '--use-npm',
        '--skip-install',
        '--disable-git',
      ],
      work,
      240_000,
      childEnv(),
    );
    // Its layout and page load Google fonts at build time (no network in CI): the fixture's plain ones replace them.
    await cp(join(RECIPES, recipe, 'app'), join(dir, 'app'), { recursive: true, force: true });
    await cp(join(RECIPES, recipe, 'lib'), join(dir, 'lib'), { recursive: true, force: true });
    const config = await readFile(join(dir, 'next.config.mjs'), 'utf8');
    const withKasir = config.replace(
      /const nextConfig = \{/,
      "const nextConfig = {\n  serverExternalPackages: ['@kasir/merchant'],",
    );
    assert.notEqual(withKasir, config, `create-next-app's next.config.mjs has another shape:\n${config}`);
    await writeFile(join(dir, 'next.config.mjs'), withKasir);
    await runOk(
      'npm',
      ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', 'hono@^4.10.0'],
      dir,
      300_000,
    );
  } else {
    await cp(join(RECIPES, recipe), dir, { recursive: true });
  }
  dirs[recipe] = dir;
  await runOk(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
      '--loglevel=error',
      ...OURS[recipe].map((name) => tarballs[name]),
    ],
    dir,
    300_000,
  );
  return performance.now() - t;
}

/**
 * A sandbox whose webhooks go to the recipe's port, the recipe's server started by `command` with the sandbox's
 * settings in its environment, and one test payment: checkout, method, pay, then the hook's `order paid` line.
 */
async function payThrough(
  recipe: string,
  command: [string, string[]],
  cwd: string,
): Promise<{ ms: number; output: string }> {
  const port = await freePort();
  const dataDir = await mkdtemp(join(work, `sandbox-${recipe}-`));
  const sandbox: RunningSandbox = await startSandbox({
    port: 0,
    dataDir,
    webhookUrl: `http://127.0.0.1:${port}/api/webhooks/kasir`,
    scryptN: 2 ** 10,
  });
  const c = sandbox.credentials;
  const t = performance.now();
  const server = start(
    command[0],
    command[1],
    cwd,
    childEnv({
      ...sandboxConnectionEnv(c),
      // A token sent is checked in sandbox mode too: the order page's token must be the recipe's own.
      KASIR_ORDER_SECRET: 'recipe-order-secret-0123456789abcdef-0123456789',
      PORT: String(port),
      HOSTNAME: '127.0.0.1',
    }),
  );
  try {
    const url = `http://127.0.0.1:${port}/api`;
    const orderId = `ORD-${recipe.replace(/\W/g, '')}-${Date.now()}`;
    // The shop's order page renders the element with the order's token, made on the server.
    const page = await waitFor(`${recipe} to answer its order page`, 60_000, async () => {
      if (server.out.code !== null) throw new Error(`the server exited: ${server.out.text.slice(-2000)}`);
      const res = await fetch(`http://127.0.0.1:${port}/order/${orderId}`).catch(() => undefined);
      return res?.ok ? res.text() : undefined;
    });
    assert.match(page, /order-token="[^"]+"/, `the order page renders order-token: ${page.slice(0, 500)}`);
    // The shopper's browser: the element's script loads from the recipe's server, the methods show, one is chosen.
    const context = await (await launched()).newContext();
    try {
      const tab = await context.newPage();
      const problems: string[] = [];
      tab.on('pageerror', (e) => problems.push(String(e)));
      await tab.goto(`http://127.0.0.1:${port}/order/${orderId}`);
      const state = (name: string) => tab.waitForSelector(`kasir-checkout[state="${name}"]`, { timeout: 60_000 });
      await state('choosing');
      const method = tab.locator('kasir-checkout [part="method"][data-method="BCA_VA"]');
      // With many methods a kind's group is closed until its button opens it.
      if (!(await method.isVisible()))
        await tab.locator('kasir-checkout [part="method-group"][data-kind="va"] button.kind').click();
      const chosen = tab.waitForResponse((r) => r.request().method() === 'POST' && r.url().endsWith('/deposit'));
      await method.click();
      const answer = await chosen;
      assert.equal(answer.status(), 201, await answer.text());
      const id = ((await answer.json()) as { data: { id: string } }).data.id;
      await state('pending');
      const paid = await post(`${url}/sandbox/checkouts/${id}/pay`);
      assert.ok(paid.status < 300, paid.text);
      await state('completed');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
    await waitFor(
      `the ${recipe} recipe's onDepositCompleted ("order paid: ${orderId}"); its output: ${server.out.text.slice(-1500)}`,
      20_000,
      () => server.out.text.includes(`order paid: ${orderId}`),
    );
    return { ms: performance.now() - t, output: server.out.text };
  } finally {
    await stop(server.child);
    await sandbox.stop();
  }
}

function report(recipe: string, steps: Array<[string, number]>) {
  const total = steps.reduce((sum, [, ms]) => sum + ms, 0);
  const line = `[recipes] ${recipe}: ${steps.map(([step, ms]) => `${step} ${(ms / 1000).toFixed(1)} s`).join(' + ')} = ${(total / 1000).toFixed(1)} s from npm install to the first test payment`;
  figures.push(line);
  console.log(line);
}

before(
  async () => {
    work = await mkdtemp(join(tmpdir(), 'kasir-recipes-'));
    const t = performance.now();
    const packed = await packedTarballs(childEnv());
    console.log(`[recipes] npm pack (or the run's earlier pack): ${((performance.now() - t) / 1000).toFixed(1)} s`);
    tarballs.merchant = packed.get('@kasir/merchant')!;
    tarballs.checkout = packed.get('@kasir/checkout')!;
    // Next.js (the largest install) first; each recipe awaits its own.
    for (const recipe of ['next', 'express', 'hono', 'node'] as const) {
      installs[recipe] = install(recipe);
      installs[recipe].catch(() => {});
    }
  },
  { timeout: 200_000 },
);

after(
  async () => {
    await Promise.all([...children].map(stop));
    await (await browser?.catch(() => undefined))?.close();
    await Promise.allSettled(Object.values(installs));
    if (work && !KEEP_TMP) await rm(work, { recursive: true, force: true, maxRetries: 3 });
    else if (work) console.log(`[recipes] kept ${work}`);
    console.log(figures.join('\n'));
  },
  { timeout: 60_000 },
);

describe('the README shows each recipe file as the test runs it', () => {
  for (const [recipe, files] of Object.entries(SHOWN)) {
    for (const file of files) {
      it(`${recipe}: ${file}`, async () => {
        const readme = await readFile(join(ROOT, 'docs', 'install.md'), 'utf8');
        const text = (await readFile(join(RECIPES, recipe, file), 'utf8')).trim();
        assert.ok(
          readme.includes(text),
          `docs/install.md does not show test/packages/fixtures/recipes/${recipe}/${file} verbatim`,
        );
      });
    }
  }
});

describe('Hono recipe', () => {
  it('installs and makes a test payment', async () => {
    const installMs = await installs.hono;
    const { ms } = await payThrough('hono', ['node', ['server.js']], dirs.hono);
    report('hono', [
      ['npm install', installMs],
      ['start to paid', ms],
    ]);
  });
});

describe('plain Node recipe', () => {
  it('installs and makes a test payment', async () => {
    const installMs = await installs.node;
    const { ms } = await payThrough('node', ['node', ['server.js']], dirs.node);
    report('node', [
      ['npm install', installMs],
      ['start to paid', ms],
    ]);
  });

  it('serves no script without @kasir/checkout, and says how to get it', async () => {
    // The command of the merchant installed alone: the recipe's @kasir/checkout moved aside for this test.
    const installed = join(dirs.node, 'node_modules/@kasir/checkout');
    await rename(installed, `${installed}-aside`);
    const port = await freePort();
    const proc = start(
      join(dirs.node, 'node_modules/.bin/kasir-merchant'),
      [],
      dirs.node,
      childEnv({
        KASIR_BASE_URL: 'http://127.0.0.1:9',
        KASIR_CLIENT_ID: 'id',
        KASIR_CLIENT_SECRET: 'secret',
        KASIR_ACCESS_TOKEN: 'token',
        KASIR_WEBHOOK_SECRET: 'whsec_c2VjcmV0c2VjcmV0',
        PORT: String(port),
        HOST: '127.0.0.1',
        KASIR_DATA_DIR: join(work, 'node-data'),
      }),
    );
    try {
      const res = await waitFor('kasir-merchant to answer', 20_000, async () => {
        if (proc.out.code !== null) throw new Error(`kasir-merchant exited: ${proc.out.text}`);
        return fetch(`http://127.0.0.1:${port}/kasir-checkout.js`).catch(() => undefined);
      });
      assert.equal(res.status, 503); // the same status as a widget not built, on both servers
      assert.match(await res.text(), /npm install @kasir\/checkout/);
    } finally {
      await stop(proc.child);
      await rename(`${installed}-aside`, installed);
    }
  });
});

describe('Express 5 recipe', () => {
  it('installs and makes a test payment, express.json() before the mount (as the README shows it)', async () => {
    const installMs = await installs.express;
    const { ms } = await payThrough('express', ['node', ['server.js']], dirs.express);
    report('express', [
      ['npm install', installMs],
      ['start to paid', ms],
    ]);
  });

  it('makes a test payment without express.json()', async () => {
    const shown = await readFile(join(dirs.express, 'server.js'), 'utf8');
    const without = shown.replace('app.use(express.json());\n', '');
    assert.notEqual(without, shown, 'the recipe has no express.json() line to take out');
    await writeFile(join(dirs.express, 'server-without-json.js'), without);
    await payThrough('express (no express.json)', ['node', ['server-without-json.js']], dirs.express);
  });
});

describe('Next.js App Router recipe', () => {
  it('next build passes with no settings present, and next start makes a test payment', async () => {
    const installMs = await installs.next;
    const t = performance.now();
    // childEnv(): no KASIR_* variable at all.
    await runOk(join(dirs.next, 'node_modules/.bin/next'), ['build'], dirs.next, 240_000, childEnv());
    const buildMs = performance.now() - t;
    const { ms } = await payThrough(
      'next',
      [join(dirs.next, 'node_modules/.bin/next'), ['start', '-H', '127.0.0.1']],
      dirs.next,
    );
    report('next', [
      ['npm install', installMs],
      ['next build', buildMs],
      ['next start to paid', ms],
    ]);
  });
});
