import fs from "node:fs";
import { orphanFiles, readLines, type Journal, type Journals } from "@/lib/plumbing/journal";
import { checkWindows, withKeyMethods } from "./sliding-log";
import type { LogOutcome, LogWindow, RateLimitStore, WindowCount } from "./types";

/**
 * One key's log: admission times in ascending order from `head` on, kept only as long as the
 * longest window. Entries before `head` have aged out; they are cut off in one go once they are
 * half the array, so ageing out costs O(1) per admission, not a shift of the whole log (a key
 * allowed a million requests a day holds that many times).
 */
interface Log {
  times: number[];
  head: number;
  spanMs: number;
  /** When the log last moved to the recently-used end of the map. */
  movedAt: number;
}

/** The LRU order is kept to within this much: a busy log moves at most once per interval, not per admission. */
const LRU_GRAIN_MS = 1000;

/** Aged-out entries kept before they are cut off (and then only while they are under half the log). */
const DEAD_PREFIX = 1024;

export interface MemoryStoreOptions {
  /** Hard cap on tracked keys; beyond it the least recently used logs are dropped. */
  maxKeys?: number;
  /** How often (ms of store time) idle logs are swept out. */
  sweepEveryMs?: number;
  /**
   * Called synchronously for every admission recorded, before the caller hears of it (the
   * journal that lets the windows survive a restart, below).
   */
  onRecord?: (key: string, atMs: number, spanMs: number) => void;
}

/** A memory store also reports how many logs it holds (for tests and metrics). */
export interface MemoryStore extends RateLimitStore {
  size(): number;
  /** Adds recorded admissions back (replaying a journal); entries outside `spanMs` of `nowMs` are dropped. */
  load(key: string, times: readonly number[], spanMs: number, nowMs: number): void;
  /** Every log still alive at `nowMs`, for compacting a journal. */
  entries(nowMs: number): Array<{ key: string; times: readonly number[]; spanMs: number }>;
}

