import fs from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { config } from "@/lib/config";
import { isLocked, tryLock } from "@/lib/plumbing/kernel-lock";

/** Where the embedded database lives: `$DATA_DIR/pglite` (DATA_DIR defaults to `.data`). */
export function dataDir(): string {
  return path.resolve(/*turbopackIgnore: true*/ config().DATA_DIR);
}

/** Informational only: the pid of the last process that opened the database. */
export function lockPath(): string {
  return path.join(dataDir(), "pglite.lock");
}

/** The lock's name: one per data directory, whatever path it was reached by. */
function lockName(): string {
  let dir = dataDir();
  try {
    dir = fs.realpathSync(dir);
  } catch {
    // not created yet: its resolved path is its identity
  }
  return `pglite:${dir}`;
}

function recordedPid(): number {
  try {
    const pid = Number(fs.readFileSync(lockPath(), "utf8").trim());
    return Number.isInteger(pid) && pid > 0 ? pid : 0;
  } catch {
    return 0;
  }
}

/**
 * The pid holding the embedded database (0 when it is held but the pid is unknown), or null when
 * nobody does. Whether it is held is the kernel's answer (lib/plumbing/kernel-lock.ts), never a
 * pid's liveness: a killed holder, reaped or not, holds nothing.
 */
export async function lockHolder(): Promise<number | null> {
  return (await isLocked(lockName())) ? recordedPid() : null;
}

export class EmbeddedLockedError extends Error {
  constructor(dir: string, pid: number) {
    super(`the embedded database in ${dir} is open in ${pid ? `process ${pid}` : "another process"}; stop it or go through its operator endpoint`);
    this.name = "EmbeddedLockedError";
  }
}

/**
 * Opens the embedded PGlite database, taking its lock: PGlite is one process's database,
 * and two processes on one directory corrupt it.
 */
export async function openEmbedded(): Promise<{ pglite: PGlite; release: () => Promise<void> }> {
  const dir = dataDir();
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const lock = await tryLock(lockName());
  if (!lock) throw new EmbeddedLockedError(dir, recordedPid());
  fs.writeFileSync(lockPath(), String(process.pid), { mode: 0o600 });
  let pglite: PGlite;
  try {
    pglite = await PGlite.create(path.join(dir, "pglite"));
  } catch (error) {
    await lock.release();
    throw error;
  }
  let released = false;
  const release = async () => {
    if (released) return;
    released = true;
    await pglite.close();
    try {
      if (fs.readFileSync(lockPath(), "utf8").trim() === String(process.pid)) fs.unlinkSync(lockPath());
    } catch {
      // the pid file is already gone
    }
    await lock.release();
  };
  return { pglite, release };
}
