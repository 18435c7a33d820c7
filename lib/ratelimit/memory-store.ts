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
   * journal that lets the windows survive a restart: lib/ratelimit/journal.ts).
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
