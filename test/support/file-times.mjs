// A node:test reporter that prints, when the run ends, each test file's time (its process, from start to end:
// loading it and its tests), slowest first, with its top-level tests and failures; under a file of many top-level
// tests (test/support/provider-files.ts: a folder's files in one process), its slowest ones. Used beside spec:
//   node --test --test-reporter=spec --test-reporter-destination=stdout \
//     --test-reporter=./test/support/file-times.mjs --test-reporter-destination=stdout ...
import { relative } from 'node:path';

export default async function* fileTimes(source) {
  const files = new Map();
  const entry = (file) => files.get(file) ?? files.set(file, { ms: 0, tests: 0, failed: 0, slowest: [] }).get(file);
  for await (const { type, data } of source) {
    if (!data?.file) continue;
    // The file itself completes as a test named by its path (each file runs in a process of its own).
    if (type === 'test:complete' && data.name === data.file) entry(data.file).ms = data.details?.duration_ms ?? 0;
    else if ((type === 'test:pass' || type === 'test:fail') && data.nesting === 0) {
      const e = entry(data.file);
      e.tests += 1;
      if (type === 'test:fail') e.failed += 1;
      e.slowest.push({ name: data.name, ms: data.details?.duration_ms ?? 0 });
    }
  }
  const rows = [...files].sort(([, a], [, b]) => b.ms - a.ms);
  const total = rows.reduce((sum, [, e]) => sum + e.ms, 0);
  yield `\nTest files by time (${(total / 1000).toFixed(0)} s in all):\n`;
  for (const [file, e] of rows) {
    yield `${(e.ms / 1000).toFixed(1).padStart(7)} s  ${relative(process.cwd(), file)}  ${e.tests} top-level${e.failed ? `, ${e.failed} FAILED` : ''}\n`;
    if (e.tests > 10)
      for (const test of e.slowest.sort((a, b) => b.ms - a.ms).slice(0, 10))
        yield `${(test.ms / 1000).toFixed(1).padStart(15)} s  ${test.name}\n`;
  }
}
