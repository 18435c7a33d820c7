import fs from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import type { Config } from "@/lib/config";
import { isLocked, tryLock } from "@/lib/plumbing/kernel-lock";

// Every function here takes the data directory from its caller (the root, a script): this module
// reads no configuration of its own.

/** The configuration's data directory, resolved: the embedded database lives in its `pglite` (DATA_DIR defaults to `.data`). */
export function dataDir(c: Pick<Config, "DATA_DIR">): string {
  return path.resolve(/*turbopackIgnore: true*/ c.DATA_DIR);
}

/** Informational only: the pid of the last process that opened the database in `dir`. */
export function lockPath(dir: string): string {
  return path.join(dir, "pglite.lock");
}

/** The lock's name: one per data directory, whatever path it was reached by. */
function lockName(dir: string): string {
  let real = dir;
  try {
    real = fs.realpathSync(dir);
  } catch {
    // not created yet: its resolved path is its identity
  }
  return `pglite:${real}`;
}

function recordedPid(dir: string): number {
  try {
    const pid = Number(fs.readFileSync(lockPath(dir), "utf8").trim());
    return Number.isInteger(pid) && pid > 0 ? pid : 0;
  } catch {
    return 0;
  }
}

/**
 * The pid holding the embedded database in `dir` (0 when it is held but the pid is unknown), or
 * null when nobody does. Whether it is held is the kernel's answer (lib/plumbing/kernel-lock.ts), never a
 * pid's liveness: a killed holder, reaped or not, holds nothing.
 */
export async function lockHolder(dir: string): Promise<number | null> {
  return (await isLocked(lockName(dir))) ? recordedPid(dir) : null;
}

export class EmbeddedLockedError extends Error {
  constructor(dir: string, pid: number) {
    super(
      `the embedded database in ${dir} is open in ${pid ? `process ${pid}` : "another process"}; stop it or go through its operator endpoint`,
    );
    this.name = "EmbeddedLockedError";
  }
}

/**
 * Opens the embedded PGlite database in the data directory `dir`, taking its lock: PGlite is one
 * process's database, and two processes on one directory corrupt it.
 */
export async function openEmbedded(dir: string): Promise<{ pglite: PGlite; release: () => Promise<void> }> {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const lock = await tryLock(lockName(dir));
  if (!lock) throw new EmbeddedLockedError(dir, recordedPid(dir));
  fs.writeFileSync(lockPath(dir), String(process.pid), { mode: 0o600 });
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
      if (fs.readFileSync(lockPath(dir), "utf8").trim() === String(process.pid)) fs.unlinkSync(lockPath(dir));
    } catch {
      // the pid file is already gone
    }
    await lock.release();
  };
  return { pglite, release };
}
