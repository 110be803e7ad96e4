// One sandbox per data directory (server/provider/README.md, "The data dir"): a second one would rewrite sandbox.json under the
// first's feet. The lock is one the operating system releases with the process, whatever way it ends (kill -9, a crash,
// a container stopped): an open SQLite database (better-sqlite3, already the sandbox's driver) holding a write
// transaction that writes nothing and is never committed. SQLite takes it with a POSIX advisory lock (LockFileEx on Windows), which the
// kernel drops when the process goes, and which SQLite also keeps between two connections of one process. A pid in a
// file is not such a lock: after kill -9 the pid may belong to another process by the next start (routine in
// containers, where every start counts pids from 1), and a check of it then refuses a data dir nobody uses.
import Database from 'better-sqlite3';
import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The database whose write lock is the data dir's lock. Never deleted: a new file would be another lock. */
const LOCK_DATABASE = 'sandbox-lock.sqlite';
/** The holder's pid, for people and for the refusal's message only: never read to decide anything. */
const PID_FILE = 'sandbox.lock';

const inUse = (dataDir: string, pid: number | undefined) =>
  Object.assign(
    new Error(
      `The data dir ${dataDir} is in use by another sandbox (pid ${pid ?? 'unknown'}); stop it, or give this one another KASIR_DATA_DIR`,
    ),
    { code: 'KASIR_DATA_DIR_IN_USE' },
  );

const isBusy = (err: unknown) => /^SQLITE_(BUSY|LOCKED)/.test((err as { code?: string }).code ?? '');

/**
 * Takes the data dir's lock, or throws an Error (code KASIR_DATA_DIR_IN_USE) naming the process that holds it.
 * Returns the function that releases it.
 */
export function lockDataDir(dataDir: string): () => void {
  const pidFile = join(dataDir, PID_FILE);
  // timeout 0: a lock held by another sandbox is refused at once, not waited for.
  const db = new Database(join(dataDir, LOCK_DATABASE), { timeout: 0 });
  try {
    // The write lock (RESERVED) is taken here and kept until the connection closes; nothing is ever written.
    db.exec('BEGIN IMMEDIATE');
  } catch (err) {
    db.close();
    if (!isBusy(err)) throw err;
    let pid: number | undefined;
    try {
      pid = Number(readFileSync(pidFile, 'utf8').trim()) || undefined;
    } catch {
      /* the holder has not written it yet */
    }
    throw inUse(dataDir, pid);
  }
  writeFileSync(pidFile, `${process.pid}\n`);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    try {
      if (Number(readFileSync(pidFile, 'utf8').trim()) === process.pid) unlinkSync(pidFile);
    } catch {
      /* already gone */
    }
    db.close(); // ends the transaction and lets go of the lock
  };
}
