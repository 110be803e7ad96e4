// `npm run bench`: every benchmark, in one run on this machine, so the ratios compare like with like.
export {};
// Each part lives in its own file and exports `run(): Promise<void>`; they run one after another. `--quick` (read by
// the parts from process.argv) leaves out the figures that take many minutes (growth: the 1,000,000-deposit size) and
// shortens the rest (2 s loads, 3 browser runs, fewer webhooks): `npm run bench -- --quick`.
const parts = [
  './previous',
  './provider',
  './growth',
  './webhooks',
  './accounts',
  './merchant',
  './metrics',
  './follower',
  './widget',
  './first-paint',
  './packages',
];

/**
 * How long a part may take before the run says it did not finish and goes on (its figures printed so far stay above;
 * the parts that wait on something themselves say what they measured when they stop waiting).
 */
const PART_LIMIT_MS = Number(process.env.BENCH_PART_LIMIT_S || (process.argv.includes('--quick') ? 900 : 3600)) * 1000;
const unfinished: string[] = [];

for (const part of parts) {
  let mod: { run?: () => Promise<void> };
  try {
    mod = await import(part);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND') continue;
    throw err;
  }
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<'limit'>((resolve) => {
    timer = setTimeout(() => resolve('limit'), PART_LIMIT_MS);
  });
  const began = Date.now();
  try {
    const outcome = await Promise.race([mod.run?.(), limit]);
    if (outcome === 'limit') {
      console.log(
        `\n${part.slice(2)}: NOT finished in ${PART_LIMIT_MS / 1000} s on this machine (figures above are what it measured); going on`,
      );
      unfinished.push(part.slice(2));
    }
  } catch (err) {
    console.log(
      `\n${part.slice(2)}: failed after ${((Date.now() - began) / 1000).toFixed(0)} s: ${(err as Error).stack ?? err}`,
    );
    unfinished.push(part.slice(2));
  } finally {
    clearTimeout(timer);
  }
}
if (unfinished.length) console.log(`\nnot finished: ${unfinished.join(', ')}`);
// A part stopped at its limit may still hold servers and timers: the run ends here.
process.exit(unfinished.length ? 1 : 0);
