// `npm run bench` (previous part): this build against the previous release's, in the same run, so a regression shows
// as a ratio rather than as a figure nobody remembers. The previous release (BENCH_PREVIOUS: a tag or a commit, the
// last landed main commit by default; `none` leaves this part out) is checked out in a temporary git worktree beside
// this one, its node_modules hard links to these (no install), and built there. Then, in alternation round after
// round (a burst of other work on the shared machine falls on both alike): the shopper's first paint of a
// page-priced checkout and the tap to QR (the first-paint part's phone profile), and on the compiled kasir-sandbox,
// deposits created and signed reads of one (GET /v1/deposit/:id), each as the provider part loads them, and completions as fast as the API takes them
// with their webhooks delivered (the webhooks part's stream). Each figure is printed for both with the ratio this /
// previous (above 1: this build is faster, for a time below 1). BENCH_PREVIOUS_ONLY=first-paint or service measures
// only those.
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { launch, sparePort, startKasir } from '../e2e/harness';
import { page, VARIANTS, visit } from './first-paint';
import { signedRequestHeaders } from '../../server/common/request-signing';
import { load, startSandboxCommand } from './support';
import { Service, startReceiver, stream } from './webhooks';

const QUICK = process.argv.includes('--quick');
const PREVIOUS = process.env.BENCH_PREVIOUS || '527ac66';
const ROUNDS = Number(process.env.BENCH_PREVIOUS_ROUNDS || (QUICK ? 3 : 5));
/** BENCH_PREVIOUS_ONLY=first-paint (or service) measures only those figures. */
const ONLY = process.env.BENCH_PREVIOUS_ONLY;
/** Seconds of each load (creates, signed reads) per round. */
const LOAD_SECONDS = QUICK ? 2 : 5;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : Number.NaN;
};

/** The previous release built in a worktree of its own; removed when the part ends. */
function buildPrevious(): { root: string; remove(): void } {
  const root = mkdtempSync(join(tmpdir(), 'kasir-previous-'));
  const git = (...args: string[]) => execFileSync('git', args, { stdio: ['ignore', 'pipe', 'inherit'] });
  git('worktree', 'add', '--detach', '--force', root, PREVIOUS);
  const remove = () => {
    git('worktree', 'remove', '--force', root);
    rmSync(root, { recursive: true, force: true });
  };
  try {
    // The same dependencies, as hard links (a copy of the directory tree, not of the files' bytes).
    for (const dir of ['node_modules', 'server/merchant/node_modules', 'server/provider/node_modules'])
      if (existsSync(dir)) execFileSync('cp', ['-al', dir, join(root, dir)]);
    installMissing(root);
    execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  } catch (err) {
    remove();
    throw err;
  }
  return { root, remove };
}

/**
 * What the previous release depends on that these node_modules lack (a dependency dropped since, such as an older
 * sandbox's swagger-ui-dist), at its lock file's version: installed by npm into a directory of its own outside any
 * workspace, then moved into the previous release's node_modules, so the hard-linked files shared with this checkout
 * are never written.
 */
function installMissing(root: string) {
  const manifest = (dir: string) => JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));
  const top = manifest('.');
  const workspaces: string[] = top.workspaces ?? [];
  const own = new Set(workspaces.map((dir) => manifest(dir).name));
  const lock = existsSync(join(root, 'package-lock.json'))
    ? JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')).packages
    : {};
  const missing = new Set<string>();
  for (const dir of ['.', ...workspaces]) {
    const { dependencies, devDependencies, optionalDependencies } = manifest(dir);
    for (const [name, range] of Object.entries<string>({
      ...dependencies,
      ...devDependencies,
      ...optionalDependencies,
    }))
      if (!own.has(name) && ![dir, '.'].some((at) => existsSync(join(root, at, 'node_modules', name))))
        missing.add(`${name}@${lock[`node_modules/${name}`]?.version ?? range}`);
  }
  if (!missing.size) return;
  console.log(`  installing what ${PREVIOUS} needs and this checkout no longer has: ${[...missing].join(', ')}`);
  const extra = mkdtempSync(join(tmpdir(), 'kasir-previous-deps-'));
  try {
    writeFileSync(join(extra, 'package.json'), '{"private":true}');
    execFileSync(
      'npm',
      [
        'install',
        '--prefix',
        extra,
        '--no-save',
        '--no-package-lock',
        '--no-audit',
        '--no-fund',
        '--ignore-scripts',
        ...missing,
      ],
      { cwd: extra, stdio: ['ignore', 'ignore', 'inherit'] },
    );
    // Each package installed (and what it needs) that the previous release's node_modules lacks, moved there.
    const installed = join(extra, 'node_modules');
    const names = readdirSync(installed)
      .filter((name) => !name.startsWith('.'))
      .flatMap((name) =>
        name.startsWith('@') ? readdirSync(join(installed, name)).map((scoped) => `${name}/${scoped}`) : [name],
      );
    for (const name of names) {
      const to = join(root, 'node_modules', name);
      if (existsSync(to)) continue;
      mkdirSync(dirname(to), { recursive: true });
      renameSync(join(installed, name), to);
    }
  } finally {
    rmSync(extra, { recursive: true, force: true });
  }
}

interface Figures {
  list: number[];
  qr: number[];
  creates: number[];
  reads: number[];
  completions: number[];
  deliveryP95: number[];
}

