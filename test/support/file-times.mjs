// A node:test reporter that prints, when the run ends, each test file's time (its process, from start to end:
// loading it and its tests), slowest first, with its top-level tests and failures. A file imported into a folder's
// process (test/support/provider-files.ts) has the sum of its top-level tests' times instead, marked "shared". Used
// beside the spec reporter:
//   node --test --test-reporter=spec --test-reporter-destination=stdout \
//     --test-reporter=./test/support/file-times.mjs --test-reporter-destination=stdout ...
import { relative } from 'node:path';

export default async function* fileTimes(source) {
  const files = new Map();
  const entry = (file) => files.get(file) ?? files.set(file, { ms: 0, testsMs: 0, tests: 0, failed: 0 }).get(file);
  for await (const { type, data } of source) {
    if (!data?.file) continue;
    // The file itself completes as a test named by its path (each file runs in a process of its own).
    if (type === 'test:complete' && data.name === data.file) entry(data.file).ms = data.details?.duration_ms ?? 0;
    else if ((type === 'test:pass' || type === 'test:fail') && data.nesting === 0) {
      const e = entry(data.file);
      e.tests += 1;
      e.testsMs += data.details?.duration_ms ?? 0;
      if (type === 'test:fail') e.failed += 1;
    }
  }
  const time = (e) => e.ms || e.testsMs;
  const rows = [...files].sort(([, a], [, b]) => time(b) - time(a));
  const total = rows.reduce((sum, [, e]) => sum + e.ms, 0);
  yield `\nTest files by time (${(total / 1000).toFixed(0)} s in all):\n`;
  for (const [file, e] of rows)
    yield `${(time(e) / 1000).toFixed(1).padStart(7)} s  ${relative(process.cwd(), file)}  ${e.ms ? '' : 'shared, '}${e.tests} top-level${e.failed ? `, ${e.failed} FAILED` : ''}\n`;
}
