// `npm run bench`: every benchmark, in one run on this machine, so the ratios compare like with like.
export {};
// Each part lives in its own file and exports `run(): Promise<void>`; they run one after another. `--quick` (read by
// the parts from process.argv) leaves out the figures that take many minutes (growth: the 1,000,000-deposit size).
const parts = ['./provider', './growth', './webhooks', './accounts', './merchant', './widget', './first-paint', './packages'];

for (const part of parts) {
  let mod: { run?: () => Promise<void> };
  try {
    mod = await import(part);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND') continue;
    throw err;
  }
  await mod.run?.();
}