/** The shopper's first paint of a page-priced checkout and the tap to QR, `visits` cold visits. */
async function firstPaint(root: string, visits: number, into: Figures) {
  const shopPort = await sparePort();
  const shop = `http://127.0.0.1:${shopPort}`;
  const kasir = await startKasir({ KASIR_ALLOWED_ORIGINS: shop, KASIR_CHECKOUT_RATE_LIMIT: '100000' }, root);
  const variant = VARIANTS.find((v) => !v.bare && !v.serverCheckout && !v.preconnect && !v.modulepreload)!;
  const server: Server = createServer((_, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(page(kasir, variant));
  });
  await new Promise<void>((resolve) => server.listen(shopPort, '127.0.0.1', resolve));
  const browser = await launch();
  try {
    await visit(browser, shop, true); // warm-up, not counted
    for (let i = 0; i < visits; i++) {
      const { figures, finished } = await visit(browser, shop, true);
      if (!finished) continue;
      into.list.push(figures.list!);
      into.qr.push(figures.qr! - figures.tap!);
    }
  } finally {
    await browser.close();
    server.close();
    await kasir.stop();
  }
}

/** On the compiled kasir-sandbox: creates, authenticated reads, completions as fast as taken with their webhooks. */
async function service(root: string, into: Figures) {
  const receiver = await startReceiver();
  const dataDir = mkdtempSync(join(tmpdir(), 'kasir-bench-previous-'));
  const command = await startSandboxCommand(
    dataDir,
    { KASIR_WEBHOOK_URL: receiver.url, KASIR_LOG_LEVEL: 'info' },
    root,
  );
  const api = new Service(command.base, command.credentials.accessToken);
  try {
    const { clientId, clientSecret, accessToken } = command.credentials;
    // Creates, as the provider part loads them (autocannon in its own process, a fixed body).
    const created = await load({
      url: `${command.base}/v1/deposit/fiat`,
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${accessToken}` },
      body: JSON.stringify({
        inputCurrency: 'IDR',
        inputAmount: 150000,
        outputCurrency: 'IDR',
        balanceType: 'fiat',
        paymentMethod: 'BCA_VA',
      }),
      durationSeconds: LOAD_SECONDS,
    });
    into.creates.push(created.requestsPerSecond);
    // Signed reads of one deposit (a GET signature is not replay-checked: one signature serves the load).
    const one = await api.call('POST', '/v1/deposit/fiat', {
      inputCurrency: 'IDR',
      inputAmount: 250000,
      outputCurrency: 'IDR',
      balanceType: 'fiat',
      paymentMethod: 'QRIS',
    });
    const target = `/v1/deposit/${one.data.depositId}`;
    const read = await load({
      url: `${command.base}${target}`,
      headers: signedRequestHeaders(clientId, clientSecret, 'GET', target, ''),
      durationSeconds: LOAD_SECONDS,
    });
    into.reads.push(read.requestsPerSecond);
    const completions = await stream(api, receiver, 0, dataDir);
    into.completions.push(completions.completionRate);
    into.deliveryP95.push(completions.p95);
  } finally {
    api.close();
    await command.stop();
    await receiver.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function run(): Promise<void> {
  if (PREVIOUS === 'none') return;
  const sha = (rev: string) => execFileSync('git', ['rev-parse', '--short', rev], { encoding: 'utf8' }).trim();
  console.log(
    `\nthis build against the previous release (${PREVIOUS}, ${sha(PREVIOUS)}), built beside it; ${ROUNDS} rounds in alternation`,
  );
  const previous = buildPrevious();
  const builds = [
    { label: `previous (${sha(PREVIOUS)})`, root: previous.root },
    {
      label: `this (${sha('HEAD')}${execFileSync('git', ['status', '--porcelain'], { encoding: 'utf8' }) ? ', with changes' : ''})`,
      root: '.',
    },
  ].map((b) => ({
    ...b,
    figures: { list: [], qr: [], creates: [], reads: [], completions: [], deliveryP95: [] } as Figures,
  }));
  try {
    for (let round = 0; round < ROUNDS; round++)
      for (const build of round % 2 ? [...builds].reverse() : builds) {
        if (ONLY !== 'service') await firstPaint(build.root, QUICK ? 1 : 2, build.figures);
        if (ONLY !== 'first-paint') await service(build.root, build.figures);
      }
  } finally {
    previous.remove();
  }
  const [before, after] = builds;
  const rows: Array<[string, keyof Figures, string, boolean]> = [
    ['method list (page-priced, phone profile)', 'list', 'ms', false],
    ['tap to QR', 'qr', 'ms', false],
    ['deposits created', 'creates', '/s', true],
    ['signed GET /v1/deposit/:id', 'reads', '/s', true],
    ['completions as fast as taken', 'completions', '/s', true],
    ['their delivery, p95', 'deliveryP95', 'ms', false],
  ];
  console.log(
    `  ${''.padEnd(42)} ${before.label.padStart(24)} ${after.label.padStart(32)}   ratio (above 1: this is better)`,
  );
  for (const [label, key, unit, higherIsBetter] of rows) {
    if (!before.figures[key].length && !after.figures[key].length) continue; // not measured (BENCH_PREVIOUS_ONLY)
    const [a, b] = [median(before.figures[key]), median(after.figures[key])];
    const spread = (xs: number[]) =>
      xs.length ? `[${Math.round(Math.min(...xs))}-${Math.round(Math.max(...xs))}]` : '';
    console.log(
      `  ${label.padEnd(42)} ${`${Math.round(a)} ${unit} ${spread(before.figures[key])}`.padStart(24)} ` +
        `${`${Math.round(b)} ${unit} ${spread(after.figures[key])}`.padStart(32)}   ${(higherIsBetter ? b / a : a / b).toFixed(2)}`,
    );
  }
}
