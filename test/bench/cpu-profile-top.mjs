// The top of a .cpuprofile: self time per function (and per file), as a share of the samples.
// node test/bench/cpu-profile-top.mjs <file.cpuprofile> [rows]
import { readFileSync } from 'node:fs';

const profile = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const rows = Number(process.argv[3] || 40);
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map();
const dt = profile.timeDeltas;
for (let i = 0; i < profile.samples.length; i++)
  self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + (dt[i] ?? 0));
const total = [...self.values()].reduce((a, b) => a + b, 0);
const fn = new Map();
const file = new Map();
for (const [id, us] of self) {
  const { callFrame: c } = byId.get(id);
  const where = c.url
    .replace(/^.*node_modules\//, '')
    .replace(/^.*\/dist\/provider\//, 'provider/')
    .replace(/^file:\/\//, '');
  const key = `${c.functionName || '(anonymous)'} ${where}:${c.lineNumber + 1}`;
  fn.set(key, (fn.get(key) ?? 0) + us);
  const f =
    where
      .split('/')
      .slice(0, where.startsWith('provider/') ? 3 : 1)
      .join('/') || c.functionName;
  file.set(f, (file.get(f) ?? 0) + us);
}
const show = (m, n) =>
  [...m]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, us]) => `${((100 * us) / total).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(6)} ms  ${k}`)
    .join('\n');
console.log(
  `total sampled ${(total / 1e6).toFixed(1)} s\n-- by file/package --\n${show(file, 25)}\n-- by function --\n${show(fn, rows)}`,
);