/** Index of the first element > x in an ascending array, searching from `lo`. */
function upperBound(times: readonly number[], x: number, lo = 0): number {
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((times[mid] ?? 0) <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Counts of one window over a log; an entry counts while nowMs - t < ms. `first` is the window's
 * first counted entry, upperBound(times, nowMs - ms, head): recording nowMs after finding it
 * leaves it in place (nowMs goes after it).
 */
function countWindow(log: Log, window: LogWindow, nowMs: number, first: number): WindowCount {
  const times = log.times;
  const count = times.length - first;
  const oldest = times[first + Math.max(0, count - window.limit)];
  return { count, resetMs: oldest === undefined ? nowMs + window.ms : oldest + window.ms };
}

/**
 * In-process sliding logs for a single instance. Every operation runs synchronously inside one
 * microtask, so concurrent calls are serialized by the event loop and the check-and-record is atomic.
 * Memory is bounded: a log never holds more than the largest limit (refusals are not recorded),
 * entries older than the longest window are pruned on access, idle logs are swept periodically,
 * and at most `maxKeys` logs are kept.
 */
export function createMemoryStore(options: MemoryStoreOptions = {}): MemoryStore {
  const maxKeys = options.maxKeys ?? 100_000;
  const sweepEveryMs = options.sweepEveryMs ?? 60_000;
  const logs = new Map<string, Log>();
  let lastSweepMs = -Infinity;

  // Drops logs whose newest entry has aged out of their longest window.
  function sweep(nowMs: number): void {
    lastSweepMs = nowMs;
    for (const [key, log] of logs) {
      const newest = log.times[log.times.length - 1];
      if (newest === undefined || log.head >= log.times.length || nowMs - newest >= log.spanMs) logs.delete(key);
    }
  }

  function prune(log: Log, nowMs: number): void {
    log.head = upperBound(log.times, nowMs - log.spanMs, log.head);
    if (log.head === log.times.length) {
      log.times = [];
      log.head = 0;
    } else if (log.head > DEAD_PREFIX && log.head * 2 >= log.times.length) {
      log.times = log.times.slice(log.head);
      log.head = 0;
    }
  }

  function run(key: string, windows: readonly LogWindow[], nowMs: number, record: boolean): LogOutcome {
    checkWindows(windows);
    if (nowMs - lastSweepMs >= sweepEveryMs || logs.size > maxKeys) sweep(nowMs);
    let spanMs = -Infinity;
    for (const w of windows) if (w.ms > spanMs) spanMs = w.ms;
    const existing = logs.get(key);
    const log = existing ?? { times: [], head: 0, spanMs, movedAt: -Infinity };
    log.spanMs = Math.max(log.spanMs, spanMs);
    prune(log, nowMs);
    let allowed = true;
    const firsts: number[] = [];
    for (const w of windows) {
      const first = upperBound(log.times, nowMs - w.ms, log.head);
      firsts.push(first);
      if (log.times.length - first >= w.limit) allowed = false;
    }
    if (allowed && record) {
      const last = log.times[log.times.length - 1];
      if (last === undefined || last <= nowMs) log.times.push(nowMs);
      else log.times.splice(upperBound(log.times, nowMs, log.head), 0, nowMs);
      options.onRecord?.(key, nowMs, log.spanMs);
      if (!existing || Math.abs(nowMs - log.movedAt) >= LRU_GRAIN_MS) {
        // Re-insert so Map order is least-recently-used first.
        log.movedAt = nowMs;
        logs.delete(key);
        logs.set(key, log);
        while (logs.size > maxKeys) {
          const lru = logs.keys().next();
          if (lru.done) break;
          logs.delete(lru.value);
        }
      }
    }
    return { nowMs, allowed, windows: windows.map((w, i) => countWindow(log, w, nowMs, firsts[i]!)) };
  }

  const store = withKeyMethods({
    async hit(key, windows, nowMs) {
      return run(key, windows, nowMs, true);
    },
    async look(key, windows, nowMs) {
      return run(key, windows, nowMs, false);
    },
    async close() {
      logs.clear();
    },
  });
  return {
    ...store,
    size: () => logs.size,
    load(key, times, spanMs, nowMs) {
      const log = logs.get(key) ?? { times: [], head: 0, spanMs, movedAt: -Infinity };
      log.spanMs = Math.max(log.spanMs, spanMs);
      for (const t of times)
        if (Number.isFinite(t) && nowMs - t < log.spanMs) log.times.splice(upperBound(log.times, t, log.head), 0, t);
      if (log.times.length > log.head) logs.set(key, log);
    },
    entries(nowMs) {
      const out: Array<{ key: string; times: readonly number[]; spanMs: number }> = [];
      for (const [key, log] of logs) {
        prune(log, nowMs);
        if (log.times.length > log.head)
          out.push({ key, times: log.head === 0 ? log.times : log.times.slice(log.head), spanMs: log.spanMs });
      }
      return out;
    },
  };
}

// The journal of the memory store.

/**
 * The memory store's windows on disk, so they survive a restart (SIGTERM or SIGKILL) of the one
 * instance that holds them. Every admission the store records is appended (one write before the
 * response, lib/plumbing/journal.ts); on start the journals of dead processes (this instance's previous life) are replayed
 * into the store, written out compacted into this process's journal, and deleted. The journal is
 * compacted the same way while running, once it has grown well past its live content.
 *
 * A crash between writing a compacted file and deleting the files it replaced replays both: the
 * windows then count some admissions twice (refusing early), never fewer.
 *
 * Line format: `<spanMs> <key, URI-encoded> <t1>[,<t2>...]` (unix ms of admissions).
 */
export function formatLine(key: string, spanMs: number, times: readonly number[]): string {
  return `${linePrefix(key, spanMs)}${times.join(",")}\n`;
}

/** A line up to its times: `<spanMs> <key, URI-encoded> `. */
function linePrefix(key: string, spanMs: number): string {
  return `${spanMs} ${encodeURIComponent(key)} `;
}

export function parseLine(line: string): { key: string; spanMs: number; times: number[] } | null {
  const [span, key, times] = line.split(" ");
  if (span === undefined || key === undefined || times === undefined) return null;
  const spanMs = Number(span);
  if (!Number.isInteger(spanMs) || spanMs <= 0) return null;
  let decoded: string;
  try {
    decoded = decodeURIComponent(key);
  } catch {
    return null;
  }
  const ts = times.split(",").map(Number).filter(Number.isFinite);
  return { key: decoded, spanMs, times: ts };
}

/** Replays journal files into `store`; returns how many admissions were restored. */
export function replayInto(store: MemoryStore, files: readonly string[], nowMs: number): number {
  const grouped = new Map<string, { spanMs: number; times: number[] }>();
  for (const file of files) {
    for (const line of readLines(file)) {
      const entry = parseLine(line);
      if (!entry) continue;
      const g = grouped.get(entry.key) ?? { spanMs: entry.spanMs, times: [] };
      g.spanMs = Math.max(g.spanMs, entry.spanMs);
      // One by one: a busy key's day window is one line of hundreds of thousands of times, more
      // arguments than a spread call may take.
      for (const t of entry.times) g.times.push(t);
      grouped.set(entry.key, g);
    }
  }
  let restored = 0;
  for (const [key, g] of grouped) {
    const live = g.times.filter((t) => nowMs - t < g.spanMs).sort((a, b) => a - b);
    if (live.length === 0) continue;
    store.load(key, live, g.spanMs, nowMs);
    restored += live.length;
  }
  return restored;
}

function writeSnapshot(journal: Journal, store: MemoryStore, nowMs: number): number {
  let bytes = 0;
  for (const chunk of snapshotChunks(store, nowMs)) {
    journal.append(chunk);
    bytes += chunk.length;
  }
  return bytes;
}

/** Text of a snapshot in pieces of about this many characters (a busy key's window spans several lines). */
const CHUNK_CHARS = 256 * 1024;
/** Times per line when a window is split over lines; replay merges a key's lines. */
const TIMES_PER_LINE = 8192;

/**
 * The store's live windows at `nowMs`, as journal lines in chunks of about CHUNK_CHARS. The
 * windows are copied when this is called: the chunks describe that instant however late they
 * are read.
 */
function* snapshotChunks(store: MemoryStore, nowMs: number): Generator<string> {
  const entries = store.entries(nowMs).map((e) => ({ key: e.key, spanMs: e.spanMs, times: e.times.slice() }));
  let chunk = "";
  for (const e of entries) {
    for (let at = 0; at < e.times.length; at += TIMES_PER_LINE) {
      chunk += formatLine(e.key, e.spanMs, e.times.slice(at, at + TIMES_PER_LINE));
      if (chunk.length >= CHUNK_CHARS) {
        yield chunk;
        chunk = "";
      }
    }
  }
  if (chunk) yield chunk;
}

export interface RateLimitJournal {
  /** The store's `onRecord` hook. */
  record(key: string, atMs: number, spanMs: number): void;
  close(): void;
}

/**
 * Recovers the windows of dead processes into `store` and starts journaling this one's.
 * `compactEveryMs`: the longest a journal file grows before it is rewritten with only live entries.
 */
export async function startRateLimitJournal(
  store: MemoryStore,
  dataDir: string,
  options: { journals: Journals; compactEveryMs?: number; log?: (line: string) => void },
): Promise<RateLimitJournal> {
  const compactEveryMs = options.compactEveryMs ?? 10 * 60_000;
  const journal = await options.journals.open(dataDir, "ratelimit");
  const orphans = await orphanFiles(dataDir, "ratelimit");
  const now = Date.now();
  const restored = replayInto(store, orphans, now);
  let live = writeSnapshot(journal, store, now);
  journal.flush(); // the snapshot is on disk before the files it replaces are deleted
  for (const file of orphans) fs.rmSync(file, { force: true });
  if (orphans.length)
    options.log?.(
      `[ratelimit] restored ${restored} admission(s) of the rate-limit windows from ${orphans.length} journal file(s)`,
    );
  let written = live;
  let compactedAt = now;

  let compacting = false;
  let closed = false;

  /**
   * Rewrites the journal with only the live windows: rotate to a new file, write the snapshot of
   * this instant into it, then delete the old file. A small snapshot is written at once; a large
   * one (a busy key's day window, a million admissions) one chunk per event-loop turn, so no
   * request waits behind the whole of it. Admissions recorded meanwhile go to the new file after
   * the rotation, beside the snapshot's lines (replay merges them). Until the snapshot is flushed
   * the old file stays: a crash then replays both and counts some admissions twice (refusing
   * early), never fewer.
   */
  function compact(nowMs: number): void {
    if (compacting) return;
    compacting = true;
    const old = journal.rotate();
    written = 0;
    compactedAt = nowMs;
    const chunks = snapshotChunks(store, nowMs);
    let snapshot = 0;
    let next = chunks.next();
    const step = (): void => {
      if (closed) return; // the old file stays; the next start replays both
      while (!next.done) {
        journal.append(next.value);
        snapshot += next.value.length;
        written += next.value.length;
        next = chunks.next();
        if (!next.done) {
          setImmediate(step);
          return;
        }
      }
      journal.flush(); // the snapshot is on disk before the file it replaces is deleted
      live = snapshot;
      fs.rmSync(old, { force: true });
      compacting = false;
    };
    step();
  }

  return {
    record(key, atMs, spanMs) {
      const line = `${linePrefix(key, spanMs)}${atMs}\n`; // = formatLine(key, spanMs, [atMs])
      journal.append(line);
      written += line.length;
      if (written > 4 * live + 1_000_000 || (atMs - compactedAt > compactEveryMs && written > 2 * live)) compact(atMs);
    },
    close: () => {
      closed = true;
      journal.close();
    },
  };
}
