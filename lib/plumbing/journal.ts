import fs from "node:fs";
import path from "node:path";
import { isLocked, ownTag, tagLockName } from "@/lib/plumbing/kernel-lock";

/**
 * Append-only journal files in DATA_DIR/journal, one writer per file. Appends are gathered in
 * memory and written with one synchronous write(2) per journal in the turn's check phase, or at
 * once by `Journals.flush()`; every transport awaits `Journals.written()` (or calls `flush()`)
 * before a response's bytes leave. So whatever a response reports as charged
 * is in the kernel's page cache before the client can see it: a process killed with SIGKILL loses
 * nothing. The files are fdatasync'ed in the background every `syncEveryMs` and when rotated, so
 * a power loss of the host loses at most that much.
 *
 * A file is named `<kind>-<owner tag>-<sequence>.jnl`; the owner tag is held as a kernel lock for
 * the owner's whole life (lib/plumbing/kernel-lock.ts), so the files of a dead process (killed,
 * crashed, or a previous life of this one) are told apart from those of a live sibling sharing
 * the directory, and only the former are recovered.
 */
export interface Journal {
  /** Appends whole lines (each ending in "\n"): written by the next `Journals.flush()` (or `flush()`). */
  append(lines: string): void;
  /** Writes what was appended, in one write(2). */
  flush(): void;
  /** Closes the current file and starts the next; returns the closed file's path. */
  rotate(): string;
  /** The file being written. */
  current(): string;
  close(): void;
}

/**
 * The journals of one root (lib/root.ts) and the ones with appended lines not yet written, so
 * that every transport flushes the same journals before any answer leaves.
 */
export interface Journals {
  /** Opens a new file of `kind` in DATA_DIR/journal for this process. */
  open(dataDir: string, kind: string, syncEveryMs?: number): Promise<Journal>;
  /**
   * Writes every journal's appended lines (one write(2) each). Call it before any response bytes
   * leave; it costs nothing when nothing is pending.
   */
  flush(): void;
  /**
   * Resolves once every line appended so far is written: the answers of one event-loop turn
   * share one write(2) per journal (a group commit) instead of one each; rejects when that write
   * fails. A transport that answers many requests at once awaits it before a response's bytes leave.
   */
  written(): Promise<void>;
}

export function createJournals(): Journals {
  const dirty = new Set<Journal>();
  let scheduled = false;
  /** Waiters of `written()`, settled by the turn's write. */
  let waiting: Array<{ resolve: () => void; reject: (error: unknown) => void }> = [];
  const flush = () => {
    if (dirty.size === 0) return;
    for (const journal of dirty) journal.flush();
    dirty.clear();
  };
  // Lines appended in a turn are written in its check phase, and whoever awaits them is told then.
  const writeTurn = () => {
    scheduled = false;
    const settled = waiting;
    waiting = [];
    try {
      flush();
    } catch (error) {
      for (const w of settled) w.reject(error);
      return;
    }
    for (const w of settled) w.resolve();
  };
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(writeTurn);
  };
  const appended = (journal: Journal) => {
    dirty.add(journal);
    schedule();
  };
  const written = () => {
    if (dirty.size === 0) return Promise.resolve();
    schedule();
    return new Promise<void>((resolve, reject) => waiting.push({ resolve, reject }));
  };
  return {
    open: (dataDir, kind, syncEveryMs = 1000) => openJournal(dataDir, kind, syncEveryMs, appended),
    flush,
    written,
  };
}

export function journalDir(dataDir: string): string {
  return path.join(dataDir, "journal");
}

async function openJournal(
  dataDir: string,
  kind: string,
  syncEveryMs: number,
  appended: (journal: Journal) => void,
): Promise<Journal> {
  const dir = journalDir(dataDir);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tag = await ownTag();
  let sequence = 0;
  let file = "";
  let fd = -1;
  let unsynced = false;
  let pending = "";
  const open = () => {
    file = path.join(dir, `${kind}-${tag}-${(sequence++).toString().padStart(6, "0")}.jnl`);
    fd = fs.openSync(file, "a", 0o600);
  };
  open();
  const timer = setInterval(() => {
    if (!unsynced || fd < 0) return;
    unsynced = false;
    fs.fdatasync(fd, () => undefined);
  }, syncEveryMs);
  timer.unref();
  const journal: Journal = {
    append(lines) {
      if (fd < 0) return; // closed at shutdown
      pending += lines;
      appended(journal);
    },
    flush() {
      if (pending === "" || fd < 0) return;
      const lines = pending;
      pending = "";
      fs.writeSync(fd, lines);
      unsynced = true;
    },
    rotate() {
      journal.flush();
      const closed = file;
      // Its lines are in the kernel already; the sync runs off the event loop, as the periodic one.
      const closing = fd;
      fs.fdatasync(closing, () => fs.close(closing, () => undefined));
      open();
      return closed;
    },
    current: () => file,
    close() {
      clearInterval(timer);
      journal.flush();
      if (fd >= 0) {
        fs.fdatasyncSync(fd);
        fs.closeSync(fd);
        fd = -1;
      }
    },
  };
  return journal;
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
