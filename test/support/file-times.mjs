// A node:test reporter that prints each test file's time, slowest first, when the run ends: the sum of its top-level
// tests' durations and the wall-clock time from its first to its last event. Use it beside another reporter:
//   node --test --test-reporter=spec --test-reporter-destination=stdout \
//     --test-reporter=./test/support/file-times.mjs --test-reporter-destination=stdout ...
import { relative } from 'node:path';

export default async function* fileTimes(source) {
  const files = new Map();
  for await (const event of source) {
    const file = event.data?.file;
    if (!file) continue;
    const now = Date.now();
    const entry = files.get(file) ?? { first: now, last: now, tests: 0, failed: 0, ms: 0 };
    entry.last = now;
    if ((event.type === 'test:pass' || event.type === 'test:fail') && event.data.nesting === 0) {
      entry.tests += 1;
      entry.ms += event.data.details?.duration_ms ?? 0;
      if (event.type === 'test:fail') entry.failed += 1;
    }
    files.set(file, entry);
  }
  const rows = [...files].sort(([, a], [, b]) => b.ms - a.ms);
  yield `\nfile times (top-level tests' sum; first to last event):\n`;
  for (const [file, e] of rows) {
    const sum = (e.ms / 1000).toFixed(1).padStart(7);
    const span = ((e.last - e.first) / 1000).toFixed(1).padStart(7);
    yield `${sum} s ${span} s  ${relative(process.cwd(), file)}${e.failed ? `  (${e.failed} failed)` : ''}\n`;
  }
}
