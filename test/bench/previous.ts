// `npm run bench` (previous part): this build against the previous release's, in the same run, so a regression shows
// as a ratio rather than as a figure nobody remembers. The previous release (BENCH_PREVIOUS: a tag or a commit, the
// last landed main commit by default; `none` leaves this part out) is checked out in a temporary git worktree beside
// this one, its node_modules hard links to these (what it needs that they lack installed into it alone), and built
// there. Then, in alternation round after round (a burst of other work on the shared machine falls on both alike):
// the shopper's first paint on the first-paint part's phone profile (the method list of a page-priced checkout and of
// one the shop's server made, the list rendered with the page after its first contentful paint where the build renders
// it, and the tap to QR; BENCH_PREVIOUS_VISITS cold visits of each, 7 by default, spread over the rounds), and on the
// compiled kasir-sandbox, deposits created and signed reads of one (GET /v1/deposit/:id), each as the provider part
// loads them, and completions as fast as the API takes them with their webhooks delivered (the webhooks part's
// stream). Each figure is printed for both with its spread and the ratio this / previous (above 1: this build is
// faster, for a time below 1). BENCH_PREVIOUS_ONLY=first-paint or service measures only those.
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
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { launch, sparePort, startKasir, type Kasir } from '../e2e/harness';
import { shopRenderer, startShop, VARIANTS, visit, type Renderer } from './first-paint';
import { signedRequestHeaders } from '../../server/common/request-signing';
import { load, startSandboxCommand } from './support';
import { Service, startReceiver, stream } from './webhooks';

const QUICK = process.argv.includes('--quick');
const PREVIOUS = process.env.BENCH_PREVIOUS || '527ac66';
const ROUNDS = Number(process.env.BENCH_PREVIOUS_ROUNDS || (QUICK ? 3 : 5));
/** Cold visits of each first-paint page per build, spread over the rounds (BENCH_PREVIOUS_VISITS). */
const VISITS = Number(process.env.BENCH_PREVIOUS_VISITS || (QUICK ? 3 : 7));
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
  serverList: number[];
  renderedAfterFcp: number[];
  qr: number[];
  creates: number[];
  reads: number[];
  completions: number[];
  deliveryP95: number[];
}

/** The first-paint part's pages measured here, by their place in its VARIANTS, and what each gives. */
const PAGES = [
  // As installed: a page-priced checkout on a page of another origin; the tap to QR is measured on it.
  { v: VARIANTS.findIndex((v) => !v.bare && !v.serverCheckout && !v.preconnect && !v.modulepreload && !v.sameOrigin) },
  // A checkout the shop's server made (checkout-id), the element on a page of another origin.
  { v: VARIANTS.findIndex((v) => v.serverCheckout && !v.preconnect && !v.preloadCheckout && !v.sameOrigin) },
  // The same rendered with the page on the shop's origin (renderCheckout): where the build has it.
  { v: VARIANTS.findIndex((v) => v.rendered) },
];

/** The build's own createKasirApi (compiled), for renderCheckout; none when the build has no renderCheckout. */
async function renderer(root: string, kasir: Kasir): Promise<Renderer | undefined> {
  const compiled = resolve(root, 'server/merchant/dist/merchant/index.js');
  if (!existsSync(compiled)) return undefined;
  const { createKasirApi } = await import(pathToFileURL(compiled).href);
  const api = shopRenderer(kasir, createKasirApi);
  if (typeof api.renderCheckout === 'function') return api;
  await api.close();
  return undefined;
}

/**
 * The shopper's first paint on the first-paint part's phone profile, `visits` cold visits of each page (alternating):
 * the method list of a page-priced checkout and of one the shop's server made, the list rendered with the page after
 * its first contentful paint, and the tap to QR.
 */
