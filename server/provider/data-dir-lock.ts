// One sandbox per data directory (DESIGN.md section 11): a second one would rewrite sandbox.json under the first's
// feet. The lock is a file holding the owner's pid, created exclusively; a lock whose process is gone (killed, crashed)
// is taken over.
import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const LOCK_FILE = 'sandbox.lock';

/** The data dirs this process holds (two sandboxes in one process share its pid). */
const held = new Set<string>();

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // it exists, under another user
  }
}

/**
 * Takes the data dir's lock, or throws an Error (code KASIR_DATA_DIR_IN_USE) naming the process that holds it.
 * Returns the function that releases it.
 */
export function lockDataDir(dataDir: string): () => void {
  const file = join(dataDir, LOCK_FILE);
  const inUse = (pid: number) => Object.assign(new Error(
    `The data dir ${dataDir} is in use by another sandbox (pid ${pid}); stop it, or give this one another KASIR_DATA_DIR`,
  ), { code: 'KASIR_DATA_DIR_IN_USE' });
  for (let tries = 0; ; tries++) {
    try {
      writeFileSync(file, `${process.pid}\n`, { flag: 'wx' });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || tries > 0) {
        if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw inUse(Number(readFileSync(file, 'utf8').trim()) || 0);
        throw err;
      }
      let pid = 0;
      try {
        pid = Number(readFileSync(file, 'utf8').trim());
      } catch { /* removed meanwhile: try again */ }
      if (pid && (pid === process.pid ? held.has(dataDir) : alive(pid))) throw inUse(pid);
      // Stale: its process is gone. Removed and created again (exclusively: of two takers, one wins).
      try { unlinkSync(file); } catch { /* another taker removed it */ }
    }
  }
  held.add(dataDir);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    held.delete(dataDir);
    try {
      if (Number(readFileSync(file, 'utf8').trim()) === process.pid) unlinkSync(file);
    } catch { /* already gone */ }
  };
}
