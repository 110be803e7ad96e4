// The data dir's lock is one the operating system releases with the process (server/provider/db/data-dir-lock.ts): a
// pid left in sandbox.lock that now belongs to another, live process does not block a start (routine in containers
// after kill -9), a sandbox killed with SIGKILL leaves nothing that blocks the next one, and a data dir in use is still
// refused, by another process or by a second sandbox in this one.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { lockDataDir } from '../../server/provider/db/data-dir-lock';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A process that takes the data dir's lock, says so on stdout, and holds it until killed. */
function holder(dataDir: string) {
  const code = `import { lockDataDir } from './server/provider/db/data-dir-lock.ts'; lockDataDir(${JSON.stringify(dataDir)}); process.stdout.write('locked\\n'); setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const locked = new Promise<void>((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (d: string) => d.includes('locked') && resolve());
    child.once('exit', (exitCode) => reject(new Error(`the holder exited (${exitCode}): ${stderr}`)));
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { child, locked, exited };
}

describe('the data dir lock', () => {
  it('a sandbox.lock naming a live process that is no sandbox does not block (its pid was reused)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kasir-lock-'));
    try {
      // This test's parent (the test runner) is alive and holds no lock: a pid reused by an unrelated process.
      writeFileSync(join(dir, 'sandbox.lock'), `${process.ppid}\n`);
      const unlock = lockDataDir(dir);
      assert.equal(
        readFileSync(join(dir, 'sandbox.lock'), 'utf8').trim(),
        String(process.pid),
        'the pid file names the holder',
      );
      unlock();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a data dir held by another process is refused naming it; once that process is killed with SIGKILL it is free', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kasir-lock-'));
    const held = holder(dir);
    try {
      await held.locked;
      assert.throws(
        () => lockDataDir(dir),
        (err: Error & { code?: string }) => {
          assert.equal(err.code, 'KASIR_DATA_DIR_IN_USE');
          assert.match(
            err.message,
            new RegExp(
              `^The data dir .* is in use by another sandbox \\(pid ${held.child.pid}\\); stop it, or give this one another KASIR_DATA_DIR$`,
            ),
          );
          return true;
        },
      );
      held.child.kill('SIGKILL');
      await held.exited;
      // Nothing was cleaned up (no exit handler ran): the operating system let go of the lock with the process.
      assert.equal(readFileSync(join(dir, 'sandbox.lock'), 'utf8').trim(), String(held.child.pid));
      const unlock = lockDataDir(dir);
      unlock();
    } finally {
      held.child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a second lock in the same process is refused; released, the data dir can be taken again', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kasir-lock-'));
    try {
      const unlock = lockDataDir(dir);
      assert.throws(() => lockDataDir(dir), /is in use by another sandbox \(pid \d+\)/);
      unlock();
      unlock(); // twice is harmless
      lockDataDir(dir)();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