async function firstPaint(root: string, visits: number, into: Figures) {
  const shopPort = await sparePort();
  const shop = `http://127.0.0.1:${shopPort}`;
  const kasir = await startKasir({ KASIR_ALLOWED_ORIGINS: shop, KASIR_CHECKOUT_RATE_LIMIT: '100000' }, root);
  const rendering = await renderer(root, kasir);
  const server = await startShop(shopPort, kasir, rendering);
  const browser = await launch();
  const pages = PAGES.filter(({ v }) => rendering || !VARIANTS[v].rendered);
  try {
    for (const { v } of pages) await visit(browser, `${shop}/?v=${v}`, true); // warm-up, not counted
    for (let i = 0; i < visits; i++)
      for (const [n, { v }] of pages.entries()) {
        const { figures, finished } = await visit(browser, `${shop}/?v=${v}`, true);
        if (!finished) continue;
        if (n === 0) {
          into.list.push(figures.list!);
          into.qr.push(figures.qr! - figures.tap!);
        }
        if (n === 1) into.serverList.push(figures.list!);
        if (n === 2) into.renderedAfterFcp.push(figures.list! - figures.fcp!);
      }
  } finally {
    await browser.close();
    server.close();
    await rendering?.close();
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
  const building = Date.now();
  const previous = buildPrevious();
  const built = Math.round((Date.now() - building) / 1000);
  const builds = [
    { label: `previous (${sha(PREVIOUS)})`, root: previous.root },
    {
      label: `this (${sha('HEAD')}${execFileSync('git', ['status', '--porcelain'], { encoding: 'utf8' }) ? ', with changes' : ''})`,
      root: '.',
    },
  ].map((b) => ({
    ...b,
    figures: {
      list: [],
      serverList: [],
      renderedAfterFcp: [],
      qr: [],
      creates: [],
      reads: [],
      completions: [],
      deliveryP95: [],
    } as Figures,
  }));
  const started = Date.now();
  try {
    for (let round = 0; round < ROUNDS; round++) {
      // This round's share of the visits (VISITS in all over the rounds).
      const visits = Math.floor(((round + 1) * VISITS) / ROUNDS) - Math.floor((round * VISITS) / ROUNDS);
      for (const build of round % 2 ? [...builds].reverse() : builds) {
        if (ONLY !== 'service' && visits) await firstPaint(build.root, visits, build.figures);
        if (ONLY !== 'first-paint') await service(build.root, build.figures);
      }
    }
  } finally {
    previous.remove();
  }
  console.log(`  (measured in ${((Date.now() - started) / 60_000).toFixed(1)} min, the old build's ${built} s before)`);
  const [before, after] = builds;
  // A time, lower better; a rate, higher better; the list after the first paint (zero or below: painted with it) as
  // the difference, not a ratio.
  const rows: Array<[string, keyof Figures, string, boolean | 'difference']> = [
    [`method list, page-priced (${VISITS} cold visits)`, 'list', 'ms', false],
    ["method list, checkout the shop's server made", 'serverList', 'ms', false],
    ['server-rendered list after its FCP', 'renderedAfterFcp', 'ms', 'difference'],
    ['tap to QR (page-priced)', 'qr', 'ms', false],
    ['deposits created', 'creates', '/s', true],
    ['signed GET /v1/deposit/:id', 'reads', '/s', true],
    ['completions as fast as taken', 'completions', '/s', true],
    ['their delivery, p95', 'deliveryP95', 'ms', false],
  ];
  console.log(
    `  ${''.padEnd(46)} ${before.label.padStart(24)} ${after.label.padStart(32)}   ratio (above 1: this is better)`,
  );
  for (const [label, key, unit, higherIsBetter] of rows) {
    if (!before.figures[key].length && !after.figures[key].length) continue; // not measured (BENCH_PREVIOUS_ONLY)
    const [a, b] = [median(before.figures[key]), median(after.figures[key])];
    const spread = (xs: number[]) => `[${Math.round(Math.min(...xs))} to ${Math.round(Math.max(...xs))}]`;
    const figure = (x: number, xs: number[]) => (xs.length ? `${Math.round(x)} ${unit} ${spread(xs)}` : 'n/a');
    const ratio =
      higherIsBetter === 'difference'
        ? Number.isFinite(a)
          ? `${Math.round(b - a)} ms`
          : ''
        : (higherIsBetter ? b / a : a / b).toFixed(2);
    console.log(
      `  ${label.padEnd(46)} ${figure(a, before.figures[key]).padStart(24)} ${figure(b, after.figures[key]).padStart(32)}   ${ratio}`,
    );
  }
}
