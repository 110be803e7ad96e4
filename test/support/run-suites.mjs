#!/usr/bin/env node
// `npm test`: the checks and the suites, in stages. A stage's lanes run side by side, each lane's steps one after
// another; a stage starts when the one before it passed. Each step is an `npm run <script>` with its output kept in a
// log of its own, printed whole when the step ends (so the lanes' output does not interleave), and the run ends with
// a line per step: its lane, its time and whether it passed. It fails if any step failed; a failed step ends its own
// lane, the other lanes finish. Arguments name scripts to run instead of all (in their stages and lanes), e.g.
// `node test/support/run-suites.mjs test:server test:widget`; KASIR_TEST_SERIAL=1 runs every step one after another.
// Why the lanes may share the machine: docs/testing-kasir.md, "What each suite costs".
import { spawn } from 'node:child_process';
import { mkdtempSync, openSync, closeSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const wanted = process.argv.slice(2);
/** Whether this run builds: then the pack packs what the build made. */
const building = !wanted.length || wanted.includes('build');
/** The steps that are not plain npm scripts: the command each runs. */
const COMMANDS = {
  // From clean dist/ folders of the three packages, as each package's prepack builds it, so the pack after it can
  // pack them as built.
  build: ['sh', '-c', 'rm -rf widget/dist server/merchant/dist server/provider/dist && npm run build'],
  // The package tests' tarballs, packed once before any suite reads the packages' dist/: test/support/packed.ts. After
  // this run's build, as built; without it, each package's prepack builds it again from a clean dist/.
  pack: [process.execPath, '--import', 'tsx', 'test/support/packed.ts', ...(building ? ['--as-built'] : [])],
};

/** Stages of lanes of steps. */
const STAGES = [
  // The checks beside the build: the type check and knip read the sources (tsconfig.json maps @kasir/* to them).
  [
    ['format:check', 'typecheck'],
    ['build', 'pack'],
  ],
  // Three lanes. No two suites share a port (each server listens on one the kernel picks), a database
  // (with-postgres.sh and with-redis.sh start a server of their own per suite; each test provider makes a database of
  // its own, each Redis test a key prefix of its own) or a directory (data dirs are fresh temp dirs).
  // The lanes end about together: the server suites (their files sharing a process per folder) take about half the
  // time of the browser suites, which run in two lanes.
  [
    // Node and SQLite, then the widget suites in each browser.
    ['test:server', 'test:widget'],
    // The provider suite on PostgreSQL, then the package tests from the tarballs packed above.
    ['test:server:pg', 'test:packages'],
    // The end-to-end tests in the browsers.
    ['test:e2e'],
  ],
  // Alone: the compiled copies on PostgreSQL and Redis, killed mid-load, whose tests time what the survivors do (two
  // of them failed beside the widget suites on a loaded machine).
  [['test:multi']],
];

const known = STAGES.flat(2);
const unknown = wanted.filter((script) => !known.includes(script));
if (unknown.length) {
  console.error(`[tests] not a step of npm test: ${unknown.join(', ')} (the steps: ${known.join(', ')})`);
  process.exit(2);
}
// KASIR_TEST_SERIAL=1: each stage's lanes one after another, in one lane (a machine busy with other work).
const serial = process.env.KASIR_TEST_SERIAL === '1';
// Each lane keeps its number when arguments leave some of its steps out.
const stages = (serial ? STAGES.map((lanes) => [lanes.flat()]) : STAGES)
  .map((lanes, stage) => ({
    stage,
    lanes: lanes
      .map((lane, index) => ({ number: index + 1, steps: lane.filter((s) => !wanted.length || wanted.includes(s)) }))
      .filter((lane) => lane.steps.length),
  }))
  .filter(({ lanes }) => lanes.length);
// KASIR_TEST_BEFORE_SUITES: a shell command run once the checks and the build passed, before the suites (which need
// the system packages: .ci/run installs them meanwhile and waits for that here); the run fails when it fails.
let beforeSuites = process.env.KASIR_TEST_BEFORE_SUITES;

const logs = mkdtempSync(join(tmpdir(), 'kasir-tests-'));
// Where `pack` puts the tarballs and the package tests find them; removed with the logs. KASIR_TEST_BUILT: the suites
// start the kasir-sandbox and kasir-merchant commands from this run's build (test/support/commands.ts).
const env = {
  ...process.env,
  KASIR_TEST_PACKED_DIR: join(logs, 'packed'),
  ...(building ? { KASIR_TEST_BUILT: '1' } : {}),
};
const running = new Set();
const results = [];
const seconds = (since) => Math.round((Date.now() - since) / 1000);
const began = Date.now();

/** Runs a step (`npm run <script>`) in a process group of its own, its output into a log; resolves with its exit code. */
function runStep(script, lane) {
  const log = join(logs, `${script.replace(/:/g, '-')}.log`);
  const out = openSync(log, 'w');
  const started = Date.now();
  console.log(`[tests] ${script} started (lane ${lane})`);
  const [command, ...args] = COMMANDS[script] ?? ['npm', 'run', script];
  const child = spawn(command, args, { env, stdio: ['ignore', out, out], detached: true });
  running.add(child);
  return new Promise((resolve) => {
    child.once('close', (code, signal) => {
      running.delete(child);
      closeSync(out);
      const result = { script, lane, seconds: seconds(started), code: code ?? signal };
      results.push(result);
      const verdict = result.code === 0 ? 'passed' : `FAILED (exit ${result.code})`;
      console.log(`\n[tests] ----- ${script}: ${verdict} in ${result.seconds} s; its output:`);
      process.stdout.write(readFileSync(log, 'utf8'));
      console.log(`[tests] ----- end of ${script}: ${verdict} in ${result.seconds} s\n`);
      resolve(result.code);
    });
  });
}

let stopping = false;
async function runLane({ number, steps }) {
  for (const script of steps) if (stopping || (await runStep(script, number)) !== 0) return false;
  return true;
}

// Ctrl-C or a CI's cancel: each step's whole group is told to stop (with-redis.sh and with-postgres.sh clean up).
for (const signal of ['SIGINT', 'SIGTERM'])
  process.on(signal, () => {
    stopping = true;
    for (const child of running) {
      try {
        process.kill(-child.pid, signal);
      } catch {
        // already gone
      }
    }
    setTimeout(() => process.exit(130), 5000).unref();
  });

/** Runs KASIR_TEST_BEFORE_SUITES; resolves with whether it passed. */
function runBeforeSuites() {
  const started = Date.now();
  console.log('[tests] before the suites: KASIR_TEST_BEFORE_SUITES');
  const child = spawn(beforeSuites, { env, stdio: 'inherit', shell: true });
  return new Promise((resolve) =>
    child.once('close', (code) => {
      console.log(
        `[tests] before the suites: KASIR_TEST_BEFORE_SUITES ${code === 0 ? 'passed' : `FAILED (exit ${code})`} in ${seconds(started)} s`,
      );
      resolve(code === 0);
    }),
  );
}

let passed = true;
for (const { stage, lanes } of stages) {
  if (beforeSuites && stage > 0 && !stopping) {
    const ready = await runBeforeSuites();
    beforeSuites = undefined;
    if (!ready) {
      passed = false;
      break;
    }
  }
  const lanesPassed = await Promise.all(lanes.map(runLane));
  if (!lanesPassed.every(Boolean)) {
    passed = false;
    break;
  }
}
rmSync(logs, { recursive: true, force: true });

console.log(`[tests] npm test, by step (${seconds(began)} s in all):`);
for (const r of results)
  console.log(
    `[tests]   ${r.script.padEnd(15)} lane ${r.lane}  ${String(r.seconds).padStart(5)} s  ${r.code === 0 ? 'passed' : `FAILED (exit ${r.code})`}`,
  );
const skipped = stages
  .flatMap(({ lanes }) => lanes.flatMap((lane) => lane.steps))
  .filter((script) => !results.some((r) => r.script === script));
if (skipped.length) console.log(`[tests]   not run (a step before failed): ${skipped.join(', ')}`);
process.exit(passed ? 0 : 1);
