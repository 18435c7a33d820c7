import fs from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";

/** Where the embedded database lives: `$DATA_DIR/pglite` (DATA_DIR defaults to `.data`). */
export function dataDir(): string {
  return path.resolve(/*turbopackIgnore: true*/ process.env.DATA_DIR || ".data");
}

export function lockPath(): string {
  return path.join(dataDir(), "pglite.lock");
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The pid holding the embedded database, or null when nobody does. */
export function lockHolder(): number | null {
  try {
    const pid = Number(fs.readFileSync(lockPath(), "utf8").trim());
    return Number.isInteger(pid) && pid > 0 && alive(pid) ? pid : null;
  } catch {
    return null;
  }
}

/**
 * Opens the embedded PGlite database, taking its lock: PGlite is one process's database,
 * and two processes on one directory corrupt it.
 */
export async function openEmbedded(): Promise<{ pglite: PGlite; release: () => Promise<void> }> {
  const dir = dataDir();
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const holder = lockHolder();
  if (holder !== null && holder !== process.pid) {
    throw new Error(`the embedded database in ${dir} is open in process ${holder}; stop it or go through its operator endpoint`);
  }
  fs.writeFileSync(lockPath(), String(process.pid), { mode: 0o600 });
  const pglite = await PGlite.create(path.join(dir, "pglite"));
  let released = false;
  const release = async () => {
    if (released) return;
    released = true;
    await pglite.close();
    try {
      if (fs.readFileSync(lockPath(), "utf8").trim() === String(process.pid)) fs.unlinkSync(lockPath());
    } catch {
      // the lock file is already gone
    }
  };
  return { pglite, release };
}
