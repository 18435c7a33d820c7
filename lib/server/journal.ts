import fs from "node:fs";
import path from "node:path";
import { isLocked, ownTag, tagLockName } from "@/lib/server/kernel-lock";

/**
 * Append-only journal files in DATA_DIR/journal, one writer per file. Each append is one
 * synchronous write(2) before the caller answers, so it is in the kernel's page cache when the
 * response leaves: a process killed with SIGKILL loses nothing. The files are fdatasync'ed in the
 * background every `syncEveryMs`, so a power loss of the host loses at most that much.
 *
 * A file is named `<kind>-<owner tag>-<sequence>.jnl`; the owner tag is held as a kernel lock for
 * the owner's whole life (lib/server/kernel-lock.ts), so the files of a dead process (killed,
 * crashed, or a previous life of this one) are told apart from those of a live sibling sharing
 * the directory, and only the former are recovered.
 */
export interface Journal {
  /** Appends whole lines (each ending in "\n") in one write. */
  append(lines: string): void;
  /** Closes the current file and starts the next; returns the closed file's path. */
  rotate(): string;
  /** The file being written. */
  current(): string;
  close(): void;
}

export function journalDir(dataDir: string): string {
  return path.join(dataDir, "journal");
}

export async function openJournal(dataDir: string, kind: string, syncEveryMs = 1000): Promise<Journal> {
  const dir = journalDir(dataDir);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tag = await ownTag();
  let sequence = 0;
  let file = "";
  let fd = -1;
  let dirty = false;
  const open = () => {
    file = path.join(dir, `${kind}-${tag}-${(sequence++).toString().padStart(6, "0")}.jnl`);
    fd = fs.openSync(file, "a", 0o600);
  };
  open();
  const timer = setInterval(() => {
    if (!dirty || fd < 0) return;
    dirty = false;
    fs.fdatasync(fd, () => undefined);
  }, syncEveryMs);
  timer.unref();
  return {
    append(lines) {
      if (fd < 0) return; // closed at shutdown
      fs.writeSync(fd, lines);
      dirty = true;
    },
    rotate() {
      const closed = file;
      fs.fdatasyncSync(fd);
      fs.closeSync(fd);
      open();
      return closed;
    },
    current: () => file,
    close() {
      clearInterval(timer);
      if (fd >= 0) {
        fs.fdatasyncSync(fd);
        fs.closeSync(fd);
        fd = -1;
      }
    },
  };
}

/** The `kind` files left by processes that are no longer alive, oldest first. */
export async function orphanFiles(dataDir: string, kind: string): Promise<string[]> {
  const dir = journalDir(dataDir);
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const own = await ownTag();
  const pattern = new RegExp(`^${kind}-([A-Za-z0-9]+)-(\\d+)\\.jnl$`);
  const byTag = new Map<string, boolean>();
  const out: Array<{ file: string; mtime: number; seq: number }> = [];
  for (const name of names) {
    const m = pattern.exec(name);
    if (!m || m[1] === own) continue;
    const tag = m[1]!;
    if (!byTag.has(tag)) byTag.set(tag, await isLocked(tagLockName(tag)));
    if (byTag.get(tag)) continue;
    const file = path.join(dir, name);
    try {
      out.push({ file, mtime: fs.statSync(file).mtimeMs, seq: Number(m[2]) });
    } catch {
      // removed meanwhile
    }
  }
  return out.sort((a, b) => a.mtime - b.mtime || a.seq - b.seq).map((o) => o.file);
}

/** A file's complete lines (a torn last line, cut by a crash mid-write, is skipped). */
export function readLines(file: string): string[] {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    return [];
  }
  const lines = text.split("\n");
  lines.pop(); // "" after the last newline, or a torn line
  return lines.filter((l) => l.length > 0);
}
